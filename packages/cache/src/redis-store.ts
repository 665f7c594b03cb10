import type { CacheEntry, CacheStore } from '@fnapi/middleware';
import { createClient, type RedisClientType } from 'redis';
import { inCommandSpan } from './command-span.js';

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
  private readonly url: string;
  private readonly ownsClient: boolean;
  private client: RedisClientType | undefined;
  private connecting: Promise<unknown> | undefined;
  /** Resolves when the client first becomes ready; shared by every call made before then. */
  private firstReady: Promise<void> | undefined;
  private everReady = false;

  constructor(options: RedisCacheStoreOptions = {}) {
    this.keyPrefix = options.keyPrefix ?? 'fnapi:cache:';
    this.timeout = options.timeout ?? 100;
    this.url = options.url ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    this.client = options.client;
    this.ownsClient = options.client === undefined;
    // An 'error' event with no listener would crash the process: always listen.
    this.client?.on('error', () => {});
  }

  async get(key: string): Promise<CacheEntry | undefined> {
    const raw = await inCommandSpan('GET', 'GET ?', () => this.call((client) => client.get(this.keyPrefix + key)));
    return raw === null ? undefined : (JSON.parse(raw) as CacheEntry);
  }

  async set(key: string, value: CacheEntry, ttlSeconds: number): Promise<void> {
    const ttl = Math.max(1, Math.round(ttlSeconds * 1000));
    await inCommandSpan('SET', 'SET ? ? PX ?', () =>
      this.call((client) => client.set(this.keyPrefix + key, JSON.stringify(value), { expiration: { type: 'PX', value: ttl } })),
    );
  }

  async delete(key: string): Promise<void> {
    await inCommandSpan('DEL', 'DEL ?', () => this.call((client) => client.del(this.keyPrefix + key)));
  }

  /** Closes the client the store created (a client given to it is left alone). */
  async close(): Promise<void> {
    const client = this.client;
    if (!this.ownsClient || client === undefined) return;
    this.client = undefined;
    this.connecting = undefined;
    this.firstReady = undefined;
    this.everReady = false;
    // A client that is not ready (Redis down, reconnecting) would wait for it: drop it at once.
    if (client.isReady) await client.close().catch(() => client.destroy());
    else client.destroy();
  }

  private connected(): RedisClientType {
    if (this.client === undefined) {
      this.client = createClient({
        url: this.url,
        disableOfflineQueue: true,
        socket: { connectTimeout: 1000, reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2000) },
      }) as RedisClientType;
      this.client.on('error', () => {});
    }
    const client = this.client;
    if (!client.isOpen && this.connecting === undefined) {
      this.connecting = client.connect().then(
        () => {
          this.connecting = undefined;
        },
        () => {
          this.connecting = undefined;
        },
      );
    }
    return client;
  }

  /**
   * One command, giving up after `timeout`. Before the first connection a call may wait for it (within
   * the same budget, on one shared promise); once connected, a call made while the client reconnects
   * fails at once.
   */
  private async call<T>(command: (client: RedisClientType) => Promise<T>): Promise<T> {
    const client = this.connected();
    if (!client.isReady) {
      if (this.everReady) throw new CacheStoreUnavailableError('Redis is not connected (reconnecting)');
      this.firstReady ??= new Promise<void>((resolve) =>
        client.once('ready', () => {
          this.everReady = true;
          resolve();
        }),
      );
      await this.within(this.firstReady, 'Redis is not connected');
    }
    return this.within(command(client), 'Redis did not answer');
  }

  private within<T>(work: Promise<T>, what: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new CacheStoreUnavailableError(`${what} within ${this.timeout} ms`)), this.timeout);
    });
    return Promise.race([
      work.catch((error: unknown) => {
        throw error instanceof CacheStoreUnavailableError
          ? error
          : new CacheStoreUnavailableError(`Redis failed: ${(error as Error).message}`, { cause: error });
      }),
      timeout,
    ]).finally(() => clearTimeout(timer));
  }
}
