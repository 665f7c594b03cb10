import { type CallNext, type Logger, type Request, type Response, TooManyRequestsError } from '@fnapi/core';
import { addressKey, type Duration, durationSeconds, problemResponse } from '@fnapi/core/extend';
import { Middleware } from './base.js';

/** What a store answers for one request: where the key stands in its window. */
export interface RateLimitHit {
  /**
   * Requests counted in the window, this one included when it was let through; `limit + 1` when it
   * was refused (a refused request is not counted, so a client that keeps trying is not locked out).
   */
  count: number;
  /** Whole seconds until the oldest counted request leaves the window (a slot frees up). */
  resetSeconds: number;
}

/**
 * Where `RateLimitMiddleware` counts. `hit` counts one request of `key` in a sliding window of
 * `windowSeconds`, unless `limit` requests are already in it, atomically (two concurrent hits never
 * both take the last slot). A store that cannot answer throws (or rejects); the request is let through.
 */
export interface RateLimitStore {
  hit(key: string, windowSeconds: number, limit: number): RateLimitHit | Promise<RateLimitHit>;
}

export interface MemoryRateLimitStoreOptions {
  /** Keys kept at most; the least recently seen is dropped past it. Default 10 000. */
  maxKeys?: number;
  /** Milliseconds since the epoch; injectable for tests. Default `Date.now`. */
  now?: () => number;
}

/**
 * The default store: one process's memory, a sliding log per key (the times of the requests in the
 * window), at most `maxKeys` keys (least recently seen dropped first), so memory stays bounded by
 * `maxKeys × limit` timestamps. Use `RedisRateLimitStore` from `@fnapi/cache` to share the count.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly maxKeys: number;
  private readonly now: () => number;
  private readonly logs = new Map<string, number[]>();

  constructor(options: MemoryRateLimitStoreOptions = {}) {
    this.maxKeys = options.maxKeys ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.logs.size;
  }

  hit(key: string, windowSeconds: number, limit: number): RateLimitHit {
    const now = this.now();
    const windowMs = windowSeconds * 1000;
    let log = this.logs.get(key);
    if (log === undefined) log = [];
    else this.logs.delete(key); // re-inserted below: Map order is recency order
    let expired = 0;
    while (expired < log.length && log[expired]! <= now - windowMs) expired++;
    if (expired > 0) log.splice(0, expired);
    let count: number;
    if (log.length < limit) {
      log.push(now);
      count = log.length;
    } else {
      count = limit + 1;
    }
    if (log.length > 0) {
      this.logs.set(key, log);
      if (this.logs.size > this.maxKeys) this.logs.delete(this.logs.keys().next().value!);
    }
    const resetSeconds = log.length === 0 ? windowSeconds : Math.max(0, Math.ceil((log[0]! + windowMs - now) / 1000));
    return { count, resetSeconds };
  }
}

export interface RateLimitOptions {
  /** Requests allowed per key in any `window`. */
  limit: number;
  /** The sliding window: seconds, or a string with a unit (`'1m'`, `'1h'`); any length. */
  window: Duration;
  /**
   * Who is counted; default `request.ip`, normalised: an IPv4-mapped IPv6 address counts as its IPv4
   * address, an IPv6 address by its network of `ipv6Subnet` bits.
   */
  key?: (request: Request) => string | Promise<string>;
  /** Prefix length an IPv6 client is counted by (default 64: one host commonly holds a whole /64); 128 counts each address. */
  ipv6Subnet?: number;
  /** Default a bounded `MemoryRateLimitStore`; `RedisRateLimitStore` (`@fnapi/cache`) shares it. */
  store?: RateLimitStore;
  /** Requests for which this returns true are neither counted nor limited. */
  skip?: (request: Request) => boolean | Promise<boolean>;
  /** Name of the quota policy in the `RateLimit-Policy`/`RateLimit` headers; default `'default'`. */
  policy?: string;
  /** Where a store outage is reported; default the request's logger (`request.logger`). */
  logger?: Logger;
}

/**
 * Counts each key's requests in a sliding window; past `limit` answers 429 (problem body) with
 * `Retry-After`. Every answer carries the IETF `RateLimit-Policy: default;q=<limit>;w=<window>` and
 * `RateLimit: default;r=<remaining>;t=<seconds>` headers. A store that fails lets the request through
 * (without those headers), logged once per outage.
 */
export class RateLimitMiddleware extends Middleware {
  /** The status it may answer, listed in the document of every endpoint behind it. */
  readonly responses: Readonly<Record<number, string>> = Object.freeze({ 429: 'Too many requests' });
  readonly limit: number;
  /** The window in seconds. */
  readonly window: number;
  readonly store: RateLimitStore;
  private readonly keyOf: (request: Request) => string | Promise<string>;
  private readonly skip: ((request: Request) => boolean | Promise<boolean>) | undefined;
  private readonly policyHeader: string;
  private readonly policy: string;
  private loggerInstance: Logger | undefined;
  private outage = false;

  constructor(options: RateLimitOptions) {
    super();
    if (!Number.isInteger(options.limit) || options.limit < 1)
      throw new RangeError(`limit must be a whole number ≥ 1, got ${options.limit}`);
    this.limit = options.limit;
    this.window = durationSeconds('RateLimitMiddleware: window', options.window, { zero: false });
    this.store = options.store ?? new MemoryRateLimitStore();
    const subnet = options.ipv6Subnet ?? 64;
    if (!Number.isInteger(subnet) || subnet < 1 || subnet > 128) throw new RangeError(`ipv6Subnet must be 1–128, got ${subnet}`);
    this.keyOf = options.key ?? ((request) => addressKey(request.ip, subnet) ?? 'unknown');
    this.skip = options.skip;
    this.policy = options.policy ?? 'default';
    if (!/^[A-Za-z*][A-Za-z0-9_\-.:%*/]*$/.test(this.policy))
      throw new TypeError(`policy must be a structured-field token, got "${this.policy}"`);
    this.policyHeader = `${this.policy};q=${this.limit};w=${Math.ceil(this.window)}`;
    this.loggerInstance = options.logger;
  }

  async dispatch(request: Request, callNext: CallNext): Promise<Response> {
    if (this.skip !== undefined && (await this.skip(request))) return callNext(request);
    let hit: RateLimitHit;
    try {
      hit = await this.store.hit(`${await this.keyOf(request)}`, this.window, this.limit);
      if (this.outage) {
        this.outage = false;
        this.logger(request).info('rate limit store answers again; limiting resumed');
      }
    } catch (error) {
      if (!this.outage) {
        this.outage = true;
        this.logger(request).warn({ err: error }, 'rate limit store unavailable; letting requests through until it answers again');
      }
      return callNext(request);
    }
    const remaining = Math.max(0, this.limit - hit.count);
    const reset = Math.max(0, Math.ceil(hit.resetSeconds));
    if (hit.count > this.limit) {
      const retryAfter = String(Math.max(1, reset));
      const refused = new TooManyRequestsError(
        `Rate limit of ${this.limit} requests per ${this.window} s exceeded; retry in ${retryAfter} s`,
        undefined,
        { headers: { 'retry-after': retryAfter } },
      );
      // Answered, not thrown: the middleware around this one sees a response (CORS headers reach it).
      const response = problemResponse(refused.toProblem(), refused.headers);
      return this.stamp(response, 0, Math.max(1, reset));
    }
    return this.stamp(await callNext(request), remaining, reset);
  }

  private stamp(response: Response, remaining: number, reset: number): Response {
    response.headers.set('ratelimit-policy', this.policyHeader);
    response.headers.set('ratelimit', `${this.policy};r=${remaining};t=${reset}`);
    return response;
  }

  private logger(request: Request): Logger {
    return this.loggerInstance ?? request.logger;
  }
}
