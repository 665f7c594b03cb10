import { queryValues } from '@fnapi/validation';
import { parse as parseCookie } from 'cookie';
import { parse as parseQuery } from 'fast-querystring';
import { decodeText, DEFAULT_BODY_LIMIT, parseJsonBody } from './body.js';
import { collectBody, tooLarge } from './wire/collect-body.js';
import { BadRequestError } from './errors.js';
import { type RawHeaders, RequestHeaders } from './headers.js';
import { REQUEST_INTERNALS } from './request-internals.js';
import { defaultLogger, type Logger } from './logger.js';

let fallbackLogger: Logger | undefined;

export interface AuthInfo {
  scheme: string;
  subject?: string;
  claims?: Record<string, unknown>;
  permissions?: readonly string[];
}

export interface ClientInfo {
  address?: string;
  port?: number;
}

export interface RequestInit {
  method: string;
  /** Path without the query string, as sent (percent-encoded). */
  path: string;
  /** Query string without the leading `?`. */
  query?: string;
  headers?: RawHeaders;
  /** A buffered body; servers that stream the body override `readBody` instead. */
  body?: Uint8Array | string | null;
  client?: ClientInfo;
  protocol?: 'http' | 'https';
  bodyLimit?: number;
  /** A body read on first use instead of `body`: a stream of chunks, or a reader given the limit. */
  bodySource?: AsyncIterable<Uint8Array | string> | ((limit: number) => Promise<Uint8Array>);
  /** Whether the request carries a body, when the headers cannot say (a platform's body object). */
  hasBody?: boolean;
  /** Called once, on first use of `request.signal`, with the function that aborts it (client gone). */
  onDisconnect?: (abort: (reason: unknown) => void) => void;
  /** Called when the body is refused before it was read, so the transport can close the connection. */
  onBodyRefused?: () => void;
}

/**
 * The request handed to middleware, plugins and handlers. Everything beyond method and path is
 * computed on first use: a route that never reads the query never parses it.
 */
export class Request {
  readonly method: string;
  readonly path: string;
  /** Raw (percent-decoded) path parameters of the matched route. */
  pathParams: Record<string, string> = EMPTY_PARAMS;
  /** The matched route's template, e.g. `/users/{user_id}`; undefined when no route matched. */
  route: string | undefined = undefined;
  auth: AuthInfo | undefined = undefined;
  bodyLimit: number;

  /** The query string as sent (percent-encoded), without the leading `?`. */
  readonly rawQuery: string;
  /** Set by the runtime serving this request: its error policy (`errorResponse` follows it). */
  [REQUEST_INTERNALS]: unknown = undefined;
  protected readonly protocol: 'http' | 'https';
  private _rawHeaders: RawHeaders | undefined;
  private _headers: RequestHeaders | undefined;
  private _client: ClientInfo | undefined;
  private _body: Uint8Array | string | null | undefined;
  private _bytes: Promise<Uint8Array> | undefined;
  private _json: Promise<unknown> | undefined;
  private _jsonParsed = false;
  private _jsonValue: unknown = undefined;
  private _query: URLSearchParams | undefined;
  private _queryValues: Record<string, string | string[]> | undefined;
  private _url: URL | undefined;
  private _cookies: Record<string, string | undefined> | undefined;
  private _state: Record<string, unknown> | undefined;
  private _abort: AbortController | undefined;
  private _abortReason: unknown = undefined;
  private _aborted = false;
  /** The parts the request was built from (body source, disconnect hook), read only when used. */
  private readonly _init: RequestInit;

  constructor(init: RequestInit) {
    const method = init.method;
    this.method = method === 'GET' || method === 'POST' ? method : method.toUpperCase();
    this.path = init.path;
    this.rawQuery = init.query ?? '';
    this._rawHeaders = init.headers;
    this._body = init.body;
    this._client = init.client;
    this.protocol = init.protocol ?? 'http';
    this.bodyLimit = init.bodyLimit ?? DEFAULT_BODY_LIMIT;
    this._init = init;
  }

  /** Case-insensitive request headers (built on first use: a route that reads none pays nothing). */
  get headers(): RequestHeaders {
    return (this._headers ??= new RequestHeaders(this.loadHeaders()));
  }

  get queryParams(): URLSearchParams {
    return (this._query ??= new URLSearchParams(this.rawQuery));
  }

  /**
   * The query as `name → value` (an array when the key repeats), parsed once on first use; what the
   * binder reads. Without percent-escapes fast-querystring builds it with no `URLSearchParams` in
   * between; with them `URLSearchParams` decodes, as `queryParams` does (it keeps the valid parts of
   * a malformed value where fast-querystring would keep the whole value encoded).
   */
  get queryValues(): Readonly<Record<string, string | string[]>> {
    if (this._queryValues === undefined) {
      const raw = this.rawQuery;
      this._queryValues = raw === '' ? EMPTY_QUERY : raw.includes('%') ? queryValues(this.queryParams) : parseQuery(raw);
    }
    return this._queryValues;
  }

  get url(): URL {
    if (this._url === undefined) {
      const host = this.headers.get('host') ?? 'localhost';
      this._url = new URL(`${this.protocol}://${host}${this.path}${this.rawQuery ? `?${this.rawQuery}` : ''}`);
    }
    return this._url;
  }

  get cookies(): Record<string, string | undefined> {
    if (this._cookies === undefined) {
      const header = this.headers.get('cookie');
      this._cookies = header ? parseCookie(header) : {};
    }
    return this._cookies;
  }

  /** The logger of the app serving this request (as Fastify's `request.log`). */
  get logger(): Logger {
    return (this[REQUEST_INTERNALS] as { logger?: Logger } | undefined)?.logger ?? (fallbackLogger ??= defaultLogger());
  }

  get state(): Record<string, unknown> {
    return (this._state ??= {});
  }

  get client(): ClientInfo {
    return (this._client ??= this.readClient());
  }

  /** Aborted when the client goes away or the endpoint's timeout passes. */
  get signal(): AbortSignal {
    if (this._abort === undefined) {
      this._abort = new AbortController();
      if (this._aborted) this._abort.abort(this._abortReason);
      else this.watchDisconnect();
    }
    return this._abort.signal;
  }

  get aborted(): boolean {
    return this._aborted;
  }

  /** Aborts `signal` (used by servers on disconnect and by endpoint timeouts). */
  abort(reason?: unknown): void {
    if (this._aborted) return;
    this._aborted = true;
    this._abortReason = reason;
    this._abort?.abort(reason);
  }

  /** The raw body, read once (limited by `bodyLimit`, 413 past it) and kept for every later reader. */
  bytes(): Promise<Uint8Array> {
    return (this._bytes ??= this.loadBody());
  }

  async text(): Promise<string> {
    return decodeText(await this.bytes());
  }

  /** The parsed JSON body; 400 when it is malformed or empty. */
  json<T = unknown>(): Promise<T> {
    this._json ??= this.bytes().then((bytes) => this.parseJson(bytes));
    return this._json as Promise<T>;
  }

  /**
   * Parses the body bytes as JSON once and keeps the value for every later `json()` (the binder
   * calls this with the bytes it already awaited, saving a promise per request).
   */
  parseJson(bytes: Uint8Array): unknown {
    if (this._jsonParsed) return this._jsonValue;
    if (bytes.byteLength === 0) throw new BadRequestError('Request body is empty; expected JSON');
    const value = parseJsonBody(decodeText(bytes));
    this._jsonParsed = true;
    this._jsonValue = value;
    this._json ??= Promise.resolve(value);
    return value;
  }

  /** True when the request announces or may carry a body. */
  get hasBody(): boolean {
    if (this._init.hasBody !== undefined) return this._init.hasBody;
    const length = this.headers.raw['content-length'];
    if (length !== undefined) return length !== '0';
    if (this.headers.raw['transfer-encoding'] !== undefined) return true;
    return this._body != null && (typeof this._body === 'string' ? this._body.length > 0 : this._body.byteLength > 0);
  }

  private loadBody(): Promise<Uint8Array> {
    const declared = this.headers.raw['content-length'];
    if (typeof declared === 'string' && Number(declared) > this.bodyLimit) {
      this.onBodyRefused();
      return Promise.reject(tooLarge(this.bodyLimit));
    }
    // `readBody` enforces the limit while reading (or on the buffered body).
    return this.readBody(this.bodyLimit);
  }

  /** The raw header record; servers whose headers are computed on access override this. */
  protected loadHeaders(): RawHeaders {
    return this._rawHeaders ?? {};
  }

  /** Reads the body from its source. Servers that stream bodies override this. */
  protected async readBody(limit: number): Promise<Uint8Array> {
    const source = this._init.bodySource;
    if (source !== undefined) return typeof source === 'function' ? source(limit) : collectBody(source, limit);
    const body = this._body;
    if (body == null) return EMPTY_BYTES;
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    if (bytes.byteLength > limit) throw tooLarge(limit);
    return bytes;
  }

  /** Called when the body is refused before it was read, so a server can close the connection. */
  protected onBodyRefused(): void {
    this._init.onBodyRefused?.();
  }

  /** Lets a server abort `signal` when its connection closes; called once, on first use of `signal`. */
  protected watchDisconnect(): void {
    this._init.onDisconnect?.((reason) => this.abort(reason));
  }

  protected readClient(): ClientInfo {
    return {};
  }
}

const EMPTY_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;
const EMPTY_QUERY: Record<string, string | string[]> = Object.freeze(Object.create(null));
const EMPTY_BYTES = new Uint8Array(0);
