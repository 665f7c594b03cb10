import { queryValues } from '@fnapi/validation';
import { headerText } from './header-text.js';
import { parse as parseCookie } from 'cookie';
import { parse as parseQuery } from 'fast-querystring';
import { collectBody, decodeText, DEFAULT_BODY_LIMIT, parseJsonBody, tooLarge } from './body.js';
import { type CookieOptions, cookieLine, expiredCookieLine } from './cookies.js';
import { BadRequestError } from './errors.js';
import { isValidHost } from './host.js';
import { DEFAULT_EDGE, forwardedAddress, generateRequestId, isValidRequestId, lastEntry } from '../platform/proxy-trust.js';
import { type RawHeaders, RequestHeaders } from './headers.js';
import { REQUEST_INTERNALS, type RequestInternals } from './request-internals.js';
import { defaultLogger, type Logger } from '../platform/logger.js';
import { DEFERRED, type DeferredTask, keep, lastTaskOf, RUN_DEFERRED, runTasks } from './deferred.js';
import { defaultPlatform, type Platform, utf8 } from '../platform/platform.js';

/** The owner of work kept by a request no app served (built by hand): nothing drains it. */
const UNSERVED = {};

let fallbackLogger: Logger | undefined;

export interface AuthInfo {
  scheme: string;
  subject?: string;
  claims?: Record<string, unknown>;
  permissions?: readonly string[];
  /** OAuth2 scopes the credential carries (a JWT's `scope` or `scp` claim; `[]` when it has none). */
  scopes?: readonly string[];
}

export interface ClientInfo {
  address?: string;
  port?: number;
}

/**
 * A request's body as a transport has it: bytes or text already read, a stream of chunks (a Web
 * `ReadableStream` or any async iterable, read on first use with the limit), a reader given the limit
 * (called as a method of the parts, so it may be one), or null for none.
 */
export type BodySource =
  | Uint8Array
  | string
  | null
  | AsyncIterable<Uint8Array | string>
  | ReadableStream<Uint8Array>
  | ((limit: number) => Promise<Uint8Array>);

/** What a request is built from (the wire's `requestFrom` parts, with URL and signal resolved). */
export interface RequestInit {
  method: string;
  /** Path without the query string, as sent (percent-encoded); default `/`. */
  path?: string;
  /** Query string without the leading `?`. */
  query?: string;
  headers?: RawHeaders;
  /** The body: read on first use, with `bodyLimit`. */
  body?: BodySource;
  client?: ClientInfo;
  protocol?: 'http' | 'https';
  bodyLimit?: number;
  /** The platform's id for this request (e.g. Lambda's `requestContext.requestId`), used when none came in. */
  id?: string;
  /** Whether the request carries a body, when the headers cannot say (a platform's body object). */
  hasBody?: boolean;
  /** Called once, on first use of `request.signal`, with the function that aborts it (client gone). */
  onDisconnect?: (abort: (reason: unknown) => void) => void;
  /** Called when the body is refused before it was read, so the transport can close the connection. */
  onBodyRefused?: () => void;
  /** One header's value (repeats joined), for a transport that can find it without building every header. */
  headerValue?: (name: string) => string | undefined;
  /**
   * Reads the whole body with the limit and calls `done` once, with the bytes or with the error (413
   * past the limit); later calls get the same outcome. Given by a transport that reads with events
   * (node:http), so that a route's body is read, parsed and bound without a promise.
   */
  readBody?: (limit: number, done: (error: unknown, bytes: Uint8Array | undefined) => void) => void;
  /** The body as it arrives, unbuffered and unlimited (uploads); default: a streamed `body` as it comes, else the bytes at once. */
  bodyStream?: () => AsyncIterable<Uint8Array | string>;
  /**
   * Runs `fn` once the answer has been sent or the client has gone; false (the default) when the
   * transport cannot tell.
   */
  onFinished?: (fn: () => void) => boolean;
  /** `request.platform`: the runtime and what the platform hands the request (env, ctx); default this runtime's. */
  platform?: Platform;
  /** The platform's `waitUntil` (Workers, Vercel, Netlify); without one, `request.waitUntil` keeps the promise for a drain. */
  waitUntil?: (promise: Promise<unknown>) => void;
}

/**
 * The request handed to middleware, plugins and handlers. Everything beyond method and path is
 * computed on first use: a route that never reads the query never parses it. Transports differ only
 * in the `RequestInit` they pass (its hooks may be methods of a transport's own parts object, read
 * when first needed), never by subclassing: constructing one class keeps the request's allocation
 * inlined in the server's hot path.
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
  /** Set by the runtime serving this request: its settings, error policy and the reported-error mark. */
  [REQUEST_INTERNALS]: RequestInternals | undefined = undefined;
  /** Tasks given to `defer`; undefined (nothing allocated) until the first one. */
  [DEFERRED]: DeferredTask[] | undefined = undefined;
  private _jsonParsed = false;
  private _jsonValue: unknown = undefined;
  private _queryValues: Record<string, string | string[]> | undefined = undefined;
  private _id: string | undefined = undefined;
  private _contentLength: string | undefined | null = null;
  /** What fewer requests use, made on first use: the common request allocates and initialises less. */
  private _more: RequestMore | undefined = undefined;
  /** The parts the request was built from (body source, disconnect hook), read only when used. */
  private readonly _init: RequestInit;

  constructor(init: RequestInit) {
    const method = init.method;
    this.method = method === 'GET' || method === 'POST' ? method : method.toUpperCase();
    this.path = init.path ?? '/';
    this.rawQuery = init.query ?? '';
    this.bodyLimit = init.bodyLimit ?? DEFAULT_BODY_LIMIT;
    this._init = init;
  }

  /**
   * The request's id: the incoming `X-Request-ID` (the app's `requestIdHeader`) when it is 1–128
   * visible ASCII characters, else the platform's id, else a generated one. Sent back as `X-Request-ID`.
   */
  get id(): string {
    if (this._id === undefined) {
      const name = (this[REQUEST_INTERNALS]?.edge ?? DEFAULT_EDGE).requestIdHeader;
      const incoming = name === undefined ? undefined : this.headerValue(name);
      const platform = this._init.id;
      if (incoming !== undefined && isValidRequestId(incoming)) this._id = incoming;
      else this._id = platform !== undefined && isValidRequestId(platform) ? platform : generateRequestId();
    }
    return this._id;
  }

  /**
   * The client's address: the peer's, or with `trustProxy` the nearest untrusted address of
   * `X-Forwarded-For`. Computed on first read.
   */
  get ip(): string | undefined {
    const more = this.more();
    if (more.ip === null) {
      const peer = this.client.address;
      const trust = this[REQUEST_INTERNALS]?.edge.trust;
      more.ip = trust === undefined ? peer : forwardedAddress(peer, this.headerValue('x-forwarded-for'), trust);
    }
    return more.ip;
  }

  /** Case-insensitive request headers (built on first use: a route that reads none pays nothing). */
  get headers(): RequestHeaders {
    const more = this.more();
    return (more.headers ??= new RequestHeaders(this.loadHeaders()));
  }

  get queryParams(): URLSearchParams {
    const more = this.more();
    return (more.query ??= new URLSearchParams(this.rawQuery));
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

  /**
   * The full URL: the scheme and host as the request (or, with `trustProxy`, the proxy) says, and the
   * routed path and query. A host that is not valid is refused with 400 by routing; here it becomes
   * `localhost`, so that code reading the URL before routing (a logging middleware) never fails and
   * no header can change the path.
   */
  get url(): URL {
    const more = this.more();
    if (more.url === undefined) {
      const host = this.authority() ?? 'localhost';
      let protocol: string = this._init.protocol ?? 'http';
      // X-Forwarded-Proto only from a trusted peer: anyone else could claim any origin.
      if (this.fromTrustedProxy()) {
        const proto = lastEntry(this.headerValue('x-forwarded-proto'))?.toLowerCase();
        if (proto === 'http' || proto === 'https') protocol = proto;
      }
      more.url = new URL(`${protocol}://${host}${this.path}${this.rawQuery ? `?${this.rawQuery}` : ''}`);
    }
    return more.url;
  }

  private fromTrustedProxy(): boolean {
    return this[REQUEST_INTERNALS]?.edge.trust?.(this.client.address, 0) === true;
  }

  /**
   * The host the request names: `Host` (absent or empty: `localhost`), or the last `X-Forwarded-Host`
   * entry from a trusted proxy; undefined when it is not a valid host (routing answers 400).
   */
  private authority(): string | undefined {
    let host = this.headerValue('host') || 'localhost';
    if (this.fromTrustedProxy()) host = lastEntry(this.headerValue('x-forwarded-host')) ?? host;
    return isValidHost(host) ? host : undefined;
  }

  get cookies(): Record<string, string | undefined> {
    const more = this.more();
    if (more.cookies === undefined) {
      const header = this.headers.get('cookie');
      more.cookies = header ? parseCookie(header) : {};
    }
    return more.cookies;
  }

  /**
   * The logger of the app serving this request (as Fastify's `request.log`): a child carrying
   * `reqId`, made on first use.
   */
  get logger(): Logger {
    const more = this.more();
    if (more.logger === undefined) {
      const base = this[REQUEST_INTERNALS]?.logger ?? (fallbackLogger ??= defaultLogger());
      more.logger = base.child({ reqId: this.id });
    }
    return more.logger;
  }

  /**
   * Replaces the request's logger: middleware binds fields to every later line of the request
   * (`request.logger = request.logger.child({ trace_id })`).
   */
  set logger(logger: Logger) {
    this.more().logger = logger;
  }

  /** The reconnecting event-stream client's `Last-Event-ID` header, if sent, decoded as UTF-8. */
  get lastEventId(): string | undefined {
    const value = this.headers.get('last-event-id');
    return value === null || value === undefined ? undefined : headerText(value);
  }

  /** Headers merged into the handler's answer (an object, a tuple or a `Response`); made on first use. */
  get responseHeaders(): Headers {
    const more = this.more();
    return (more.responseHeaders ??= new Headers());
  }

  /** `responseHeaders` if the handler touched them, without making them. Internal. */
  get responseHeadersIfAny(): Headers | undefined {
    return this._more?.responseHeaders;
  }

  /**
   * Sets a cookie on the answer: `path` defaults to `/`, `httpOnly` to true, `sameSite` to `lax`,
   * `secure` to whether the request's URL is https. An invalid name throws.
   */
  setCookie(name: string, value: string, options?: CookieOptions): void {
    this.responseHeaders.append('set-cookie', cookieLine(name, value, options, this.url.protocol === 'https:'));
  }

  /** Expires a cookie (give the `path` and `domain` it was set with). */
  deleteCookie(name: string, options?: CookieOptions): void {
    this.responseHeaders.append('set-cookie', expiredCookieLine(name, options, this.url.protocol === 'https:'));
  }

  get state(): Record<string, unknown> {
    const more = this.more();
    return (more.state ??= {});
  }

  get client(): ClientInfo {
    const more = this.more();
    return (more.client ??= this._init.client ?? {});
  }

  /**
   * The runtime serving the request (`node`, `bun`, `deno`, `workerd`, or a serverless adapter's
   * platform), and what the platform hands each request: on Workers `env` (the bindings) and `ctx`
   * (the execution context).
   */
  get platform(): Platform {
    return this._init.platform ?? defaultPlatform();
  }

  /**
   * Lets `promise` outlive the answer: handed to the platform's `waitUntil` where it has one (Workers,
   * Vercel, Netlify), else kept so that the app's drain waits for it. A rejection is logged with the request id.
   */
  waitUntil(promise: PromiseLike<unknown>): void {
    const work = Promise.resolve(promise).then(undefined, (error: unknown) => {
      this.logger.error({ err: error }, 'work handed to waitUntil failed');
    });
    const platformWaitUntil = this._init.waitUntil;
    if (platformWaitUntil !== undefined) platformWaitUntil(work);
    else keep(this[REQUEST_INTERNALS]?.owner ?? UNSERVED, work, this);
  }

  /** Aborted when the client goes away or the endpoint's timeout passes. */
  get signal(): AbortSignal {
    const more = this.more();
    if (more.abort === undefined) {
      more.abort = new AbortController();
      if (more.aborted) more.abort.abort(more.abortReason);
      else this.watchDisconnect();
    }
    return more.abort.signal;
  }

  get aborted(): boolean {
    return this._more?.aborted === true;
  }

  /** Aborts `signal` (used by servers on disconnect and by endpoint timeouts). */
  abort(reason?: unknown): void {
    const more = this.more();
    if (more.aborted) return;
    more.aborted = true;
    more.abortReason = reason;
    more.abort?.abort(reason);
  }

  /** The raw body, read once (limited by `bodyLimit`, 413 past it) and kept for every later reader. */
  bytes(): Promise<Uint8Array> {
    const more = this.more();
    return (more.bytes ??= this.loadBody());
  }

  async text(): Promise<string> {
    return decodeText(await this.bytes());
  }

  /**
   * The raw body handed to `done(error, bytes)` once read (`bytes` undefined when reading failed):
   * without a promise where the transport reads with a callback (`readBody`), so that the binder
   * reads, parses and binds a body with none. Later `bytes()` calls get the same outcome. Internal.
   */
  private readBytes(done: (error: unknown, bytes: Uint8Array | undefined) => void): void {
    const init = this._init;
    const limit = this.bodyLimit;
    // Already read through `bytes()`, or a body refused unread (a declared length past the limit):
    // the promise says it.
    if (this._more?.bytes !== undefined || init.readBody === undefined || this.declaredTooLarge(limit)) {
      this.bytes().then(
        (bytes) => done(undefined, bytes),
        (error: unknown) => done(error, undefined),
      );
      return;
    }
    init.readBody(limit, done);
  }

  /** The parsed JSON body; 400 when it is malformed or empty. */
  json<T = unknown>(): Promise<T> {
    const more = this.more();
    more.json ??= this._jsonParsed ? Promise.resolve(this._jsonValue) : this.bytes().then((bytes) => this.parseJson(bytes));
    return more.json as Promise<T>;
  }

  /**
   * Parses the body bytes as JSON once and keeps the value for every later `json()` (the binder
   * calls this with the bytes it already awaited, saving a promise per request; `json()` makes its
   * promise of the kept value only if it is called).
   */
  private parseJson(bytes: Uint8Array): unknown {
    if (this._jsonParsed) return this._jsonValue;
    if (bytes.byteLength === 0) throw new BadRequestError('Request body is empty; expected JSON');
    const value = parseJsonBody(decodeText(bytes));
    this._jsonParsed = true;
    this._jsonValue = value;
    return value;
  }

  /**
   * The body as it arrives, unbuffered and without `bodyLimit`, for readers that enforce limits of
   * their own (uploads). Internal; read the body once, through this or `bytes()`.
   */
  private bodyStream(): AsyncIterable<Uint8Array | string> {
    return this.openBodyStream();
  }

  /** Stops reading a body refused part-way (413): the rest is discarded, the connection not reused. Internal. */
  private discardBody(): void {
    this.onBodyRefused();
  }

  /**
   * Runs `fn` once the response has been sent or the client has gone (temporary files of uploads).
   * False when this transport cannot tell: then nothing of the request may be left on disk. Internal.
   */
  private onFinished(fn: () => void): boolean {
    const init = this._init;
    return init.onFinished === undefined ? false : init.onFinished(fn);
  }

  /**
   * Runs `fn` after the answer has been sent (background work: an e-mail, a cache refresh). Tasks of
   * one request run one after another in the order deferred; one that throws is logged with the
   * request id and the next runs; a drain waits for them. Deferred work never changes the answer.
   */
  defer(fn: DeferredTask): void {
    if (typeof fn !== 'function') throw new TypeError('request.defer takes a function');
    const tasks = this[DEFERRED];
    if (tasks === undefined) this[DEFERRED] = [fn];
    else tasks.push(fn);
  }

  /**
   * Starts the deferred tasks, once the answer is out: tracked under the app serving it for its drain,
   * and handed to the platform's `waitUntil` where it has one. Undefined when nothing was deferred.
   * Internal: transports call it.
   */
  [RUN_DEFERRED](): Promise<void> | undefined {
    const tasks = this[DEFERRED];
    if (tasks === undefined) return undefined;
    const work = runTasks(this[REQUEST_INTERNALS]?.owner ?? UNSERVED, tasks, () => this.logger, this, lastTaskOf(this));
    this._init.waitUntil?.(work);
    return work;
  }

  /** True when the request announces or may carry a body. */
  get hasBody(): boolean {
    if (this._init.hasBody !== undefined) return this._init.hasBody;
    const length = this.contentLength();
    if (length !== undefined) return length !== '0';
    if (this.headerValue('transfer-encoding') !== undefined) return true;
    const body = this._init.body;
    if (typeof body === 'string') return body.length > 0;
    return body instanceof Uint8Array && body.byteLength > 0;
  }

  private loadBody(): Promise<Uint8Array> {
    if (this.declaredTooLarge(this.bodyLimit)) {
      this.onBodyRefused();
      return Promise.reject(tooLarge(this.bodyLimit));
    }
    // `readBody` enforces the limit while reading (or on the buffered body).
    return this.readBody(this.bodyLimit);
  }

  /** The `Content-Length` header, looked up once (whether there is a body, and whether it is too large). */
  private contentLength(): string | undefined {
    if (this._contentLength === null) this._contentLength = this.headerValue('content-length');
    return this._contentLength;
  }

  /** Whether `Content-Length` announces more than `limit` bytes. */
  private declaredTooLarge(limit: number): boolean {
    const declared = this.contentLength();
    if (declared === undefined) return false;
    // Digits fewer than the limit has are within it: the common case costs no number conversion (the
    // limit is still enforced while reading, whatever a malformed header says).
    const digits = declared.length;
    return !(digits < POWERS_OF_TEN.length && POWERS_OF_TEN[digits]! <= limit) && Number(declared) > limit;
  }

  private more(): RequestMore {
    return (this._more ??= new RequestMore());
  }

  /**
   * One header's value by lower-case name (repeats joined), from the transport when it can find it
   * without building every header (node:http's raw list). Internal: `headers.get` is the public way.
   */
  private headerValue(name: string): string | undefined {
    const init = this._init;
    if (init.headerValue !== undefined) return init.headerValue(name);
    const value = this.headers.raw[name];
    return value === undefined ? undefined : typeof value === 'string' ? value : value.join(', ');
  }

  /** The raw header record, read from the parts on first use (node:http builds it on access). */
  private loadHeaders(): RawHeaders {
    return this._init.headers ?? {};
  }

  /**
   * Reads the body from its source, with the limit. Not `async`: the transport's own promise is
   * handed on as it is, without wrapping it in one more (each costs a microtask hop per request).
   */
  private readBody(limit: number): Promise<Uint8Array> {
    const init = this._init;
    const body = init.body;
    try {
      if (body == null) return Promise.resolve(EMPTY_BYTES);
      // Called on the parts, so a transport's reader may be a method of them.
      if (typeof body === 'function') return (init.body as (limit: number) => Promise<Uint8Array>)(limit);
      if (typeof body !== 'string' && !(body instanceof Uint8Array)) return collectBody(body as AsyncIterable<Uint8Array | string>, limit);
      const bytes = typeof body === 'string' ? utf8(body) : body;
      if (bytes.byteLength > limit) return Promise.reject(tooLarge(limit));
      return Promise.resolve(bytes);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The body for `bodyStream()`: a streamed source as it comes (chunks counted by the reader), else the bytes at once. */
  private openBodyStream(): AsyncIterable<Uint8Array | string> {
    const init = this._init;
    if (init.bodyStream !== undefined) return init.bodyStream();
    const body = init.body;
    if (body != null && typeof body === 'object' && !(body instanceof Uint8Array)) return body as AsyncIterable<Uint8Array | string>;
    return this.wholeBody();
  }

  private async *wholeBody(): AsyncIterable<Uint8Array> {
    const bytes = await this.readBody(Number.POSITIVE_INFINITY);
    if (bytes.byteLength > 0) yield bytes;
  }

  /** Called when the body is refused before it was read, so a server can close the connection. */
  private onBodyRefused(): void {
    this._init.onBodyRefused?.();
  }

  /** Lets a server abort `signal` when its connection closes; called once, on first use of `signal`. */
  private watchDisconnect(): void {
    this._init.onDisconnect?.((reason) => this.abort(reason));
  }
}

/** A request's state that fewer requests use (headers built, cookies, URL, signal, logger, …), made on first use. */
class RequestMore {
  headers: RequestHeaders | undefined = undefined;
  client: ClientInfo | undefined = undefined;
  bytes: Promise<Uint8Array> | undefined = undefined;
  json: Promise<unknown> | undefined = undefined;
  query: URLSearchParams | undefined = undefined;
  url: URL | undefined = undefined;
  cookies: Record<string, string | undefined> | undefined = undefined;
  state: Record<string, unknown> | undefined = undefined;
  abort: AbortController | undefined = undefined;
  abortReason: unknown = undefined;
  aborted = false;
  ip: string | undefined | null = null;
  logger: Logger | undefined = undefined;
  responseHeaders: Headers | undefined = undefined;
}

const EMPTY_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;
const EMPTY_QUERY: Record<string, string | string[]> = Object.freeze(Object.create(null));
const EMPTY_BYTES = new Uint8Array(0);
/** 10 ** n for n = 0…15. */
const POWERS_OF_TEN = Array.from({ length: 16 }, (_, n) => 10 ** n);
