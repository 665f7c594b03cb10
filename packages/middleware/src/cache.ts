import { Response, type CallNext, type Logger, type Request } from '@fnapi/core';
import { defaultLogger, type Duration, durationSeconds } from '@fnapi/core/extend';
import { Middleware } from './base.js';
import { splitList } from './header-lists.js';

type Awaitable<T> = T | Promise<T>;

/**
 * Where `CacheMiddleware` keeps responses. Every method may be synchronous or return a promise;
 * values are plain JSON-serialisable data, so a store may keep them as JSON (Redis) or as they are
 * (memory). A store expires entries itself after `ttlSeconds`.
 */
export interface CacheStore<V = CacheEntry> {
  get(key: string): Awaitable<V | undefined | null>;
  set(key: string, value: V, ttlSeconds: number): Awaitable<unknown>;
  delete(key: string): Awaitable<unknown>;
  /**
   * Deletes every key starting with `prefix`; `CacheMiddleware.invalidate(path)` needs it to reach
   * every variant of a path. Without it only the exact keys of the path are dropped.
   */
  deletePrefix?(prefix: string): Awaitable<unknown>;
}

/** A cached response, as stored: plain data only. */
export interface CachedResponse {
  kind: 'response';
  status: number;
  /** Header name/value pairs, content type included. */
  headers: [string, string][];
  /** The body as text (`encoding: 'utf8'`) or base64 (`'base64'`); null for an empty body. */
  body: string | null;
  encoding: 'utf8' | 'base64';
  /** Milliseconds since the epoch (by the middleware's clock) when it was stored; gives `Age`. */
  storedAt: number;
  /** Lower-case request header names from the response's `Vary`, with the values they had. */
  vary?: Record<string, string>;
}

/**
 * Kept under a URL's plain key when its response carries `Vary`: says which request headers pick
 * the variant, whose own key adds their values.
 */
export interface VaryMarker {
  kind: 'vary';
  headers: string[];
}

export type CacheEntry = CachedResponse | VaryMarker;

export interface MemoryCacheStoreOptions {
  /** Most entries kept; the least recently used goes first. Default 1000. */
  maxEntries?: number | undefined;
  /** Clock in milliseconds; default `Date.now`. */
  now?: (() => number) | undefined;
}

/** An in-process LRU store with per-entry expiry. */
export class MemoryCacheStore<V = CacheEntry> implements CacheStore<V> {
  readonly maxEntries: number;
  private readonly now: () => number;
  private readonly entries = new Map<string, { value: V; expires: number }>();

  constructor(options: MemoryCacheStoreOptions = {}) {
    this.maxEntries = options.maxEntries ?? 1000;
    if (!Number.isInteger(this.maxEntries) || this.maxEntries < 1) throw new RangeError('maxEntries must be a positive integer');
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    if (entry.expires <= this.now()) return undefined;
    this.entries.set(key, entry); // most recently used last
    return entry.value;
  }

  set(key: string, value: V, ttlSeconds: number): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expires: this.now() + ttlSeconds * 1000 });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  delete(key: string): boolean {
    return this.entries.delete(key);
  }

  deletePrefix(prefix: string): void {
    for (const key of [...this.entries.keys()]) if (key.startsWith(prefix)) this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}

export interface CacheMiddlewareOptions {
  /** Seconds (or a string with a unit, `'5m'`) a response stays cached; any length. Default 60. */
  ttl?: Duration | undefined;
  /** Where responses are kept; default a `MemoryCacheStore` of 1000 entries. */
  store?: CacheStore | undefined;
  /** Methods whose responses are cached. Default GET, HEAD. */
  methods?: readonly string[] | undefined;
  /** Largest body cached, in bytes; larger responses pass uncached. Default 1 MiB. */
  maxBodySize?: number | undefined;
  /** Clock in milliseconds, for `Age` and the default store's expiry; default `Date.now`. */
  now?: (() => number) | undefined;
  /** Where store failures are reported; default core's logger (stdout, `FNAPI_LOG_LEVEL`). */
  logger?: Logger | undefined;
}

/** Headers never stored with a response: per-response, or set again on the way out. */
const UNSTORED = new Set(['x-cache', 'age', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'date']);
const PRIVATE_REQUEST = ['authorization', 'cookie'];

interface Shared {
  entry: CachedResponse | undefined;
}

/** Whether a store call failed while serving one request (it is then served uncached: BYPASS). */
interface Attempt {
  failed: boolean;
}

/**
 * Caches successful responses of GET and HEAD requests, keyed by method, path, sorted query and the
 * request headers the response names in `Vary`. Marks responses `X-Cache: HIT`/`MISS` and hits with
 * `Age`. Never caches requests with `Authorization` or `Cookie`, or responses that are not 2xx, are
 * streamed, set cookies, say `Cache-Control: no-store`/`no-cache`/`private`, or `Vary: *`. Concurrent
 * misses for one key run the handler once; the others get its response.
 */
export class CacheMiddleware extends Middleware {
  readonly ttl: number;
  readonly store: CacheStore;
  readonly methods: ReadonlySet<string>;
  readonly maxBodySize: number;
  private readonly now: () => number;
  private readonly inflight = new Map<string, Promise<Shared>>();
  private loggerInstance: Logger | undefined;
  /** The store is failing: logged once when it starts and once when it ends. */
  private outage = false;

  constructor(options: CacheMiddlewareOptions = {}) {
    super();
    this.ttl = durationSeconds('CacheMiddleware: ttl', options.ttl ?? 60, { zero: false });
    this.now = options.now ?? Date.now;
    this.store = options.store ?? new MemoryCacheStore({ maxEntries: 1000, now: this.now });
    this.methods = new Set((options.methods ?? ['GET', 'HEAD']).map((m) => m.toUpperCase()));
    this.maxBodySize = options.maxBodySize ?? 1024 * 1024;
    this.loggerInstance = options.logger;
  }

  private get logger(): Logger {
    return (this.loggerInstance ??= defaultLogger());
  }

  async dispatch(request: Request, callNext: CallNext): Promise<Response> {
    if (!this.methods.has(request.method) || PRIVATE_REQUEST.some((h) => request.headers.has(h))) {
      return callNext(request);
    }
    const base = baseKey(request);

    const pending = this.inflight.get(base);
    if (pending !== undefined) {
      // Another request for this key is in flight: share its response when it fits this request.
      const shared = await pending;
      if (shared.entry !== undefined && varyMatches(shared.entry, request)) return this.fromEntry(shared.entry);
      return this.miss(request, callNext, base);
    }

    let share!: (value: Shared) => void;
    const flight = new Promise<Shared>((resolve) => (share = resolve));
    this.inflight.set(base, flight);
    let entry: CachedResponse | undefined;
    const attempt: Attempt = { failed: false };
    try {
      const cached = await this.lookup(base, request, attempt);
      if (cached !== undefined) {
        entry = cached;
        return this.fromEntry(cached);
      }
      if (attempt.failed) {
        const response = await callNext(request);
        response.headers.set('x-cache', 'BYPASS');
        return response;
      }
      const result = await this.fetchAndStore(request, callNext, base, attempt);
      entry = result.entry;
      return result.response;
    } finally {
      share({ entry });
      if (this.inflight.get(base) === flight) this.inflight.delete(base);
    }
  }

  /**
   * Drops every cached variant of `path` (a query string on it is ignored): any query string, any
   * cached method, any `Vary` header value. A store that is down is logged, never thrown.
   */
  async invalidate(path: string): Promise<void> {
    if (typeof path !== 'string') throw new TypeError('CacheMiddleware.invalidate takes the path, e.g. invalidate("/items")');
    const bare = path.split('?', 1)[0] || '/';
    const store = this.store;
    const attempt: Attempt = { failed: false };
    for (const method of this.methods) {
      const base = keyFor(method, bare, '');
      await this.safely(() => store.delete(base), undefined, attempt);
      if (store.deletePrefix === undefined) {
        this.warnNoPrefix();
        continue;
      }
      // The variants' keys: `base?query…` and `base\n<vary header>…`.
      await this.safely(() => store.deletePrefix?.(`${base}?`), undefined, attempt);
      await this.safely(() => store.deletePrefix?.(`${base}\n`), undefined, attempt);
    }
  }

  private warnedNoPrefix = false;
  private warnNoPrefix(): void {
    if (this.warnedNoPrefix) return;
    this.warnedNoPrefix = true;
    this.logger.warn('cache store has no deletePrefix(); invalidate(path) drops only the bare path');
  }

  private async miss(request: Request, callNext: CallNext, base: string): Promise<Response> {
    return (await this.fetchAndStore(request, callNext, base, { failed: false })).response;
  }

  private async lookup(base: string, request: Request, attempt: Attempt): Promise<CachedResponse | undefined> {
    const first = await this.safely(() => this.store.get(base), undefined, attempt);
    if (!first) return undefined;
    if (first.kind === 'response') return first;
    const variant = await this.safely(() => this.store.get(variantKey(base, first.headers, request)), undefined, attempt);
    return variant && variant.kind === 'response' ? variant : undefined;
  }

  private async fetchAndStore(
    request: Request,
    callNext: CallNext,
    base: string,
    attempt: Attempt,
  ): Promise<{ response: Response; entry: CachedResponse | undefined }> {
    const response = await callNext(request);
    const entry = this.capture(response, request);
    if (entry !== undefined) {
      if (entry.vary === undefined) {
        await this.safely(() => this.store.set(base, entry, this.ttl), undefined, attempt);
      } else {
        const names = Object.keys(entry.vary);
        const marker: VaryMarker = { kind: 'vary', headers: names };
        await this.safely(() => this.store.set(base, marker, this.ttl), undefined, attempt);
        if (!attempt.failed) await this.safely(() => this.store.set(variantKey(base, names, request), entry, this.ttl), undefined, attempt);
      }
    }
    response.headers.set('x-cache', attempt.failed ? 'BYPASS' : 'MISS');
    return { response, entry: attempt.failed ? undefined : entry };
  }

  /** The storable form of a response, or undefined when it must not be cached. */
  private capture(response: Response, request: Request): CachedResponse | undefined {
    const status = response.statusCode;
    if (status < 200 || status > 299) return undefined;
    const headers = response.headers;
    if (headers.has('set-cookie')) return undefined;
    const cacheControl = (headers.get('cache-control') ?? '').toLowerCase();
    if (/(?:^|[\s,])(?:no-store|no-cache|private)(?:$|[\s,=])/.test(cacheControl)) return undefined;
    const varyNames = splitList(headers.get('vary')).map((n) => n.toLowerCase());
    if (varyNames.includes('*')) return undefined;
    if (response.stream() !== undefined) return undefined;

    let rendered: string | Uint8Array | null;
    try {
      rendered = response.render();
    } catch {
      return undefined; // the writer will report it
    }
    const size = rendered === null ? 0 : typeof rendered === 'string' ? byteLength(rendered) : rendered.byteLength;
    if (size > this.maxBodySize) return undefined;

    const stored: [string, string][] = [];
    for (const [name, value] of headers) if (!UNSTORED.has(name)) stored.push([name, value]);
    if (rendered !== null && !headers.has('content-type')) {
      const type = response.contentType();
      if (type !== undefined) stored.push(['content-type', type]);
    }
    const entry: CachedResponse = {
      kind: 'response',
      status,
      headers: stored,
      body: rendered === null ? null : typeof rendered === 'string' ? rendered : toBase64(rendered),
      encoding: typeof rendered === 'string' || rendered === null ? 'utf8' : 'base64',
      storedAt: this.now(),
    };
    if (varyNames.length > 0) {
      const vary: Record<string, string> = {};
      for (const name of [...new Set(varyNames)].sort()) vary[name] = request.headers.get(name) ?? '';
      entry.vary = vary;
    }
    return entry;
  }

  private fromEntry(entry: CachedResponse): Response {
    const body = entry.body === null ? undefined : entry.encoding === 'base64' ? fromBase64(entry.body) : entry.body;
    const response = new Response(body, { statusCode: entry.status, headers: entry.headers });
    response.headers.set('x-cache', 'HIT');
    response.headers.set('age', String(Math.max(0, Math.floor((this.now() - entry.storedAt) / 1000))));
    return response;
  }

  /**
   * A store that fails must not fail the request: it is served uncached (`X-Cache: BYPASS`). The
   * failure is logged once per outage, and the recovery once, however many requests pass meanwhile.
   */
  private async safely<T>(call: () => Awaitable<T>, fallback: T, attempt: Attempt): Promise<T> {
    try {
      const value = await call();
      if (this.outage) {
        this.outage = false;
        this.logger.info('cache store answers again; caching resumed');
      }
      return value;
    } catch (error) {
      attempt.failed = true;
      if (!this.outage) {
        this.outage = true;
        this.logger.warn({ err: error }, 'cache store unavailable; serving uncached until it answers again');
      }
      return fallback;
    }
  }
}

function sortedQuery(params: URLSearchParams): string {
  params.sort();
  return params.toString();
}

function keyFor(method: string, path: string, query: string): string {
  return query ? `${method} ${path}?${query}` : `${method} ${path}`;
}

function baseKey(request: Request): string {
  return keyFor(request.method, request.path, sortedQuery(new URLSearchParams(request.queryParams)));
}

function variantKey(base: string, names: readonly string[], request: Request): string {
  let key = base;
  for (const name of names) key += `\n${name}: ${request.headers.get(name) ?? ''}`;
  return key;
}

function varyMatches(entry: CachedResponse, request: Request): boolean {
  if (entry.vary === undefined) return true;
  for (const name in entry.vary) if ((request.headers.get(name) ?? '') !== entry.vary[name]) return false;
  return true;
}

// Web encoders, not Buffer: the cache runs on Workers too (no Buffer without nodejs_compat).
const encoder = new TextEncoder();
const NodeBuffer = (globalThis as { Buffer?: { byteLength(text: string): number } }).Buffer;
const byteLength = (text: string): number => NodeBuffer?.byteLength(text) ?? encoder.encode(text).byteLength;

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.byteLength; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
