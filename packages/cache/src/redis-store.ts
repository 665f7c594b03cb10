import type { CacheEntry, CacheStore } from '@fnapi/middleware';
import { createClient, type RedisClientType } from 'redis';

export interface RedisCacheStoreOptions {
  /** Redis URL; default `REDIS_URL`, else `redis://127.0.0.1:6379`. Ignored when `client` is given. */
  url?: string | undefined;
  /** A node-redis client of your own (connected or not); the store never closes it. */
  client?: RedisClientType | undefined;
  /** Prefix of every key; default `fnapi:cache:`. */
  keyPrefix?: string | undefined;
  /** Seconds a store call may take before it gives up (the request is served uncached); default 0.1. */
  timeout?: number | undefined;
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
  private readonly url: string;
  private readonly ownsClient: boolean;
  private client: RedisClientType | undefined;
  private connecting: Promise<unknown> | undefined;
  /** Settles when the client first becomes ready or first fails; shared by every call made before then. */
  private firstAttempt: Promise<void> | undefined;
  /**
   * What the client last told: `undefined` before its first connection settles, `false` once a
   * connection failed or dropped (calls then fail at once until it is ready again), `true` when ready.
   */
  private reachable: boolean | undefined;

  constructor(options: RedisCacheStoreOptions = {}) {
    this.keyPrefix = options.keyPrefix ?? 'fnapi:cache:';
    this.timeout = options.timeout ?? 0.1;
    if (!(this.timeout > 0)) throw new RangeError('RedisCacheStore: timeout must be a positive number of seconds');
    this.url = options.url ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    this.client = options.client;
    this.ownsClient = options.client === undefined;
    if (this.client !== undefined) this.watch(this.client);
  }

  async get(key: string): Promise<CacheEntry | undefined> {
    const raw = await this.call((client) => client.get(this.keyPrefix + key));
    return raw === null ? undefined : (JSON.parse(raw) as CacheEntry);
  }

  async set(key: string, value: CacheEntry, ttlSeconds: number): Promise<void> {
    const ttl = Math.max(1, Math.round(ttlSeconds * 1000));
    await this.call((client) => client.set(this.keyPrefix + key, JSON.stringify(value), { expiration: { type: 'PX', value: ttl } }));
  }

  async delete(key: string): Promise<void> {
    await this.call((client) => client.del(this.keyPrefix + key));
  }

  /** Deletes every key that starts with `prefix` (SCAN with a glob-escaped MATCH, then UNLINK). */
  async deletePrefix(prefix: string): Promise<void> {
    const pattern = `${globEscape(this.keyPrefix + prefix)}*`;
    await this.call(async (client) => {
      let batch: string[] = [];
      for await (const keys of client.scanIterator({ MATCH: pattern, COUNT: 500 })) {
        batch.push(...keys);
        if (batch.length >= 500) {
          await client.unlink(batch);
          batch = [];
        }
      }
      if (batch.length > 0) await client.unlink(batch);
    });
  }

  /** Closes the client the store created (a client given to it is left alone). */
  async close(): Promise<void> {
    const client = this.client;
    if (!this.ownsClient || client === undefined) return;
    this.client = undefined;
    this.connecting = undefined;
    this.firstAttempt = undefined;
    this.reachable = undefined;
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
      this.watch(this.client);
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

  /** Tracks whether Redis is reachable. An 'error' event with no listener would crash the process. */
  private watch(client: RedisClientType): void {
    client.on('error', () => {
      if (this.client === client) this.reachable = false;
    });
    client.on('ready', () => {
      if (this.client === client) this.reachable = true;
    });
    if (client.isReady) this.reachable = true;
  }

  /**
   * One command, giving up after `timeout`. Before the first connection settles a call may wait for it
   * (within the same budget, on one shared promise); once a connection has failed or dropped, a call
   * made while the client (re)connects fails at once: an unreachable Redis costs requests nothing.
   */
  private async call<T>(command: (client: RedisClientType) => Promise<T>): Promise<T> {
    const client = this.connected();
    if (!client.isReady) {
      if (this.reachable !== undefined) throw new CacheStoreUnavailableError('Redis is not reachable (reconnecting)');
      this.firstAttempt ??= new Promise<void>((resolve) => {
        const settle = () => {
          client.off('ready', settle);
          client.off('error', settle);
          resolve();
        };
        client.on('ready', settle);
        client.on('error', settle);
      });
      await this.within(this.firstAttempt, 'Redis is not connected');
      if (!client.isReady) throw new CacheStoreUnavailableError('Redis is not reachable');
    }
    return this.within(command(client), 'Redis did not answer');
  }

  private within<T>(work: Promise<T>, what: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new CacheStoreUnavailableError(`${what} within ${this.timeout} s`)), this.timeout * 1000);
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

/** Escapes Redis glob characters, so a path is matched literally. */
function globEscape(text: string): string {
  return text.replace(/[\\*?[\]]/g, '\\$&');
}
