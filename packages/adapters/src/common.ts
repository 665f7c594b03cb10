import { once } from 'node:events';
import type { EventEmitter } from 'node:events';
import { type BodyChunk, collectBody, type Request, type Response, type Runtime, type Serialized, serialize, toChunk } from '@fnapi/core';

/** A response reduced to what a platform result carries: status, header pairs and the whole body. */
export interface BufferedResult {
  status: number;
  /** Header pairs in the order the app set them; a name may repeat (`set-cookie`). */
  headers: [string, string][];
  /** The body's bytes; empty for HEAD and for statuses without a body. */
  body: Uint8Array;
}

export interface BinaryOptions {
  /**
   * Base64-encode binary bodies (`isBase64Encoded: true`) so that they survive the platform's JSON
   * envelope. Default true; with false every body is sent as UTF-8 text, which only suits apps whose
   * responses are all text.
   */
  enableBinaryResponse?: boolean;
}

/** Serves a request through the whole app, after the app's startup callbacks have run (once). */
export async function serve(app: Runtime, request: Request): Promise<Serialized> {
  await app.startup();
  const response: Response = await app.handle(request);
  return serialize(response, { debug: app.debug, logger: app.logger });
}

/** Serves a request and reads a streamed body to its end (for platforms that answer in one piece). */
export async function serveBuffered(app: Runtime, request: Request): Promise<BufferedResult> {
  const out = await serve(app, request);
  const headers = headerPairs(out);
  let body: Uint8Array = EMPTY;
  if (request.method !== 'HEAD') {
    if (out.stream !== undefined) body = await readAll(out.stream);
    else if (out.body !== null) body = typeof out.body === 'string' ? Buffer.from(out.body) : out.body;
  }
  if (request.method === 'HEAD' && out.stream !== undefined) await discard(out.stream);
  return { status: out.status, headers, body };
}

export function headerPairs(out: Serialized): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; i < out.headers.length; i += 2) pairs.push([String(out.headers[i]), String(out.headers[i + 1])]);
  return pairs;
}

export function readAll(stream: AsyncIterable<BodyChunk> | ReadableStream<BodyChunk>): Promise<Uint8Array> {
  return collectBody(stream as AsyncIterable<BodyChunk>, Number.POSITIVE_INFINITY);
}

async function discard(stream: AsyncIterable<BodyChunk> | ReadableStream<BodyChunk>): Promise<void> {
  if ('cancel' in stream && typeof stream.cancel === 'function') await stream.cancel();
  else {
    const iterator = (stream as AsyncIterable<BodyChunk>)[Symbol.asyncIterator]();
    await iterator.return?.();
  }
}

const TEXT_TYPES =
  /^(text\/|application\/(?:[\w.+-]*\+)?(?:json|xml)\b|application\/(?:javascript|ecmascript|x-www-form-urlencoded|graphql)\b|multipart\/form-data\b|image\/svg\+xml\b)/i;

/**
 * Whether a body must travel base64-encoded: its type is not text, JSON, XML or form data, or it is
 * compressed (`Content-Encoding` other than identity).
 */
export function isBinary(headers: readonly [string, string][]): boolean {
  let type: string | undefined;
  for (const [name, value] of headers) {
    if (name === 'content-encoding' && value.trim().toLowerCase() !== 'identity' && value.trim() !== '') return true;
    if (name === 'content-type') type = value;
  }
  return type === undefined ? false : !TEXT_TYPES.test(type.trim());
}

/** The body as a platform result's `body` and `isBase64Encoded`. */
export function encodeBody(result: BufferedResult, options: BinaryOptions): { body: string; isBase64Encoded: boolean } {
  if (result.body.byteLength === 0) return { body: '', isBase64Encoded: false };
  if (options.enableBinaryResponse !== false && isBinary(result.headers)) {
    return {
      body: Buffer.from(result.body.buffer, result.body.byteOffset, result.body.byteLength).toString('base64'),
      isBase64Encoded: true,
    };
  }
  return { body: Buffer.from(result.body.buffer, result.body.byteOffset, result.body.byteLength).toString('utf8'), isBase64Encoded: false };
}

/** `name → value` with repeated headers joined by `, ` (set-cookie left out: platforms carry it apart). */
export function singleValueHeaders(pairs: readonly [string, string][]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of pairs) {
    if (name === 'set-cookie') continue;
    const current = out[name];
    out[name] = current === undefined ? value : `${current}, ${value}`;
  }
  return out;
}

/** `name → values` for every header. */
export function multiValueHeaders(pairs: readonly [string, string][]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of pairs) (out[name] ??= []).push(value);
  return out;
}

/** Single values under `headers`, repeated ones (two Set-Cookie) under `multiValueHeaders`, never both. */
export function splitHeaders(pairs: readonly [string, string][]): {
  headers: Record<string, string>;
  multiValueHeaders: Record<string, string[]>;
} {
  const all = multiValueHeaders(pairs);
  const headers: Record<string, string> = {};
  const multi: Record<string, string[]> = {};
  for (const name in all) {
    const values = all[name];
    if (values.length === 1) headers[name] = values[0];
    else multi[name] = values;
  }
  return { headers, multiValueHeaders: multi };
}

export function setCookies(pairs: readonly [string, string][]): string[] {
  const out: string[] = [];
  for (const [name, value] of pairs) if (name === 'set-cookie') out.push(value);
  return out;
}

/** Removes `prefix` from the front of `path` when the path is the prefix or continues it with `/`. */
export function stripPrefix(path: string, prefix: string | undefined): string {
  if (!prefix || prefix === '/') return path;
  const normalized = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
  if (path === normalized) return '/';
  if (path.startsWith(normalized) && path.charCodeAt(normalized.length) === 47 /* / */) return path.slice(normalized.length);
  return path;
}

/**
 * A path as it goes on the wire. Platforms hand over decoded paths (a space, `ü`); characters that
 * may not appear in a path are percent-encoded again, while `%XX` escapes already there are kept.
 */
export function toWirePath(path: string): string {
  if (path === '') return '/';
  if (!/[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]|%(?![0-9A-Fa-f]{2})/.test(path)) return path;
  return path.replace(/%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]+/g, (part) => encodeURIComponent(part));
}

/** A query string from decoded `name → value(s)` maps (API Gateway decodes the ones it delivers). */
export function encodeQuery(params: Record<string, string | string[] | undefined> | null | undefined): string {
  if (!params) return '';
  const parts: string[] = [];
  for (const name in params) {
    const value = params[name];
    if (value === undefined) continue;
    const key = encodeURIComponent(name);
    if (Array.isArray(value)) for (const item of value) parts.push(`${key}=${encodeURIComponent(item)}`);
    else parts.push(`${key}=${encodeURIComponent(value)}`);
  }
  return parts.join('&');
}

/** A query string from `name → value(s)` maps whose names and values are still percent-encoded (ALB). */
export function joinRawQuery(params: Record<string, string | string[] | undefined> | null | undefined): string {
  if (!params) return '';
  const parts: string[] = [];
  for (const name in params) {
    const value = params[name];
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) parts.push(`${name}=${item}`);
    else parts.push(`${name}=${value}`);
  }
  return parts.join('&');
}

/**
 * Request headers from a platform's single- and multi-value maps, with lower-case names. The
 * multi-value map wins where both are present (it holds every value).
 */
export function lowerCaseHeaders(
  single: Record<string, string | undefined> | null | undefined,
  multi?: Record<string, string[] | undefined> | null,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  if (multi) {
    for (const name in multi) {
      const values = multi[name];
      if (values === undefined || values.length === 0) continue;
      const key = name.toLowerCase();
      out[key] = joinRequestHeader(key, out[key], values);
    }
  }
  if (single) {
    for (const name in single) {
      const value = single[name];
      const key = name.toLowerCase();
      if (value === undefined || (multi && out[key] !== undefined)) continue;
      out[key] = joinRequestHeader(key, out[key], [value]);
    }
  }
  return out;
}

function joinRequestHeader(name: string, current: string | string[] | undefined, values: string[]): string | string[] {
  const all = current === undefined ? values : [...(Array.isArray(current) ? current : [current]), ...values];
  if (name === 'set-cookie') return all;
  if (all.length === 1) return all[0];
  return all.join(name === 'cookie' ? '; ' : ', ');
}

export function decodeBody(body: string | null | undefined, base64: boolean | undefined): Uint8Array | undefined {
  if (body === null || body === undefined || body === '') return undefined;
  return base64 ? Buffer.from(body, 'base64') : Buffer.from(body, 'utf8');
}

export function protocolOf(headers: Record<string, string | string[]>, fallback: 'http' | 'https'): 'http' | 'https' {
  const forwarded = headers['x-forwarded-proto'];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim().toLowerCase();
  return first === 'http' || first === 'https' ? first : fallback;
}

const EMPTY = new Uint8Array(0);

/** Writes a streamed body, waiting whenever the destination asks to; stops if it closes. */
/** A writable destination: a Node `Writable`, `ServerResponse` or Lambda response stream. */
export interface ChunkSink {
  readonly destroyed: boolean;
  write(chunk: Uint8Array): boolean;
}

export async function writeChunks(stream: ChunkSink, source: AsyncIterable<BodyChunk>): Promise<void> {
  for await (const chunk of source) {
    if (stream.destroyed) break;
    await writeChunk(stream, toChunk(chunk));
  }
}

export async function writeChunk(stream: ChunkSink, chunk: Uint8Array): Promise<void> {
  if (stream.write(chunk)) return;
  const emitter = stream as unknown as EventEmitter;
  // Waits for drain; a stream closed meanwhile (client gone) ends the wait too.
  const done = new AbortController();
  try {
    await Promise.race([once(emitter, 'drain', { signal: done.signal }), once(emitter, 'close', { signal: done.signal })]);
  } finally {
    done.abort();
  }
}
