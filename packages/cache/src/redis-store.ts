import type { CacheEntry, CacheStore } from '@fnapi/middleware';
import type { RedisClientType } from 'redis';
import { inCommandSpan } from './command-span.js';
import { RedisConnection } from './connection.js';

export interface RedisCacheStoreOptions {
  /** Redis URL; default `REDIS_URL`, else `redis://127.0.0.1:6379`. Ignored when `client` is given. */
  url?: string;
  /** A node-redis client of your own (connected or not); the store never closes it. */
  client?: RedisClientType;
  /** Prefix of every key; default `fnapi:cache:`. */
  keyPrefix?: string;
  /** Milliseconds a store call may take before it gives up (the request is served uncached); default 100. */
  timeout?: number;
}

/** Redis is not reachable, or did not answer in time: `CacheMiddleware` serves the request uncached. */
export class CacheStoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CacheStoreUnavailableError';
  }
}

/**
 * `CacheMiddleware`'s store on Redis, so every instance of an app shares one cache. Entries are JSON
 * under `keyPrefix + key`, and Redis expires them (`PX`). The client connects on first use and
 * reconnects in the background; while Redis is slow or down every call fails within `timeout`
 * milliseconds (commands are not queued offline) and the request is served uncached.
 */
export class RedisCacheStore implements CacheStore<CacheEntry> {
  readonly keyPrefix: string;
  readonly timeout: number;
  private readonly connection: RedisConnection;

  constructor(options: RedisCacheStoreOptions = {}) {
    this.keyPrefix = options.keyPrefix ?? 'fnapi:cache:';
    this.timeout = options.timeout ?? 100;
    this.connection = new RedisConnection({
      url: options.url,
      client: options.client,
      timeoutMs: this.timeout,
      unavailable: (message, cause) => new CacheStoreUnavailableError(message, cause),
    });
  }

  async get(key: string): Promise<CacheEntry | undefined> {
    const raw = await inCommandSpan('GET', 'GET ?', () => this.connection.call((client) => client.get(this.keyPrefix + key)));
    return raw === null ? undefined : (JSON.parse(raw) as CacheEntry);
  }

  async set(key: string, value: CacheEntry, ttlSeconds: number): Promise<void> {
    const ttl = Math.max(1, Math.round(ttlSeconds * 1000));
    await inCommandSpan('SET', 'SET ? ? PX ?', () =>
      this.connection.call((client) => client.set(this.keyPrefix + key, JSON.stringify(value), { expiration: { type: 'PX', value: ttl } })),
    );
  }

  async delete(key: string): Promise<void> {
    await inCommandSpan('DEL', 'DEL ?', () => this.connection.call((client) => client.del(this.keyPrefix + key)));
  }

  /** Closes the client the store created (a client given to it is left alone). */
  close(): Promise<void> {
    return this.connection.close();
  }
}
