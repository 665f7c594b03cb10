import type { BodyChunk, Request } from '@fnapi/core';
import { isTextContentType } from '@fnapi/core/extend';
import { afterAnswer, answer, collectBody, type Runtime, type Serialized } from '@fnapi/core/transport';

// A written answer turned into what a platform's result carries.

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

/**
 * Serves a request and reads a streamed body to its end (for platforms that answer in one piece).
 * These platforms freeze once the handler returns, so deferred work (`request.defer`) runs here:
 * after the answer is computed, before the invocation ends.
 */
export async function serveBuffered(app: Runtime, request: Request): Promise<BufferedResult> {
  const out = await answer(app, request);
  let body: Uint8Array = EMPTY;
  if (out.stream !== undefined) body = await readAll(out.stream);
  else if (out.body !== null) body = typeof out.body === 'string' ? Buffer.from(out.body) : out.body;
  await afterAnswer(request);
  return { status: out.status, headers: headerPairs(out), body };
}

export function headerPairs(out: Serialized): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; i < out.headers.length; i += 2) pairs.push([String(out.headers[i]), String(out.headers[i + 1])]);
  return pairs;
}

export function readAll(stream: AsyncIterable<BodyChunk> | ReadableStream<BodyChunk>): Promise<Uint8Array> {
  return collectBody(stream as AsyncIterable<BodyChunk>, Number.POSITIVE_INFINITY);
}

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
  return type === undefined ? false : !isTextContentType(type);
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

const EMPTY = new Uint8Array(0);
