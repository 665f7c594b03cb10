import type * as zlib from 'node:zlib';
import { type BodyChunk, type CallNext, type Request, Response, StreamingResponse } from '@fnapi/core';
import { builtin, closeStream, problemDetails, problemResponse, ResponseHeaders, statusHasBody } from '@fnapi/core/extend';
import { Middleware } from './base.js';
import { appendVary } from './header-lists.js';

// node:zlib at its points of use, not imported: a Worker's bundle (no nodejs_compat) has none, and
// importing @fnapi/middleware must load there. Compressing needs it (Node, Bun, Deno; Workers with
// nodejs_compat).
const nodeZlib = () => builtin('node:zlib');

export type CompressionEncoding = 'br' | 'gzip' | 'deflate';

export interface CompressionOptions {
  /** Bodies smaller than this many bytes are sent as they are; default 1024. */
  threshold?: number;
  /** Encodings offered, in the server's order of preference (ties of q-value go to the first); default `['br', 'gzip']`. */
  encodings?: readonly CompressionEncoding[];
  /** zlib level for gzip/deflate (0–9, default 6) and quality for brotli (0–11, default 4; at most 1 for streams). */
  level?: number;
  /**
   * Responses for which this returns true are sent uncompressed: a body that carries a secret
   * (a CSRF token, a session value) beside input an attacker can reflect (BREACH).
   */
  exclude?: (request: Request, response: Response) => boolean;
}

// JSON (and +json), text/* (event streams included), JavaScript, SVG, XML (and +xml), JSON Lines.
const COMPRESSIBLE =
  /^(?:text\/|application\/(?:json|javascript|ecmascript|x-javascript|xml|jsonl|x-ndjson|[\w.-]+\+(?:json|xml))\b|image\/svg\+xml\b)/i;

/** Smaller bodies are compressed on the spot; bigger ones on libuv's pool, off the event loop. */
const SYNC_LIMIT = 32 * 1024;

interface Negotiated {
  /** The encoding to use, or undefined for the body as it is. */
  encoding: CompressionEncoding | undefined;
  /** The client refused `identity` (`identity;q=0`, or `*;q=0` without naming it). */
  identityRefused: boolean;
}

/**
 * Picks an encoding by the request's `Accept-Encoding` (RFC 9110 §12.5.3): the offered encoding with
 * the highest q-value above 0, `*` standing for those not named; ties go to the server's order.
 */
export function negotiateEncoding(header: string | null, offered: readonly CompressionEncoding[]): Negotiated {
  if (header === null) return { encoding: undefined, identityRefused: false };
  const weights = new Map<string, number>();
  for (const part of header.split(',')) {
    const [rawName, ...params] = part.split(';');
    const name = rawName!.trim().toLowerCase();
    if (name === '') continue;
    let q = 1;
    for (const param of params) {
      const [key, value] = param.split('=');
      if (key?.trim().toLowerCase() === 'q') {
        const parsed = Number(value?.trim());
        q = Number.isFinite(parsed) ? Math.min(1, Math.max(0, parsed)) : 0;
      }
    }
    // A repeated coding keeps its highest weight.
    weights.set(name, Math.max(q, weights.get(name) ?? 0));
  }
  const star = weights.get('*');
  let best: CompressionEncoding | undefined;
  let bestQ = 0;
  for (const encoding of offered) {
    const q = weights.get(encoding) ?? (encoding === 'gzip' ? weights.get('x-gzip') : undefined) ?? star ?? 0;
    if (q > bestQ) {
      best = encoding;
      bestQ = q;
    }
  }
  const identity = weights.get('identity') ?? star;
  return { encoding: best, identityRefused: identity === 0 };
}

export function isCompressible(contentType: string | null | undefined): boolean {
  return contentType != null && COMPRESSIBLE.test(contentType);
}

/**
 * Compresses answers by the request's `Accept-Encoding` with node:zlib: compressible types only,
 * never a body under `threshold`, a HEAD/204/304, a body that already has `Content-Encoding` or a
 * response marked `Cache-Control: no-transform`. A streamed body is compressed as it flows, one output
 * chunk per input chunk (flushed after each), so an event stream still arrives item by item. Sets
 * `Vary: Accept-Encoding`. A client that refuses `identity` gets any body compressed when one of the
 * encodings is acceptable to it, and 406 when none is.
 */
export class CompressionMiddleware extends Middleware {
  readonly threshold: number;
  readonly encodings: readonly CompressionEncoding[];
  readonly level: number | undefined;
  private readonly exclude: ((request: Request, response: Response) => boolean) | undefined;
  /** For streams: the same encodings, gzip and deflate first (they keep nothing between items; see compressStream). */
  private readonly streamEncodings: readonly CompressionEncoding[];

  constructor(options: CompressionOptions = {}) {
    super();
    this.threshold = options.threshold ?? 1024;
    this.encodings = Object.freeze([...(options.encodings ?? ['br', 'gzip'])]);
    for (const encoding of this.encodings) {
      if (encoding !== 'br' && encoding !== 'gzip' && encoding !== 'deflate') {
        throw new TypeError(`Unsupported encoding "${String(encoding)}"; use 'br', 'gzip' or 'deflate'`);
      }
    }
    if (options.level !== undefined && !(Number.isInteger(options.level) && options.level >= 0 && options.level <= 11)) {
      throw new RangeError(`level must be a whole number from 0 to 11, got ${options.level}`);
    }
    this.level = options.level;
    if (options.exclude !== undefined && typeof options.exclude !== 'function')
      throw new TypeError('exclude must be a function (request, response) => boolean');
    this.exclude = options.exclude;
    this.streamEncodings = Object.freeze([...this.encodings.filter((e) => e !== 'br'), ...this.encodings.filter((e) => e === 'br')]);
  }

  async dispatch(request: Request, callNext: CallNext): Promise<Response> {
    const response = await callNext(request);
    if (!statusHasBody(response.statusCode)) return response;
    const headers = response.headersIfAny;
    if (headers?.has('content-encoding')) return response;
    if (headers !== undefined && /\bno-transform\b/i.test(headers.get('cache-control') ?? '')) return response;
    if (this.exclude?.(request, response)) return response;
    const contentType = headers?.get('content-type') ?? response.contentType() ?? null;
    const stream = response.stream();
    // A stream prefers gzip or deflate among equally wanted encodings: they hold no compressor while idle.
    const { encoding, identityRefused } = negotiateEncoding(
      request.headers.get('accept-encoding'),
      stream === undefined ? this.encodings : this.streamEncodings,
    );
    if (!identityRefused && !isCompressible(contentType)) return response;
    const body = stream === undefined ? response.render() : null;
    if (stream === undefined && body === null) return response;
    appendVary(response, 'Accept-Encoding');
    if (encoding === undefined) return identityRefused ? notAcceptable(this.encodings) : response;
    if (body !== null && !identityRefused && byteLength(body) < this.threshold) {
      // Rendered already: sent as it is rather than rendered (stringified) a second time.
      return new Response(body, { statusCode: response.statusCode, headers: response.headers, mediaType: contentType ?? undefined });
    }
    const out = new ResponseHeaders(response.headers);
    out.set('content-encoding', encoding);
    out.delete('content-length');
    const etag = out.get('etag');
    // A strong validator names exact bytes; the compressed bytes differ.
    if (etag !== null && !etag.startsWith('W/')) out.set('etag', `W/${etag}`);
    // A HEAD gets the headers its GET would (RFC 9110 §8.6), decided the same way above, without the
    // compressed length, which only compressing would tell; no body is sent, so none is made.
    if (request.method === 'HEAD') {
      if (stream !== undefined) void closeStream(stream);
      return new StreamingResponse(NO_CHUNKS, { statusCode: response.statusCode, headers: out, mediaType: contentType ?? undefined });
    }
    if (stream !== undefined) {
      return new StreamingResponse(compressStream(stream, encoding, this.level), {
        statusCode: response.statusCode,
        headers: out,
        mediaType: contentType ?? undefined,
      });
    }
    const compressed = await compressBuffer(toBuffer(body!), encoding, this.level);
    return new Response(compressed, { statusCode: response.statusCode, headers: out, mediaType: contentType ?? undefined });
  }
}

const NO_CHUNKS: AsyncIterable<BodyChunk> = {
  [Symbol.asyncIterator]: () => ({ next: async (): Promise<IteratorResult<BodyChunk>> => ({ done: true, value: undefined }) }),
};

function notAcceptable(encodings: readonly CompressionEncoding[]): Response {
  return problemResponse(problemDetails(406, `identity is refused and none of ${encodings.join(', ')} is accepted`));
}

function byteLength(body: string | Uint8Array): number {
  return typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
}

function toBuffer(body: BodyChunk): Buffer {
  return typeof body === 'string' ? Buffer.from(body) : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

function brotliOptions(level: number | undefined): zlib.BrotliOptions {
  // Brotli's default quality (11) is for ahead-of-time compression; 4 suits answers made on the fly.
  return { params: { [nodeZlib().constants.BROTLI_PARAM_QUALITY]: Math.min(11, level ?? 4) } };
}

function zlibOptions(level: number | undefined): zlib.ZlibOptions {
  return level === undefined ? {} : { level: Math.min(9, level) };
}

async function compressBuffer(body: Buffer, encoding: CompressionEncoding, level: number | undefined): Promise<Buffer> {
  const sync = body.byteLength <= SYNC_LIMIT;
  switch (encoding) {
    case 'br':
      return sync
        ? nodeZlib().brotliCompressSync(body, brotliOptions(level))
        : promised((done) => nodeZlib().brotliCompress(body, brotliOptions(level), done));
    case 'gzip':
      return sync ? nodeZlib().gzipSync(body, zlibOptions(level)) : promised((done) => nodeZlib().gzip(body, zlibOptions(level), done));
    case 'deflate':
      return sync
        ? nodeZlib().deflateSync(body, zlibOptions(level))
        : promised((done) => nodeZlib().deflate(body, zlibOptions(level), done));
  }
}

function promised(run: (done: zlib.CompressCallback) => void): Promise<Buffer> {
  return new Promise((resolve, reject) => run((error, result) => (error ? reject(error) : resolve(result))));
}

// Framing for gzip (RFC 1952) and deflate (RFC 1950) streams built from raw deflate blocks.
const GZIP_HEADER = new Uint8Array([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03]);
const ZLIB_HEADER = new Uint8Array([0x78, 0x9c]);
/** A final, empty block with fixed codes: the end of a deflate stream. */
const FINAL_BLOCK = new Uint8Array([0x03, 0x00]);

/** Adler-32 (RFC 1950), continued from `adler`. */
function adler32(bytes: Uint8Array, adler: number): number {
  let a = adler & 0xffff;
  let b = adler >>> 16;
  for (let i = 0; i < bytes.length; ) {
    const end = Math.min(bytes.length, i + 5552);
    for (; i < end; i++) {
      a += bytes[i]!;
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return ((b << 16) | a) >>> 0;
}

function rawDeflateOptions(level: number | undefined): zlib.ZlibOptions {
  // One item at a time, so a small window and hash do; sync-flushed, so the blocks of successive
  // items, each from a compressor of its own, follow one another in one valid deflate stream.
  return {
    level: level === undefined ? 6 : Math.min(9, level),
    windowBits: 13,
    memLevel: 6,
    chunkSize: 4096,
    finishFlush: nodeZlib().constants.Z_SYNC_FLUSH,
  };
}

/** Bytes of what was sent kept as the next item's dictionary: the decoder has them in its window. */
const DICTIONARY_BYTES = 4096;

/**
 * A gzip or deflate stream, one chunk per item: each item is deflated by a compressor of its own,
 * primed with the last 4 KiB sent (the decoder's window holds them, so references into them are valid)
 * and sync-flushed, and the framing (header, checksum, length) is written around the blocks. Nothing of
 * a compressor outlives an item: an idle stream holds 4 KiB, a checksum and a count, not zlib's
 * ~100–250 KiB state, and small rows still compress against the rows before them (100-byte JSON
 * lines: 0.22 of their size, against 1.03 without the dictionary).
 */
async function* deflateItems(
  source: AsyncIterable<BodyChunk>,
  encoding: 'gzip' | 'deflate',
  level: number | undefined,
): AsyncGenerator<Uint8Array> {
  const options = rawDeflateOptions(level);
  let header: Uint8Array | undefined = encoding === 'gzip' ? GZIP_HEADER : ZLIB_HEADER;
  let check = encoding === 'gzip' ? 0 : 1;
  let size = 0;
  let dictionary: Buffer | undefined;
  for await (const chunk of source) {
    const bytes = toBuffer(chunk);
    if (bytes.byteLength === 0) continue;
    check = encoding === 'gzip' ? nodeZlib().crc32(bytes, check) : adler32(bytes, check);
    size = (size + bytes.byteLength) >>> 0;
    const primed = dictionary === undefined ? options : { ...options, dictionary };
    const blocks =
      bytes.byteLength <= SYNC_LIMIT
        ? nodeZlib().deflateRawSync(bytes, primed)
        : await promised((done) => nodeZlib().deflateRaw(bytes, primed, done));
    // A copy, so a large item is not kept alive by its last 4 KiB.
    dictionary = Buffer.from(
      bytes.byteLength >= DICTIONARY_BYTES
        ? bytes.subarray(bytes.byteLength - DICTIONARY_BYTES)
        : Buffer.concat(dictionary === undefined ? [bytes] : [dictionary, bytes]).subarray(-DICTIONARY_BYTES),
    );
    yield header === undefined ? blocks : Buffer.concat([header, blocks]);
    header = undefined;
  }
  const trailer = Buffer.alloc(encoding === 'gzip' ? 8 : 4);
  if (encoding === 'gzip') {
    trailer.writeUInt32LE(check >>> 0, 0);
    trailer.writeUInt32LE(size, 4);
  } else {
    trailer.writeUInt32BE(check >>> 0, 0);
  }
  yield Buffer.concat(header === undefined ? [FINAL_BLOCK, trailer] : [header, FINAL_BLOCK, trailer]);
}

/** Brotli for streams: quality at most 1 and a 4 KiB window, so an open stream stays small (~30 KiB). */
function brotliStreamOptions(level: number | undefined): zlib.BrotliOptions {
  return {
    chunkSize: 4096,
    params: { [nodeZlib().constants.BROTLI_PARAM_QUALITY]: Math.min(1, level ?? 1), [nodeZlib().constants.BROTLI_PARAM_LGWIN]: 12 },
  };
}

/**
 * A streamed body compressed as it flows, one compressed chunk per item (flushed after each), so an
 * event stream still arrives item by item. Closing this iterator (the client went away) closes the
 * source's (its generator's `finally` runs) and frees the compressor.
 */
function compressStream(
  source: AsyncIterable<BodyChunk> | ReadableStream<BodyChunk>,
  encoding: CompressionEncoding,
  level: number | undefined,
): AsyncGenerator<Uint8Array> {
  const items = source as AsyncIterable<BodyChunk>;
  return encoding === 'br' ? brotliItems(items, level) : deflateItems(items, encoding, level);
}

async function* brotliItems(source: AsyncIterable<BodyChunk>, level: number | undefined): AsyncGenerator<Uint8Array> {
  const stream = nodeZlib().createBrotliCompress(brotliStreamOptions(level));
  const flush = nodeZlib().constants.BROTLI_OPERATION_FLUSH;
  const drain = (): Buffer | undefined => {
    const parts: Buffer[] = [];
    for (let chunk = stream.read() as Buffer | null; chunk !== null; chunk = stream.read() as Buffer | null) parts.push(chunk);
    return parts.length === 0 ? undefined : parts.length === 1 ? parts[0] : Buffer.concat(parts);
  };
  try {
    for await (const chunk of source) {
      const bytes = toBuffer(chunk);
      if (bytes.byteLength === 0) continue;
      stream.write(bytes);
      await new Promise<void>((resolve) => stream.flush(flush, () => resolve()));
      const out = drain();
      if (out !== undefined) yield out;
    }
    const rest: Buffer[] = [];
    const first = drain();
    if (first !== undefined) rest.push(first);
    stream.on('data', (chunk: Buffer) => rest.push(chunk));
    const ended = builtin('node:events').once(stream, 'end');
    stream.end();
    await ended;
    if (rest.length > 0) yield Buffer.concat(rest);
  } finally {
    stream.destroy();
  }
}
