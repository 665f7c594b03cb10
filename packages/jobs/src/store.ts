import { ServiceUnavailableError } from '@fnapi/core';
import { commonJsExports } from './interop.js';
import type { PostgresConnectionOptions, Processor, Queue, Worker, WorkerOptions } from 'bullmq';

// BullMQ and node-redis are loaded on first use, not at import: importing the package (or
// @fnapi/all) costs nothing until a job is enqueued or a worker starts.
let bullmqModule: Promise<typeof import('bullmq')> | undefined;
let redisModule: Promise<typeof import('redis')> | undefined;
/** BullMQ's module, loaded once. */
export function loadBullmq(): Promise<typeof import('bullmq')> {
  bullmqModule ??= import('bullmq').then((module) => commonJsExports(module, 'Queue'));
  return bullmqModule;
}

/** A `pg` pool config (what `new pg.Pool(config)` takes), for `{ postgres }`. */
export interface PostgresConfig {
  connectionString?: string | undefined;
  host?: string | undefined;
  port?: number | undefined;
  user?: string | undefined;
  password?: string | undefined;
  database?: string | undefined;
  /** Connections in each pool BullMQ makes (one per queue and per worker). */
  max?: number | undefined;
  ssl?: unknown;
  [option: string]: unknown;
}

/** Where the queues live: a Redis URL, or a PostgreSQL connection string or pool config. */
export interface StoreOptions {
  redis?: string | undefined;
  postgres?: string | PostgresConfig | undefined;
  /** Names the Redis keys (`<prefix>:<job>:…`) or the PostgreSQL schema. */
  prefix: string;
}

// The client as this package uses it (what `createClient` returns with no modules).
interface RedisClient {
  readonly isReady: boolean;
  readonly isOpen: boolean;
  connect(): Promise<unknown>;
  close(): Promise<unknown>;
  destroy(): void;
  duplicate(overrides: { disableOfflineQueue: boolean }): RedisClient;
  on(event: string, listener: (error: unknown) => void): unknown;
  once(event: string, listener: () => void): unknown;
  off(event: string, listener: () => void): unknown;
}

/** How long an enqueue waits for a store it is not connected to yet before failing. */
const CONNECT_WAIT_MS = 2000;

/**
 * BullMQ's queues and workers over one store, Redis or PostgreSQL, behind one face: the rest of the
 * package never asks which. Connections are made on first use.
 */
export class Store {
  readonly kind: 'redis' | 'postgres';
  private readonly options: StoreOptions;
  private readonly queues = new Map<string, Queue>();
  /** Redis: the producers' client (commands fail at once while Redis is away, never queue up). */
  private producer: RedisClient | undefined;
  /** Redis: the workers' client (waits out an outage and goes on). */
  private consumer: RedisClient | undefined;
  private readonly onError: (error: unknown, role: string) => void;

  constructor(options: StoreOptions, onError: (error: unknown, role: string) => void) {
    if ((options.redis === undefined) === (options.postgres === undefined)) {
      throw new TypeError('new Jobs() takes one store: { redis: url } or { postgres: url }');
    }
    if (options.postgres !== undefined && !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(options.prefix)) {
      throw new TypeError(`With PostgreSQL, prefix names a schema: letters, digits and underscores, got "${options.prefix}"`);
    }
    this.kind = options.redis !== undefined ? 'redis' : 'postgres';
    this.options = options;
    this.onError = onError;
  }

  /** The queue when it is made already (no promise on the hot path). */
  cachedQueue(name: string): Queue | undefined {
    return this.queues.get(name);
  }

  /** The producer side of a job kind's queue (made once, connected on first use). */
  async queue(name: string): Promise<Queue> {
    let queue = this.queues.get(name);
    if (queue === undefined) {
      const connection = await this.producerConnection();
      const bullmq = await loadBullmq();
      // Made meanwhile by a concurrent caller: use that one.
      queue = this.queues.get(name);
      if (queue !== undefined) return queue;
      queue = this.makeQueue(bullmq, name, connection);
      queue.on('error', (error) => this.onError(error, 'queue'));
      this.queues.set(name, queue);
    }
    return queue;
  }

  /** The queue for reads that must not fail while the store is away for a moment (stats, get). */
  private makeQueue(bullmq: typeof import('bullmq'), name: string, connection: unknown): Queue {
    if (this.kind === 'redis') {
      return new bullmq.Queue(name, { connection: connection as never, prefix: this.options.prefix, skipWaitingForReady: true });
    }
    return new bullmq.Queue(name, { connection: this.postgresConnection(4) }, bullmq.createPostgresBackend) as unknown as Queue;
  }

  /** A worker for one queue, not yet running (`run()` starts it). */
  async worker(name: string, processor: Processor, options: Omit<WorkerOptions, 'connection'>): Promise<Worker> {
    const bullmq = await loadBullmq();
    let worker: Worker;
    if (this.kind === 'redis') {
      const connection = await this.consumerConnection();
      worker = new bullmq.Worker(name, processor, {
        ...options,
        connection: connection as never,
        prefix: this.options.prefix,
        autorun: false,
      });
    } else {
      const connection = this.postgresConnection((options.concurrency ?? 1) + 3);
      worker = new bullmq.Worker(
        name,
        processor,
        { ...options, connection, autorun: false },
        bullmq.createPostgresBackend,
      ) as unknown as Worker;
    }
    worker.on('error', (error) => this.onError(error, 'worker'));
    return worker;
  }

  async close(): Promise<void> {
    const queues = [...this.queues.values()];
    this.queues.clear();
    await Promise.allSettled(queues.map((queue) => queue.close()));
    for (const client of [this.producer, this.consumer]) {
      if (client?.isOpen) await client.close().catch(() => client.destroy());
      else client?.destroy();
    }
    this.producer = undefined;
    this.consumer = undefined;
  }

  private postgresConnection(max: number) {
    const postgres = this.options.postgres!;
    const config = typeof postgres === 'string' ? { connectionString: postgres } : postgres;
    return { ...config, max: config.max ?? max, schema: this.options.prefix, migrate: true } as PostgresConnectionOptions;
  }

  private async producerConnection(): Promise<RedisClient | undefined> {
    if (this.kind !== 'redis') return undefined;
    if (this.producer === undefined) {
      const client = await this.redisClient('producer', true);
      if (this.producer === undefined) {
        this.producer = client;
        // Connects in the background; an enqueue meanwhile waits a moment, then fails.
        client.connect().catch(() => {});
      } else client.destroy();
    }
    await ready(this.producer, CONNECT_WAIT_MS);
    return this.producer;
  }

  private async consumerConnection(): Promise<RedisClient> {
    if (this.consumer === undefined) {
      const client = await this.redisClient('worker', false);
      if (this.consumer === undefined) {
        this.consumer = client;
        client.connect().catch(() => {});
      } else client.destroy();
    }
    // A worker waits for Redis as long as it takes.
    await ready(this.consumer, Number.POSITIVE_INFINITY);
    return this.consumer;
  }

  private async redisClient(role: string, failFast: boolean): Promise<RedisClient> {
    redisModule ??= import('redis').then((module) => commonJsExports(module, 'createClient'));
    const { createClient } = await redisModule;
    // The same options for every client: node-redis builds a client class (every command on its
    // prototype) per distinct options and keeps only the last, so a producer and a worker made with
    // different ones would each build their own, and the code that calls them would serve two classes
    // per job. The producer is a duplicate of such a client, which shares its class.
    const made: RedisClient = createClient({
      url: this.options.redis,
      socket: {
        connectTimeout: 2000,
        reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 1000),
      },
    });
    let client = made;
    if (failFast) {
      client = made.duplicate({ disableOfflineQueue: true });
      made.destroy();
    }
    client.on('error', (error: unknown) => this.onError(error, role));
    // Every BullMQ queue and worker on this client listens to its events: no leak warning for that.
    (client as unknown as { setMaxListeners?(n: number): void }).setMaxListeners?.(0);
    return client;
  }
}

/** Resolves once the client is ready; rejects with 503 when it is not within `ms`. */
async function ready(client: RedisClient, ms: number): Promise<void> {
  if (client.isReady) return;
  await new Promise<void>((resolve, reject) => {
    const timer = Number.isFinite(ms)
      ? setTimeout(() => {
          client.off('ready', onReady);
          reject(new ServiceUnavailableError('The job store (Redis) is unreachable'));
        }, ms)
      : undefined;
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    client.once('ready', onReady);
  });
}
