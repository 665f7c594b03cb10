import type { API, Logger, Uses, UsesValues } from '@fnapi/core';
import { type DependencyRunner, defaultLogger, dependencyRunner, HOUR } from '@fnapi/core/extend';
import { StoreErrors } from './errors.js';
import { Kinds } from './kinds.js';
import {
  type DefineOptions,
  type JobContext,
  type JobHandler,
  type JobState,
  type JobsOptions,
  type ScheduleOptions,
  seconds,
} from './options.js';
import type { InputOf, PayloadOf, PayloadSchema } from './payload.js';
import { JobKind, Producer } from './producer.js';
import { attachToRuntime } from './runtime.js';
import { Store } from './store.js';
import { Metrics, metricsOption, type MetricsRegistry, metricsRegistryOf } from './telemetry.js';
import { Workers } from './workers.js';

/**
 * Durable background jobs on BullMQ, stored in Redis or PostgreSQL. Producers `enqueue` without
 * running workers; `attach(app)` (or `app.extend(jobs)`) runs the workers with the app, or
 * `fnapi worker` runs them alone.
 *
 * A facade over the parts: the job kinds (`Kinds`), the producer side (`Producer`: enqueue, get,
 * stats), the consumer side (`Workers`), the store with its errors, and the metrics.
 */
export class Jobs {
  readonly prefix: string;
  readonly shutdownTimeout: number;
  private readonly store: Store;
  private readonly errors: StoreErrors;
  private readonly kinds = new Kinds();
  private readonly metrics: Metrics;
  /** The registry its metrics are recorded in: the `metrics` option, else the attached app's, if any. */
  readonly metricsRegistry: () => MetricsRegistry | undefined;
  private readonly producer: Producer;
  private readonly workers: Workers;
  private explicitLogger: Logger | undefined;
  private app: API | undefined;
  private closing: Promise<void> | undefined;

  constructor(options: JobsOptions) {
    this.prefix = options.prefix ?? 'fnapi';
    this.shutdownTimeout = seconds('shutdownTimeout', options.shutdownTimeout, 10, { maxNumber: HOUR });
    this.explicitLogger = options.logger;
    const logger = () => this.logger;
    this.store = new Store({ redis: options.redis, postgres: options.postgres, prefix: this.prefix }, (error, role) =>
      this.errors.connectionFailed(error, role),
    );
    this.errors = new StoreErrors(this.store.kind, logger);
    const registry = metricsOption(options.metrics);
    this.metricsRegistry = () => metricsRegistryOf(registry, this.app);
    this.metrics = new Metrics(this.metricsRegistry);
    this.producer = new Producer(this.store, this.errors, this.metrics);
    this.workers = new Workers({
      store: this.store,
      errors: this.errors,
      kinds: this.kinds,
      metrics: this.metrics,
      logger,
      shutdownTimeout: this.shutdownTimeout,
    });
  }

  /** Where jobs log: the option, else the attached app's logger, else the default. */
  get logger(): Logger {
    return (this.explicitLogger ??= this.app?.logger ?? defaultLogger());
  }

  /** Registers a job kind: its payload schema, how it runs, and its handler. */
  define<S extends PayloadSchema | undefined = undefined, U extends Uses = {}>(
    name: string,
    options: DefineOptions<S> & { uses?: U },
    handler: JobHandler<
      {} extends U ? (S extends PayloadSchema ? PayloadOf<S> : unknown) : (S extends PayloadSchema ? PayloadOf<S> : {}) & UsesValues<U>
    >,
  ): JobKind<S extends PayloadSchema ? PayloadOf<S> : unknown, S extends PayloadSchema ? InputOf<S> : unknown> {
    const run = this.withDependencies(name, options.uses, handler as JobHandler<unknown>, (payload, values) => {
      if (payload !== undefined && (typeof payload !== 'object' || payload === null || Array.isArray(payload)))
        throw new TypeError(`Job ${name} uses dependencies, so its payload is an object`);
      return { ...(payload as object), ...values };
    });
    const kind = { name, options, handler: run };
    this.kinds.add(kind);
    this.workers.added(kind);
    return new JobKind(name, this.producer, options as DefineOptions);
  }

  /**
   * Runs `handler` on a schedule (`cron`, or `every` seconds): once per tick across every instance,
   * however many run it.
   */
  schedule(name: string, options: ScheduleOptions & { uses?: undefined }, handler: (job: JobContext) => unknown): void;
  /** With `uses`: the handler takes the values, then the job. */
  schedule<U extends Uses>(
    name: string,
    options: ScheduleOptions & { uses: U },
    handler: (input: UsesValues<U>, job: JobContext) => unknown,
  ): void;
  schedule(name: string, options: ScheduleOptions, handler: (...args: any[]) => unknown): void {
    if ((options.cron === undefined) === (options.every === undefined)) {
      throw new TypeError(`schedule("${name}") takes one of cron or every`);
    }
    if (options.every !== undefined) seconds(`schedule("${name}"): every`, options.every, 0, { zero: false });
    const kind = {
      name,
      options: { ...options, keepCompleted: 100 },
      handler:
        options.uses === undefined
          ? (_payload: unknown, job: JobContext) => handler(job)
          : this.withDependencies(
              name,
              options.uses,
              (input, job) => handler(input, job),
              (_payload, values) => values,
            ),
      schedule: options,
    };
    this.kinds.add(kind);
    this.workers.added(kind);
  }

  /**
   * A handler whose run resolves its `uses` first (one run is one request) and closes them after it,
   * the handler's error thrown into their generators. The app's `'app'` values are the attached app's.
   */
  private withDependencies(
    name: string,
    uses: Uses | undefined,
    handler: JobHandler<unknown>,
    input: (payload: unknown, values: Record<string, unknown>) => unknown,
  ): JobHandler<unknown> {
    if (uses === undefined) return handler;
    let runner: DependencyRunner | undefined;
    return async (payload, job) => {
      if (this.app === undefined) throw new Error(`Job ${name} uses dependencies: attach the jobs to the app (jobs.attach(app))`);
      runner ??= dependencyRunner(this.app, uses, `Job ${name}`);
      const run = await runner.run(job);
      let result: unknown;
      try {
        result = await handler(input(payload, run.values), job);
      } catch (error) {
        throw await run.close(error);
      }
      const failure = await run.close();
      if (failure !== undefined) throw failure;
      return result;
    };
  }

  /**
   * Runs the workers with the app (`app.startup()` starts them, `app.shutdown()` stops them), unless
   * `{ workers: false }`: then this process only enqueues, and `fnapi worker` runs them elsewhere.
   * `app.extend(jobs)` calls it with no options.
   */
  attach(app: API, options: { workers?: boolean } = {}): this {
    this.app = app;
    this.metrics.reset();
    attachToRuntime(app, this);
    app.onStartup(async () => {
      this.closing = undefined;
      // The registry is looked up (and prom-client loaded) before the first job, so no count waits on it.
      await this.metrics.resolve();
      if (options.workers ?? true) await this.start();
    });
    app.onShutdown(() => this.close());
    return this;
  }

  /** Starts a worker for every job kind and sets up the schedules (what `attach` and `fnapi worker` call). */
  start(): Promise<void> {
    this.closing = undefined;
    return this.workers.start();
  }

  /** The job kinds and schedules, for `fnapi worker`'s first line. */
  describe(): { jobs: string[]; schedules: string[]; store: 'redis' | 'postgres' } {
    return { ...this.kinds.describe(), store: this.store.kind };
  }

  /** Counts per kind and state. */
  stats(): Promise<Record<string, Record<JobState, number>>> {
    return this.producer.stats(this.kinds.names());
  }

  /**
   * Stops the workers: no new job is taken, running ones get `shutdownTimeout` seconds to finish, and
   * one still running then is returned to the queue. Then closes the store's connections.
   */
  close(): Promise<void> {
    this.closing ??= this.workers.close().then(() => this.store.close());
    return this.closing;
  }
}
