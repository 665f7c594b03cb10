import { BYTES_TYPE } from './facts.js';
import type { Request } from './request.js';
import { type BodyChunk, Response, type ResponseOptions } from './response.js';
import { HTTPError, NotFoundError } from './errors.js';
import { builtin } from '../platform/platform.js';

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
      const size = stat.size;
      this.body = {
        size,
        open: (range) => fs.createReadStream(path, range ?? {}) as AsyncIterable<Uint8Array>,
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
      const fs = builtin('node:fs');
      return { size: undefined, open: (range) => fs.createReadStream(source, range ?? {}) as AsyncIterable<Uint8Array> };
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
    return { size: this.size, open: () => source as AsyncIterable<BodyChunk> | ReadableStream<BodyChunk> };
  }
}
