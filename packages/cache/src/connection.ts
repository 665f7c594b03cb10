import { createClient, type RedisClientType } from '@redis/client';

export interface RedisConnectionOptions {
  /** Redis URL; default `REDIS_URL`, else `redis://127.0.0.1:6379`. Ignored when `client` is given. */
  url?: string | undefined;
  /** A node-redis client of your own (connected or not); it is never closed here. */
  client?: RedisClientType | undefined;
  /** Milliseconds a call may take before it gives up. */
  timeoutMs: number;
  /** The error a call fails with when Redis is unreachable, slow or failing. */
  unavailable: (message: string, options?: { cause?: unknown }) => Error;
}

/**
 * The Redis client shared by the stores: connects on first use and reconnects in the background;
 * while Redis is slow or down every call fails within the timeout (commands are not queued offline),
 * and while it reconnects a call fails at once.
 */
export class RedisConnection {
  readonly timeoutMs: number;
  private readonly url: string;
  private readonly ownsClient: boolean;
  private readonly unavailable: RedisConnectionOptions['unavailable'];
  private client: RedisClientType | undefined;
  private connecting: Promise<unknown> | undefined;
  /** Settles when the client first becomes ready or first fails; shared by every call made before then. */
  private firstAttempt: Promise<void> | undefined;
  /**
   * What the client last told: `undefined` before its first connection settles, `false` once a
   * connection failed or dropped (calls then fail at once until it is ready again, at startup too),
   * `true` when ready.
   */
  private reachable: boolean | undefined;
  /** The errors this connection raised, passed on as they are rather than wrapped again. */
  private readonly raised = new WeakSet<Error>();

  constructor(options: RedisConnectionOptions) {
    this.timeoutMs = options.timeoutMs;
    this.unavailable = options.unavailable;
    this.url = options.url ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    this.client = options.client;
    this.ownsClient = options.client === undefined;
    if (this.client !== undefined) this.watch(this.client);
  }

  /** Closes the client this connection created (a client given to it is left alone). */
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

  /**
   * One command, giving up after the timeout. Before the first connection settles a call may wait for
   * it (within the same budget, on one shared promise); once a connection has failed or dropped, a call
   * made while the client (re)connects fails at once: an unreachable Redis costs requests nothing.
   */
  async call<T>(command: (client: RedisClientType) => Promise<T>): Promise<T> {
    const client = this.connected();
    if (!client.isReady) {
      if (this.reachable !== undefined) throw this.fail('Redis is not reachable (reconnecting)');
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
      if (!client.isReady) throw this.fail('Redis is not reachable');
    }
    return this.within(command(client), 'Redis did not answer');
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

  private fail(message: string, cause?: unknown): Error {
    const error = this.unavailable(message, cause === undefined ? undefined : { cause });
    this.raised.add(error);
    return error;
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

  private within<T>(work: Promise<T>, what: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(this.fail(`${what} within ${this.timeoutMs / 1000} s`)), this.timeoutMs);
    });
    const failed = (error: unknown): never => {
      throw error instanceof Error && this.raised.has(error) ? error : this.fail(`Redis failed: ${(error as Error).message}`, error);
    };
    return Promise.race([work.catch(failed), timeout]).finally(() => clearTimeout(timer));
  }
}
