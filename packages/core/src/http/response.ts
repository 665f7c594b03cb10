import { type CookieOptions, cookieLine, expiredCookieLine } from './cookies.js';
import { type HeadersInit, ResponseHeaders } from './headers.js';
import type { ProblemDetails } from './errors.js';
import { BYTES_TYPE, HTML_TYPE, JSON_TYPE, PROBLEM_JSON, TEXT_TYPE } from './facts.js';
import { isPlainJsonObject, type ObjectWriter } from './json-text.js';
import { utf8Length } from '../platform/platform.js';

/** The key of a response's JSON writer of plain-object content. Internal. */
export const OBJECT_WRITER: unique symbol = Symbol('fnapi.objectWriter');

/**
 * Marks the one response whose 101 is a final answer: an accepted WebSocket upgrade, which its
 * transport completes. Internal; the upgrade's class lives with the WebSockets, above the serving code.
 */
export const SWITCHES_PROTOCOLS: unique symbol = Symbol('fnapi.switchesProtocols');

export interface ResponseOptions {
  statusCode?: number;
  headers?: HeadersInit;
  /** Content type of the body; by default chosen from the content. */
  mediaType?: string;
}

export type BodyChunk = string | Uint8Array;

function isBytes(value: unknown): value is Uint8Array | ArrayBuffer {
  return value instanceof Uint8Array || value instanceof ArrayBuffer;
}

/**
 * An HTTP response. An object or array is sent as JSON, a string as text, bytes as
 * `application/octet-stream`; `headers` stays mutable until the response is written.
 */
export class Response {
  statusCode: number;
  mediaType: string | undefined;
  /**
   * The id of the request answered, written as `X-Request-ID` by the serializer (set by the runtime
   * after every middleware; kept off `headers` so the common answer stays on the no-header fast path).
   */
  requestId: string | undefined = undefined;
  /**
   * The route's writer of plain-object content (set by the endpoint that answers with an object):
   * its JSON is written when the response is serialized, so whatever middleware did to `content` is
   * written. Internal.
   */
  [OBJECT_WRITER]: ObjectWriter | undefined = undefined;
  /** The last text `render()` wrote that is known to be ASCII: its length is its size in bytes. */
  private _asciiText: string | undefined = undefined;
  private _headers: ResponseHeaders | undefined;
  // Behind an accessor so that an answer written ahead (a response model's JSON) can make its
  // content only when middleware reads it.
  private _content: unknown;

  constructor(content?: unknown, options?: ResponseOptions) {
    this._content = content;
    this.statusCode = options?.statusCode ?? 200;
    this.mediaType = options?.mediaType;
    if (options?.headers !== undefined) this._headers = new ResponseHeaders(options.headers);
  }

  /** What the body is made from: an object or array (JSON), a string, bytes. Middleware may replace it. */
  get content(): unknown {
    return this._content;
  }

  set content(value: unknown) {
    this._content = value;
  }

  get headers(): ResponseHeaders {
    return (this._headers ??= new ResponseHeaders());
  }

  set headers(value: HeadersInit) {
    this._headers = value instanceof ResponseHeaders ? value : new ResponseHeaders(value);
  }

  /** Adds a `Set-Cookie` line (options as `request.setCookie`; `secure` defaults to false here). */
  setCookie(name: string, value: string, options?: CookieOptions): this {
    this.headers.append('set-cookie', cookieLine(name, value, options, false));
    return this;
  }

  /** Adds a `Set-Cookie` line that expires the cookie. */
  deleteCookie(name: string, options?: CookieOptions): this {
    this.headers.append('set-cookie', expiredCookieLine(name, options, false));
    return this;
  }

  /** Headers if any were set, without creating an empty set. */
  get headersIfAny(): ResponseHeaders | undefined {
    return this._headers;
  }

  /** The body as sent; `null` for an empty body. */
  render(): string | Uint8Array | null {
    const content = this.content;
    if (content === undefined || content === null) return null;
    if (typeof content === 'string') return content;
    if (content instanceof Uint8Array) return content;
    if (content instanceof ArrayBuffer) return new Uint8Array(content);
    const writer = this[OBJECT_WRITER];
    if (writer !== undefined && isPlainJsonObject(content)) {
      const text = writer.write(content) as string;
      this._asciiText = writer.ascii ? text : undefined;
      return text;
    }
    return JSON.stringify(content);
  }

  /** The size in bytes of the body `render()` gave. */
  renderedLength(body: string | Uint8Array): number {
    if (body === this._asciiText) return body.length;
    return typeof body === 'string' ? utf8Length(body) : body.byteLength;
  }

  /** The content type sent when no `content-type` header was set. */
  contentType(): string | undefined {
    if (this.mediaType !== undefined) return this.mediaType;
    const content = this.content;
    if (content === undefined || content === null) return undefined;
    if (typeof content === 'string') return TEXT_TYPE;
    if (isBytes(content)) return BYTES_TYPE;
    return JSON_TYPE;
  }

  /** A streamed body, for `StreamingResponse`; plain responses have none. */
  stream(): AsyncIterable<BodyChunk> | ReadableStream<BodyChunk> | undefined {
    return undefined;
  }

  /** The length of a streamed body when known in advance (sent as `Content-Length`). */
  streamLength(): number | undefined {
    return undefined;
  }
}

/**
 * The answer of an endpoint with a response model, its JSON already written by the model's writer.
 * `content` is the model's output, made by `parse(value)` only if something reads it; once read or
 * replaced, the body is rendered from it as from any content.
 */
export class WrittenJSONResponse extends Response {
  #text: string | undefined;
  readonly #value: unknown;
  readonly #parse: (value: unknown) => unknown;

  constructor(text: string, value: unknown, parse: (value: unknown) => unknown, statusCode: number) {
    super(undefined, { statusCode, mediaType: JSON_TYPE });
    this.#text = text;
    this.#value = value;
    this.#parse = parse;
  }

  override get content(): unknown {
    if (this.#text !== undefined) {
      super.content = this.#parse(this.#value);
      this.#text = undefined;
    }
    return super.content;
  }

  override set content(value: unknown) {
    this.#text = undefined;
    super.content = value;
  }

  override render(): string | Uint8Array | null {
    return this.#text ?? super.render();
  }
}

/** Always JSON, whatever the content (a string becomes a JSON string). */
export class JSONResponse extends Response {
  constructor(content: unknown, options?: ResponseOptions) {
    super(content, options);
  }
  override render(): string {
    return JSON.stringify(this.content === undefined ? null : this.content);
  }
  override contentType(): string {
    return this.mediaType ?? JSON_TYPE;
  }
}

export class HTMLResponse extends Response {
  constructor(content: string, options?: ResponseOptions) {
    super(content, { mediaType: HTML_TYPE, ...options });
  }
}

export class PlainTextResponse extends Response {
  constructor(content: string, options?: ResponseOptions) {
    super(content, { mediaType: TEXT_TYPE, ...options });
  }
}

export class RedirectResponse extends Response {
  constructor(url: string | URL, statusCode = 307, options?: Omit<ResponseOptions, 'statusCode'>) {
    super(undefined, { ...options, statusCode });
    this.headers.set('location', String(url));
  }
}

/** A body produced piece by piece: an async iterable or a Web `ReadableStream` of strings or bytes. */
export class StreamingResponse extends Response {
  private source: AsyncIterable<BodyChunk> | ReadableStream<BodyChunk>;
  /**
   * Whether the first chunk has been awaited (or need not be: an event stream starts at once). The
   * runtime primes a response before its headers are written.
   */
  primed = false;
  constructor(source: AsyncIterable<BodyChunk> | ReadableStream<BodyChunk>, options?: ResponseOptions) {
    super(undefined, { mediaType: BYTES_TYPE, ...options });
    this.source = source;
  }
  override render(): null {
    return null;
  }
  override stream(): AsyncIterable<BodyChunk> | ReadableStream<BodyChunk> {
    return this.source;
  }

  /**
   * Waits for the source's first chunk, so a source that fails before it (a missing object, a cursor
   * that cannot open) is answered as an ordinary error — its status and problem body, 500 for an
   * unexpected error — rather than a 200 cut off. The chunk is kept and sent first.
   */
  async prime(): Promise<this> {
    if (this.primed) return this;
    this.primed = true;
    const iterator = chunksOf(this.source);
    const first = await iterator.next();
    let head: IteratorResult<BodyChunk> | undefined = first;
    this.source = {
      [Symbol.asyncIterator]: () => ({
        next: () => {
          if (head === undefined) return iterator.next();
          const kept = head;
          head = undefined;
          return Promise.resolve(kept);
        },
        return: async (): Promise<IteratorResult<BodyChunk>> => {
          head = undefined;
          await iterator.return?.();
          return { done: true, value: undefined };
        },
      }),
    };
    return this;
  }
}

/** The chunks of a stream source, one at a time: an async iterable's iterator, or a `ReadableStream`'s reader. */
function chunksOf(source: AsyncIterable<BodyChunk> | ReadableStream<BodyChunk>): AsyncIterator<BodyChunk> {
  if (typeof (source as ReadableStream<BodyChunk>).getReader !== 'function')
    return (source as AsyncIterable<BodyChunk>)[Symbol.asyncIterator]();
  const reader = (source as ReadableStream<BodyChunk>).getReader();
  return {
    next: () => reader.read() as Promise<IteratorResult<BodyChunk>>,
    return: async () => {
      await reader.cancel();
      return { done: true, value: undefined };
    },
  };
}

/** The problem-details response of an error status. */
export function problemResponse(problem: ProblemDetails, headers?: Record<string, string>): Response {
  return new JSONResponse(problem, { statusCode: problem.status, mediaType: PROBLEM_JSON, headers });
}

/**
 * Whether a value is a Web `Response`. Duck-typed first: Node builds its fetch classes on first use of
 * the global (tens of milliseconds), and a handler's plain return value must not trigger that.
 */
export function isWebResponse(value: unknown): value is globalThis.Response {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { arrayBuffer?: unknown }).arrayBuffer === 'function' &&
    value instanceof globalThis.Response
  );
}

/** Turns a Web `Response` into an fnapi one; its body is streamed, not buffered. */
export function fromWebResponse(web: globalThis.Response): Response {
  const headers = new ResponseHeaders();
  web.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers.append(name, value);
  });
  for (const cookie of web.headers.getSetCookie()) headers.append('set-cookie', cookie);
  const contentType = web.headers.get('content-type') ?? undefined;
  if (web.body === null) {
    const response = new Response(undefined, { statusCode: web.status, headers });
    return response;
  }
  return new StreamingResponse(web.body as ReadableStream<Uint8Array>, {
    statusCode: web.status,
    headers,
    mediaType: contentType ?? BYTES_TYPE,
  });
}
