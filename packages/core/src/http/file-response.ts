import { BYTES_TYPE } from './facts.js';
import type { Request } from './request.js';
import { type BodyChunk, Response, type ResponseOptions } from './response.js';
import { HTTPError, NotFoundError } from './errors.js';
import { StreamInterrupted } from './interrupted.js';
import { defaultLogger, type Logger } from '../platform/logger.js';
import { builtin, utf8 } from '../platform/platform.js';

/** What a `FileResponse` sends: a file's path, bytes, a `Blob` or a stream. */
export type FileSource = string | Uint8Array | ArrayBuffer | Blob | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array | string>;

export interface FileResponseOptions extends Omit<ResponseOptions, 'mediaType'> {
  /** The name the client saves the file under (`Content-Disposition`); default the path's last segment. */
  filename?: string;
  /** Content type; default from the file name's extension, a Blob's type, else `application/octet-stream`. */
  mediaType?: string;
  /** `Content-Disposition: inline` (shown by the browser) rather than `attachment`. */
  inline?: boolean;
  /** Bytes of a stream source, sent as `Content-Length` (other sources know their size). */
  size?: number;
}

export interface FileRootOptions extends FileResponseOptions {
  /** `'allow'` serves a path with a segment starting with `.` (`.well-known/…`); default `'deny'`: 404. */
  dotfiles?: 'allow' | 'deny';
}

/** Which file a path named when it was checked: the one whose bytes are sent, or none. */
interface FileIdentity {
  dev: number;
  ino: number;
}

/** Bytes read from a file per chunk. */
const CHUNK = 64 * 1024;

const TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  avif: 'image/avif',
  txt: 'text/plain; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  html: 'text/html; charset=utf-8',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  json: 'application/json',
  xml: 'application/xml',
  zip: 'application/zip',
  gz: 'application/gzip',
  tar: 'application/x-tar',
  mp3: 'audio/mpeg',
  mp4: 'video/mp4',
  webm: 'video/webm',
  wasm: 'application/wasm',
  md: 'text/markdown; charset=utf-8',
};

function typeOfName(name: string | undefined): string | undefined {
  const dot = name?.lastIndexOf('.') ?? -1;
  return dot < 0 ? undefined : TYPES[name!.slice(dot + 1).toLowerCase()];
}

/**
 * `Content-Disposition` as RFC 6266 writes it: a plain ASCII name as `filename="…"`, any other with
 * an ASCII fallback and the UTF-8 name in `filename*` (RFC 8187).
 */
export function contentDisposition(filename: string | undefined, inline = false): string {
  const kind = inline ? 'inline' : 'attachment';
  if (filename === undefined) return kind;
  const fallback = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const plain = fallback === filename;
  let value = `${kind}; filename="${fallback}"`;
  if (!plain) {
    const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    value += `; filename*=UTF-8''${encoded}`;
  }
  return value;
}

/** One `bytes=a-b` range of a `Range` header: the range, `'unsatisfiable'`, or undefined to send the whole file. */
function parseRange(header: string, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  // Several ranges, or another unit: the whole file (a server may ignore Range).
  if (!match) return undefined;
  const [, first, last] = match;
  if (first === '' && last === '') return undefined;
  let start: number;
  let end: number;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(first);
    end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
    if (last !== '' && Number(last) < start) return undefined;
  }
  if (start >= size || size === 0) return 'unsatisfiable';
  return { start, end };
}

function etagMatches(header: string, etag: string): boolean {
  const weak = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || weak(tag) === weak(etag));
}

interface Body {
  size: number | undefined;
  /** The bytes from `start` to `end` (inclusive), or all of them. */
  open(range?: { start: number; end: number }): AsyncIterable<BodyChunk> | ReadableStream<BodyChunk>;
}

async function* once(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  if (bytes.byteLength > 0) yield bytes;
}

/**
 * A body that cannot be what its head announced (it ended sooner, or its file was replaced): logged at
 * `warn`, then the stream fails, so the connection is closed rather than reused.
 */
function shortBody(logger: Logger | undefined, what: Record<string, unknown>, message = 'file shorter than announced'): StreamInterrupted {
  const error = new Error(`the body ended after ${what.sent} of the ${what.announced} bytes announced`);
  (logger ?? defaultLogger()).warn({ ...what, err: error }, `${message}; closing the connection`);
  return new StreamInterrupted(error);
}

/**
 * `length` bytes of a file from `start` (all of it when `length` is undefined), read from the file it
 * opens: never a byte past `length` (a file that grew is cut there), and a file that ended sooner (it
 * shrank) fails the stream, so the connection is closed rather than the next answer written inside the
 * announced body. With `identity`, the opened file must be the one that was checked.
 */
async function* readFile(
  path: string,
  start: number,
  length: number | undefined,
  identity: FileIdentity | undefined,
  logger: Logger | undefined,
): AsyncIterable<Uint8Array> {
  const handle = await builtin('node:fs').promises.open(path, 'r');
  try {
    if (identity !== undefined) {
      const opened = await handle.stat();
      if (opened.dev !== identity.dev || opened.ino !== identity.ino) {
        throw shortBody(logger, { path, sent: 0, announced: length }, 'file replaced after it was checked');
      }
    }
    let position = start;
    let left = length ?? Number.POSITIVE_INFINITY;
    while (left > 0) {
      const buffer = new Uint8Array(Math.min(CHUNK, left));
      const { bytesRead } = await handle.read(buffer, 0, buffer.byteLength, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      left -= bytesRead;
      yield bytesRead === buffer.byteLength ? buffer : buffer.subarray(0, bytesRead);
    }
    if (length !== undefined && left > 0) throw shortBody(logger, { path, sent: length - left, announced: length });
  } finally {
    await handle.close();
  }
}

/** A stream of known length sent exactly: cut at `length`, failed (the connection closed) when it ends sooner. */
async function* exactly(
  source: AsyncIterable<BodyChunk> | ReadableStream<BodyChunk>,
  length: number,
  logger: Logger | undefined,
): AsyncIterable<BodyChunk> {
  let left = length;
  if (left > 0) {
    for await (const chunk of source as AsyncIterable<BodyChunk>) {
      const bytes = typeof chunk === 'string' ? utf8(chunk) : chunk;
      if (bytes.byteLength >= left) {
        yield bytes.subarray(0, left);
        left = 0;
        break;
      }
      left -= bytes.byteLength;
      yield bytes;
    }
  }
  if (left > 0) throw shortBody(logger, { sent: length - left, announced: length });
}

/** The refusal of `fromRoot`: the same 404 whatever was wrong, so a probe learns nothing of the disk. */
function notFound(): NotFoundError {
  return new NotFoundError('File not found');
}

/**
 * A file download: from a path (streamed from disk, with `ETag`, `Last-Modified`, 304 on a
 * matching `If-None-Match`/`If-Modified-Since`, and one `Range` → 206 or 416), bytes, a `Blob` or a
 * stream, with `Content-Disposition` naming the file. node:fs is loaded only for a path.
 */
export class FileResponse extends Response {
  readonly source: FileSource;
  readonly filename: string | undefined;
  readonly inline: boolean;
  private readonly size: number | undefined;
  private body: Body | undefined;
  private range: { start: number; end: number } | undefined;
  /** The file `fromRoot` checked: the one opened must be it. */
  private identity: FileIdentity | undefined;
  /** The request's logger, for a body cut short. */
  private logger: Logger | undefined;
  /** Settled against its request (`prepare`): the runtime prepares a file answer once, wherever it came from. */
  prepared = false;

  constructor(source: FileSource, options: FileResponseOptions = {}) {
    const { filename, mediaType, inline, size, ...rest } = options;
    const name = filename ?? (typeof source === 'string' ? source.split(/[\\/]/).pop() : undefined);
    const blobType = typeof Blob !== 'undefined' && source instanceof Blob && source.type !== '' ? source.type : undefined;
    super(undefined, { ...rest, mediaType: mediaType ?? blobType ?? typeOfName(name) ?? BYTES_TYPE });
    this.source = source;
    this.filename = name;
    this.inline = inline ?? false;
    this.size = size;
    if (!this.headers.has('content-disposition')) this.headers.set('content-disposition', contentDisposition(name, this.inline));
  }

  /**
   * A file under `root` named by a request (`/files/{name:path}`): resolves to its `FileResponse`, or
   * throws `NotFoundError` for a path that is absolute, holds a `..` segment, a NUL or a backslash, has
   * a segment starting with `.` (unless `dotfiles: 'allow'`), is missing or a directory, or resolves —
   * symlinks followed — outside `root`. The bytes sent come from the very file checked: one put in its
   * place afterwards (a symlink swapped in) is never read.
   */
  static async fromRoot(root: string, relativePath: string, options: FileRootOptions = {}): Promise<FileResponse> {
    const { dotfiles = 'deny', ...rest } = options;
    const path = builtin('node:path');
    const fs = builtin('node:fs').promises;
    if (typeof relativePath !== 'string' || relativePath.includes('\0') || relativePath.includes('\\')) throw notFound();
    if (relativePath.startsWith('/') || /^[A-Za-z]:/.test(relativePath) || path.isAbsolute(relativePath)) throw notFound();
    const hidden = (segments: string[]) =>
      segments.some((segment) => segment === '..' || (dotfiles !== 'allow' && segment.startsWith('.')));
    const segments = relativePath.split('/');
    if (hidden(segments)) throw notFound();
    let base: string;
    let real: string;
    try {
      base = await fs.realpath(path.resolve(root));
      real = await fs.realpath(path.join(base, ...segments));
    } catch {
      throw notFound();
    }
    const inside = path.relative(base, real);
    if (inside === '' || inside.startsWith(`..${path.sep}`) || inside === '..' || path.isAbsolute(inside)) throw notFound();
    // What a symlink led to is held to the same rule as the path asked for (a link to `.env`).
    if (hidden(inside.split(path.sep))) throw notFound();
    let stat: import('node:fs').Stats;
    try {
      stat = await fs.stat(real);
    } catch {
      throw notFound();
    }
    if (!stat.isFile()) throw notFound();
    const response = new FileResponse(real, { filename: segments[segments.length - 1], ...rest });
    response.identity = { dev: stat.dev, ino: stat.ino };
    return response;
  }

  override render(): null {
    return null;
  }

  override stream(): AsyncIterable<BodyChunk> | ReadableStream<BodyChunk> {
    const body = this.body ?? this.bodyOfMemory();
    return body.open(this.range);
  }

  /** Bytes sent (the range's when answering 206), when known. */
  override streamLength(): number | undefined {
    if (this.range) return this.range.end - this.range.start + 1;
    return (this.body ?? this.bodyOfMemory()).size;
  }

  /**
   * Settles the answer for a request: stats a path (404 when there is no such file), answers 304 to
   * a matching conditional request, and 206 to a `Range`. A missing file throws `NotFoundError`, an
   * unsatisfiable range a 416 `HTTPError`, into the error funnel like any other. The runtime prepares a
   * file answer once, wherever it was returned (an endpoint, a middleware).
   */
  async prepare(request: Request): Promise<Response> {
    if (this.prepared) return this;
    this.prepared = true;
    this.logger = request.logger;
    let etag: string | undefined;
    let modified: Date | undefined;
    if (typeof this.source === 'string') {
      const path = this.source;
      const fs = builtin('node:fs');
      let stat: import('node:fs').Stats;
      try {
        stat = await fs.promises.stat(path);
      } catch {
        throw new NotFoundError('File not found');
      }
      if (!stat.isFile()) throw new NotFoundError('File not found');
      const checked = this.identity;
      if (checked !== undefined && (checked.dev !== stat.dev || checked.ino !== stat.ino)) throw new NotFoundError('File not found');
      const size = stat.size;
      // The bytes of the file stated (not of one renamed into its place), exactly as many as announced.
      const identity = { dev: stat.dev, ino: stat.ino };
      this.body = {
        size,
        open: (range) =>
          range === undefined
            ? readFile(path, 0, size, identity, this.logger)
            : readFile(path, range.start, range.end - range.start + 1, identity, this.logger),
      };
      etag = `"${size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`;
      modified = new Date(Math.floor(stat.mtimeMs / 1000) * 1000);
      this.headers.set('etag', etag);
      this.headers.set('last-modified', modified.toUTCString());
    } else this.body = this.bodyOfMemory();

    const size = this.body.size;
    const method = request.method;
    if (method !== 'GET' && method !== 'HEAD') return this;
    if (etag !== undefined) {
      const noneMatch = request.headers.get('if-none-match');
      const since = request.headers.get('if-modified-since');
      const notModified =
        noneMatch !== null
          ? etagMatches(noneMatch, etag)
          : since !== null && modified !== undefined && !Number.isNaN(Date.parse(since)) && modified.getTime() <= Date.parse(since);
      if (notModified) {
        const answer = new Response(undefined, { statusCode: 304 });
        for (const name of ['etag', 'last-modified', 'cache-control', 'content-location', 'expires', 'vary']) {
          const value = this.headers.get(name);
          if (value !== null) answer.headers.set(name, value);
        }
        return answer;
      }
    }
    if (size === undefined || this.statusCode !== 200) return this;
    this.headers.set('accept-ranges', 'bytes');
    const header = request.headers.get('range');
    if (header === null) return this;
    // If-Range: the range only while the file is still the one the client has part of.
    const ifRange = request.headers.get('if-range');
    if (ifRange !== null) {
      const current =
        ifRange.trim().startsWith('"') || ifRange.trim().startsWith('W/')
          ? ifRange.trim() === etag
          : modified !== undefined && Date.parse(ifRange) === modified.getTime();
      if (!current) return this;
    }
    const range = parseRange(header, size);
    if (range === undefined) return this;
    if (range === 'unsatisfiable') {
      throw new HTTPError(416, `Range not satisfiable: the file has ${size} bytes`, undefined, {
        headers: { 'content-range': `bytes */${size}` },
      });
    }
    this.range = range;
    this.statusCode = 206;
    this.headers.set('content-range', `bytes ${range.start}-${range.end}/${size}`);
    return this;
  }

  private bodyOfMemory(): Body {
    const source = this.source;
    if (typeof source === 'string') {
      // Not prepared yet (read before the runtime settled it): stream the path without the conditional answers.
      return { size: undefined, open: () => readFile(source, 0, undefined, this.identity, this.logger) };
    }
    if (source instanceof Uint8Array || source instanceof ArrayBuffer) {
      const bytes = source instanceof ArrayBuffer ? new Uint8Array(source) : source;
      return { size: bytes.byteLength, open: (range) => once(range ? bytes.subarray(range.start, range.end + 1) : bytes) };
    }
    if (typeof Blob !== 'undefined' && source instanceof Blob) {
      return {
        size: source.size,
        open: (range) => (range ? source.slice(range.start, range.end + 1) : source).stream() as ReadableStream<BodyChunk>,
      };
    }
    const size = this.size;
    if (size === undefined) return { size, open: () => source as AsyncIterable<BodyChunk> | ReadableStream<BodyChunk> };
    // The stream's own bytes may not match the `size` it was given: the announced length wins.
    return { size, open: () => exactly(source as AsyncIterable<BodyChunk> | ReadableStream<BodyChunk>, size, this.logger) };
  }
}
