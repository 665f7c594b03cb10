import type { CacheEntry, CacheStore } from '@fnapi/middleware';
import { type Duration, durationSeconds } from '@fnapi/core/extend';
import type { RedisClientType } from '@redis/client';
import { inCommandSpan } from './command-span.js';
import { RedisConnection } from './connection.js';

export interface RedisCacheStoreOptions {
  /** Redis URL; default `REDIS_URL`, else `redis://127.0.0.1:6379`. Ignored when `client` is given. */
  url?: string | undefined;
  /** A node-redis client of your own (connected or not); the store never closes it. */
  client?: RedisClientType | undefined;
  /** Prefix of every key; default `fnapi:cache:`. */
  keyPrefix?: string | undefined;
  /** Seconds (or `'100ms'`) a store call may take before it gives up (the request is served uncached); default 0.1. */
  timeout?: Duration | undefined;
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
 * reconnects in the background; while Redis is slow every call gives up after `timeout` seconds, and
 * while it is unreachable (at startup as after a disconnect) every call fails at once (commands are not
 * queued offline); the request is served uncached.
 */
export class RedisCacheStore implements CacheStore<CacheEntry> {
  readonly keyPrefix: string;
  /** Seconds a call may take. */
  readonly timeout: number;
  private readonly connection: RedisConnection;

  constructor(options: RedisCacheStoreOptions = {}) {
    this.keyPrefix = options.keyPrefix ?? 'fnapi:cache:';
    this.timeout = durationSeconds('RedisCacheStore: timeout', options.timeout ?? 0.1, { zero: false });
    this.connection = new RedisConnection({
      url: options.url,
      client: options.client,
      timeoutMs: this.timeout * 1000,
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

  /** Deletes every key that starts with `prefix` (SCAN with a glob-escaped MATCH, then UNLINK). */
  async deletePrefix(prefix: string): Promise<void> {
    const pattern = `${globEscape(this.keyPrefix + prefix)}*`;
    await inCommandSpan('SCAN', 'SCAN ? MATCH ?', () =>
      this.connection.call(async (client) => {
        let batch: string[] = [];
        for await (const keys of client.scanIterator({ MATCH: pattern, COUNT: 500 })) {
          batch.push(...keys);
          if (batch.length >= 500) {
            await client.unlink(batch);
            batch = [];
          }
        }
        if (batch.length > 0) await client.unlink(batch);
      }),
    );
  }

  /** Closes the client the store created (a client given to it is left alone). */
  close(): Promise<void> {
    return this.connection.close();
  }
}

/** Escapes Redis glob characters, so a path is matched literally. */
function globEscape(text: string): string {
  return text.replace(/[\\*?[\]]/g, '\\$&');
}
