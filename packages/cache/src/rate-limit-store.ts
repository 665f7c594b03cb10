import { randomBytes } from 'node:crypto';
import type { RateLimitHit, RateLimitStore } from '@fnapi/middleware';
import { type Duration, durationSeconds } from '@fnapi/core/extend';
import type { RedisClientType } from '@redis/client';
import { RedisConnection } from './connection.js';

export interface RedisRateLimitStoreOptions {
  /** Redis URL; default `REDIS_URL`, else `redis://127.0.0.1:6379`. Ignored when `client` is given. */
  url?: string;
  /** A node-redis client of your own (connected or not); the store never closes it. */
  client?: RedisClientType;
  /** Prefix of every key; default `fnapi:ratelimit:`. */
  keyPrefix?: string;
  /** Seconds (or `'100ms'`) a store call may take before it gives up (the request is let through); default 0.1. */
  timeout?: Duration;
}

/** Redis is not reachable, or did not answer in time: `RateLimitMiddleware` lets the request through. */
export class RateLimitStoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RateLimitStoreUnavailableError';
  }
}

// A sliding log in one sorted set per key, trimmed, counted and added to in one atomic script. Redis's
// own clock scores the entries, so instances with skewed clocks still share one window.
const HIT_SCRIPT = `
local key = KEYS[1]
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
if count < limit then
  redis.call('ZADD', key, now, ARGV[3])
  count = count + 1
else
  count = limit + 1
end
redis.call('PEXPIRE', key, window)
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
local reset = window
if oldest[2] then reset = tonumber(oldest[2]) + window - now end
return { count, reset }
`;

const PREFIX = randomBytes(6).toString('base64url');
let sequence = 0;

/**
 * `RateLimitMiddleware`'s store on Redis, so every worker and instance of an app shares one count:
 * a sorted set per key under `keyPrefix`, updated atomically by a Lua script and expired by Redis
 * after a window of quiet. Connection and outage behaviour are `RedisCacheStore`'s: connects on first
 * use, every call gives up after `timeout`, fails at once while Redis is unreachable, reconnects in
 * the background — and the middleware lets requests through meanwhile.
 */
export class RedisRateLimitStore implements RateLimitStore {
  readonly keyPrefix: string;
  /** Seconds. */
  readonly timeout: number;
  private readonly connection: RedisConnection;

  constructor(options: RedisRateLimitStoreOptions = {}) {
    this.keyPrefix = options.keyPrefix ?? 'fnapi:ratelimit:';
    this.timeout = durationSeconds('RedisRateLimitStore: timeout', options.timeout ?? 0.1, { zero: false });
    this.connection = new RedisConnection({
      url: options.url,
      client: options.client,
      timeoutMs: this.timeout * 1000,
      unavailable: (message, cause) => new RateLimitStoreUnavailableError(message, cause),
    });
  }

  async hit(key: string, windowSeconds: number, limit: number): Promise<RateLimitHit> {
    const windowMs = Math.max(1, Math.round(windowSeconds * 1000));
    // A member unique across processes: two requests in the same millisecond are two entries.
    const member = `${PREFIX}:${((sequence = (sequence + 1) % Number.MAX_SAFE_INTEGER)).toString(36)}`;
    const reply = (await this.connection.call((client) =>
      client.eval(HIT_SCRIPT, { keys: [this.keyPrefix + key], arguments: [String(windowMs), String(limit), member] }),
    )) as [number, number];
    return { count: Number(reply[0]), resetSeconds: Math.ceil(Number(reply[1]) / 1000) };
  }

  /** Answers when Redis does (for a readiness check); rejects within `timeout` otherwise. */
  async ping(): Promise<void> {
    await this.connection.call((client) => client.ping());
  }

  /** Closes the client the store created (a client given to it is left alone). */
  close(): Promise<void> {
    return this.connection.close();
  }
}
