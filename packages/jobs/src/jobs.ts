import type { API, Logger } from '@fnapi/core';
import { defaultLogger } from '@fnapi/core/extend';
import type { Job as BullJob, Worker } from 'bullmq';
import type { PostgresConfig } from './store.js';
import { JobPayloadError, jsonSize, MAX_JSON_BYTES, type PayloadOf, type PayloadSchema, validatePayload } from './payload.js';
import { ATTACHED_JOBS, WORKER_RUNTIME } from './registry.js';
import { loadBullmq, Store } from './store.js';
import { runWorker } from './worker.js';
import { currentTraceLink, inConsumerSpan, type JobMetrics, metricsFor, type TraceLink } from './telemetry.js';

export interface JobsOptions {
  /** A Redis URL: the queues live in Redis. */
  redis?: string | undefined;
  /** A PostgreSQL connection string or `pg` pool config: the queues live in PostgreSQL. */
  postgres?: string | PostgresConfig | undefined;
  /** Names the Redis keys (`<prefix>:<job>:…`) or the PostgreSQL schema; default `fnapi`. */
  prefix?: string | undefined;
  /** Seconds running jobs get to finish on shutdown before they return to the queue; default 10. */
  shutdownTimeout?: number | undefined;
  /** Where jobs log; default the attached app's logger, else fnapi's default logger. */
  logger?: Logger | undefined;
}

/** Wait between attempts: `{ type, delay }` with `delay` in seconds (exponential doubles it each time). */
export interface Backoff {
  type: 'fixed' | 'exponential';
  delay: number;
}

interface RunOptions {
  /** Tries before the job is `failed`; default 1. */
  attempts?: number | undefined;
  /** Wait between attempts; a number is a fixed delay in seconds. */
  backoff?: Backoff | number | undefined;
  /** Seconds an attempt may run: then `job.signal` aborts and the attempt fails. */
  timeout?: number | undefined;
  /** Jobs of this kind one process runs at once; default 1. */
  concurrency?: number | undefined;
  /** Seconds a worker's hold on a running job lasts without renewal (a dead worker's job is taken up after it); default 30. */
  lockDuration?: number | undefined;
  /** Failed jobs kept (for `get` and inspection); default 1,000 per kind. */
  keepFailed?: number | undefined;
  /** Completed jobs kept (for `get`, and so a `key` stays taken); default 1,000 per kind. */
  keepCompleted?: number | undefined;
}

export interface DefineOptions<S extends PayloadSchema | undefined = PayloadSchema | undefined> extends RunOptions {
  /** The payload's schema (zod or any Standard Schema); `enqueue` validates against it. */
  payload?: S;
}

export interface EnqueueOptions {
  /** Idempotency key: while a job with this key is waiting, delayed, running or kept as completed, enqueueing again returns its id. */
  key?: string | undefined;
  /** Seconds to wait before the job may run. */
  delay?: number | undefined;
  /** BullMQ's priority: 1 is the highest, larger numbers run later. */
  priority?: number | undefined;
}

/** What a job handler is given besides its payload. */
export interface JobContext {
  id: string;
  /** The job kind's name. */
  name: string;
  /** This attempt's number, from 1. */
  attempt: number;
  /** Aborted when the attempt's `timeout` passes, or when shutdown returns the job to the queue. */
  signal: AbortSignal;
  /** The app's logger with `jobId` and `job` on every line. */
  logger: Logger;
}

export type JobState = 'waiting' | 'delayed' | 'active' | 'completed' | 'failed';

export interface JobInfo {
  id: string;
  state: JobState;
  /** Attempts started so far. */
  attempt: number;
  result?: unknown;
  /** The last failure's message. */
  error?: string;
}

export type JobHandler<P> = (payload: P, job: JobContext) => unknown;

export interface ScheduleOptions extends Omit<RunOptions, 'keepCompleted'> {
  /** A cron expression, five fields (or six, the first for seconds). */
  cron?: string | undefined;
  /** Or: every so many seconds. */
  every?: number | undefined;
  /** The cron expression's time zone; default UTC. */
  timezone?: string | undefined;
}

/** What a job carries in the store: its payload, and the enqueuing request's span. */
interface Envelope {
  payload: unknown;
  trace?: TraceLink;
}

/** A job kind: `enqueue` and `get`. */
export class JobKind<P = unknown, In = P> {
  constructor(
    readonly name: string,
    private readonly jobs: Jobs,
    private readonly options: DefineOptions,
  ) {}

  /**
   * Validates the payload (a `JobPayloadError` when it does not fit, or is over 512 KiB as JSON) and
   * adds a job; resolves to its id. With `key`, a job already there under that key is returned instead.
   * While the store is unreachable it rejects with `ServiceUnavailableError` (503 if not caught).
   */
  enqueue(payload: In, options: EnqueueOptions = {}): Promise<{ id: string }> {
    try {
      const value = validatePayload(this.name, this.options.payload, payload);
      // A plain schema answers at once: no turn of the event loop before the job is added.
      if (value instanceof Promise) return value.then((parsed) => this.submit(parsed, options));
      return this.submit(value, options);
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  private submit(value: unknown, options: EnqueueOptions): Promise<{ id: string }> {
    let size: number;
    try {
      size = jsonSize(value);
    } catch (error) {
      throw new JobPayloadError(this.name, [
        { path: [], message: `Payload is not JSON: ${(error as Error).message}`, code: 'invalid_type' },
      ]);
    }
    if (size > MAX_JSON_BYTES) {
      throw new JobPayloadError(this.name, [
        { path: [], message: `Payload is ${size} bytes as JSON, over the limit of ${MAX_JSON_BYTES}`, code: 'too_big' },
      ]);
    }
    return this.jobs.add(this.name, { payload: value, trace: currentTraceLink() }, options, this.options);
  }

  /** The job's state, attempts, and result or last error; undefined for an id the store does not know. */
  get(id: string): Promise<JobInfo | undefined> {
    return this.jobs.info(this.name, id);
  }
}

interface Kind {
  name: string;
  options: RunOptions;
  handler: (payload: unknown, job: JobContext) => unknown;
  schedule?: ScheduleOptions;
}

/**
 * A running attempt, so that shutdown can abort its signal (made only if the handler reads it), and
 * end the attempt (`fail`: the timeout's error, or REQUEUE) without waiting for its handler.
 */
interface Running {
  controller: AbortController | undefined;
  reason: unknown;
  fail: ((reason: unknown) => void) | undefined;
}

function abortEntry(entry: Running, reason: unknown): void {
  if (entry.reason !== undefined) return;
  entry.reason = reason;
  entry.controller?.abort(reason);
}

const REQUEUE = Symbol('requeue');

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}
const KEY_ID_MAX = 200;

function seconds(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
    throw new RangeError(`${name} is a number of seconds ≥ 0, got ${String(value)}`);
  return value;
}

/** A BullMQ job id for an idempotency key: never an integer, never a colon. */
function keyId(key: string): string {
  if (typeof key !== 'string' || key.length === 0 || key.length > KEY_ID_MAX) {
    throw new TypeError(`An enqueue key is a string of 1 to ${KEY_ID_MAX} characters`);
  }
  return `key-${encodeURIComponent(key)}`;
}

function backoffOf(backoff: Backoff | number | undefined): { type: 'fixed' | 'exponential'; delay: number } | undefined {
  if (backoff === undefined) return undefined;
  if (typeof backoff === 'number') return { type: 'fixed', delay: seconds('backoff', backoff, 0) * 1000 };
  return { type: backoff.type, delay: seconds('backoff.delay', backoff.delay, 0) * 1000 };
}

/** The BullMQ options that follow from a kind's `define` options, the same for each of its jobs. */
interface KeptOptions {
  attempts: number;
  backoff: { type: 'fixed' | 'exponential'; delay: number } | undefined;
  removeOnComplete: { count: number };
  removeOnFail: { count: number };
}

const keptByRun = new WeakMap<RunOptions, KeptOptions>();

/**
 * A kind's options as BullMQ takes them, worked out at its first enqueue (an invalid `backoff` throws
 * there, as before, at each enqueue) and kept: BullMQ copies the options it is given.
 */
function keptOptions(run: RunOptions): KeptOptions {
  let kept = keptByRun.get(run);
  if (kept === undefined) {
    kept = {
      attempts: Math.max(1, run.attempts ?? 1),
      backoff: backoffOf(run.backoff),
      removeOnComplete: { count: run.keepCompleted ?? 1000 },
      removeOnFail: { count: run.keepFailed ?? 1000 },
    };
    keptByRun.set(run, kept);
  }
  return kept;
}

function stateOf(state: string): JobState | undefined {
  switch (state) {
    case 'waiting':
    case 'prioritized':
    case 'waiting-children':
      return 'waiting';
    case 'delayed':
    case 'active':
    case 'completed':
    case 'failed':
      return state;
    default:
      return undefined;
  }
}

/**
 * Durable background jobs on BullMQ, stored in Redis or PostgreSQL. Producers `enqueue` without
 * running workers; `attach(app)` runs the workers with the app (or `fnapi worker` runs them alone).
 */
export class Jobs {
  readonly prefix: string;
  readonly shutdownTimeout: number;
  private readonly store: Store;
  private readonly kinds = new Map<string, Kind>();
  private readonly workers = new Map<string, Worker>();
  private readonly running = new Set<Running>();
  /** Set when shutdown sends the running jobs back: an attempt that starts after it goes back too. */
  private requeued = false;
  private explicitLogger: Logger | undefined;
  private app: API | undefined;
  private metrics: Promise<JobMetrics | undefined> | undefined;
  /** The metrics once known (null: none), so that a job's end need not wait a turn for them. */
  private metricsReady: JobMetrics | null | undefined;
  private started: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private outage = false;

  constructor(options: JobsOptions) {
    this.prefix = options.prefix ?? 'fnapi';
    this.shutdownTimeout = seconds('shutdownTimeout', options.shutdownTimeout, 10);
    this.explicitLogger = options.logger;
    this.store = new Store({ redis: options.redis, postgres: options.postgres, prefix: this.prefix }, (error, role) =>
      this.storeError(error, role),
    );
  }

  /** Where jobs log: the option, else the attached app's logger, else the default. */
  get logger(): Logger {
    return (this.explicitLogger ??= this.app?.logger ?? defaultLogger());
  }

  /** Registers a job kind: its payload schema, how it runs, and its handler. */
  define<S extends PayloadSchema | undefined = undefined>(
    name: string,
    options: DefineOptions<S>,
    handler: JobHandler<S extends PayloadSchema ? PayloadOf<S> : unknown>,
  ): JobKind<S extends PayloadSchema ? PayloadOf<S> : unknown, S extends PayloadSchema ? InputOf<S> : unknown> {
    this.register({ name, options, handler: handler as Kind['handler'] });
    return new JobKind(name, this, options as DefineOptions);
  }

  /**
   * Runs `handler` on a schedule (`cron`, or `every` seconds): once per tick across every instance,
   * however many run it.
   */
  schedule(name: string, options: ScheduleOptions, handler: (job: JobContext) => unknown): void {
    if ((options.cron === undefined) === (options.every === undefined)) {
      throw new TypeError(`schedule("${name}") takes one of cron or every`);
    }
    if (options.every !== undefined && !(options.every > 0)) throw new RangeError(`schedule("${name}"): every is seconds > 0`);
    this.register({ name, options: { ...options, keepCompleted: 100 }, handler: (_payload, job) => handler(job), schedule: options });
  }

  /**
   * Runs the workers with the app (`app.startup()` starts them, `app.shutdown()` stops them), unless
   * `{ workers: false }`: then this process only enqueues, and `fnapi worker` runs them elsewhere.
   */
  attach(app: API, options: { workers?: boolean } = {}): this {
    this.app = app;
    this.metrics = undefined;
    this.metricsReady = undefined;
    const registry = app as unknown as Record<symbol, Set<Jobs> | undefined>;
    (registry[ATTACHED_JOBS] ??= new Set()).add(this);
    (app as unknown as Record<symbol, unknown>)[WORKER_RUNTIME] = runWorker;
    app.onStartup(async () => {
      this.closing = undefined;
      if (options.workers ?? true) await this.start();
    });
    app.onShutdown(() => this.close());
    return this;
  }

  /** Starts a worker for every job kind and sets up the schedules (what `attach` and `fnapi worker` call). */
  start(): Promise<void> {
    this.started ??= (async () => {
      this.closing = undefined;
      this.requeued = false;
      for (const kind of this.kinds.values()) await this.startWorker(kind);
    })().catch((error: unknown) => {
      this.started = undefined;
      throw error;
    });
    return this.started;
  }

  /** The job kinds and schedules, for `fnapi worker`'s first line. */
  describe(): { jobs: string[]; schedules: string[]; store: 'redis' | 'postgres' } {
    const kinds = [...this.kinds.values()];
    return {
      jobs: kinds.filter((k) => !k.schedule).map((k) => k.name),
      schedules: kinds.filter((k) => k.schedule).map((k) => k.name),
      store: this.store.kind,
    };
  }

  /** Counts per kind and state. */
  async stats(): Promise<Record<string, Record<JobState, number>>> {
    const out: Record<string, Record<JobState, number>> = {};
    for (const name of this.kinds.keys()) {
      const queue = await this.guard(this.store.queue(name));
      const counts = await this.guard(queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active', 'completed', 'failed'));
      out[name] = {
        waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
        delayed: counts.delayed ?? 0,
        active: counts.active ?? 0,
        completed: counts.completed ?? 0,
        failed: counts.failed ?? 0,
      };
    }
    return out;
  }

  /**
   * Stops the workers: no new job is taken, running ones get `shutdownTimeout` seconds to finish, and
   * one still running then is returned to the queue. Then closes the store's connections.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const workers = [...this.workers.values()];
      this.workers.clear();
      this.started = undefined;
      const closed = Promise.allSettled(workers.map((worker) => worker.close()));
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), this.shutdownTimeout * 1000);
      });
      if ((await Promise.race([closed, late])) === 'late') {
        this.logger.warn({ running: this.running.size }, 'jobs still running at the shutdown timeout return to the queue');
        for (const entry of this.running) abortEntry(entry, new Error('The worker is shutting down; the job returns to the queue'));
        this.requeued = true;
        for (const entry of this.running) entry.fail?.(REQUEUE);
        await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 5000))]);
        await Promise.allSettled(workers.map((worker) => worker.close(true)));
      }
      clearTimeout(timer);
      await this.store.close();
    })();
    return this.closing;
  }

  /** Adds a job (`JobKind.enqueue` after validation). Internal. */
  async add(name: string, data: Envelope, options: EnqueueOptions, run: RunOptions): Promise<{ id: string }> {
    const delay = seconds('delay', options.delay, 0);
    const priority = options.priority;
    if (priority !== undefined && (!Number.isInteger(priority) || priority < 0 || priority > 2_097_152)) {
      throw new RangeError(`priority is an integer from 0 to 2097152, got ${String(priority)}`);
    }
    const jobId = options.key === undefined ? undefined : keyId(options.key);
    const queue = this.store.cachedQueue(name) ?? (await this.guard(this.store.queue(name)));
    if (jobId !== undefined) {
      // A failed job does not hold its key: enqueueing again starts afresh.
      const existing = await this.guard(queue.getJob(jobId));
      if (existing !== undefined && (await this.guard(existing.getState())) === 'failed') await this.guard(existing.remove());
    }
    const kept = keptOptions(run);
    const job = await this.guard(
      queue.add(name, data, {
        jobId,
        delay: delay * 1000,
        priority,
        attempts: kept.attempts,
        backoff: kept.backoff,
        removeOnComplete: kept.removeOnComplete,
        removeOnFail: kept.removeOnFail,
      }),
    );
    if (this.metricsReady) this.metricsReady.count(name, 'enqueued');
    else if (this.metricsReady === undefined) void this.metricsOnce().then((m) => m?.count(name, 'enqueued'));
    return { id: String(job.id) };
  }

  /** A job's state (`JobKind.get`). Internal. */
  async info(name: string, id: string): Promise<JobInfo | undefined> {
    const queue = await this.guard(this.store.queue(name));
    // The state first, then the job: what the job says is then at least as new as its state.
    const state = stateOf(await this.guard(queue.getJobState(id)));
    if (state === undefined) return undefined;
    const job = await this.guard(queue.getJob(id));
    if (job === undefined || job === null) return undefined;
    const info: JobInfo = { id: String(job.id), state, attempt: Math.max(job.attemptsStarted ?? 0, job.attemptsMade ?? 0) };
    if (state === 'completed') info.result = job.returnvalue ?? null;
    if (job.failedReason) info.error = job.failedReason;
    return info;
  }

  private register(kind: Kind): void {
    if (typeof kind.name !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(kind.name)) {
      throw new TypeError(`A job name is 1–100 letters, digits, ".", "_" or "-", got ${JSON.stringify(kind.name)}`);
    }
    if (this.kinds.has(kind.name)) throw new Error(`Job "${kind.name}" is already defined`);
    if (typeof kind.handler !== 'function') throw new TypeError(`Job "${kind.name}" needs a handler function`);
    seconds('timeout', kind.options.timeout, 0);
    seconds('lockDuration', kind.options.lockDuration, 30);
    this.kinds.set(kind.name, kind);
    // Defined after the workers started: start this one too.
    if (this.started !== undefined) void this.started.then(() => this.startWorker(kind));
  }

  private metricsOnce(): Promise<JobMetrics | undefined> {
    this.metrics ??= (this.app === undefined ? Promise.resolve(undefined) : metricsFor(this.app.middleware)).then((metrics) => {
      this.metricsReady = metrics ?? null;
      return metrics;
    });
    return this.metrics;
  }

  private async startWorker(kind: Kind): Promise<void> {
    if (this.workers.has(kind.name)) return;
    const options = kind.options;
    const lockMs = seconds('lockDuration', options.lockDuration, 30) * 1000;
    const attempts = Math.max(1, options.attempts ?? 1);
    const worker = await this.store.worker(kind.name, (job, token) => this.process(kind, job, token), {
      concurrency: Math.max(1, options.concurrency ?? 1),
      lockDuration: lockMs,
      stalledInterval: lockMs,
      maxStalledCount: attempts,
    });
    this.workers.set(kind.name, worker);
    worker.on('failed', (job, error) => {
      if (job === undefined || (error as Error | undefined)?.name === 'WaitingError') return;
      const fields = { jobId: job.id, job: kind.name, attempt: job.attemptsMade, err: error };
      const final = job.attemptsMade >= (job.opts.attempts ?? 1) || job.finishedOn !== undefined;
      if (final) this.logger.error(fields, `job ${kind.name} failed`);
      else this.logger.warn(fields, `job ${kind.name} attempt failed; it will be retried`);
      void this.metricsOnce().then((m) => m?.count(kind.name, final ? 'failed' : 'retried'));
    });
    worker.on('stalled', (jobId) =>
      this.logger.warn({ jobId, job: kind.name }, `job ${kind.name} stalled (its worker stopped); it runs again`),
    );
    void worker.run().catch((error: unknown) => this.logger.error({ err: error, job: kind.name }, 'job worker stopped'));
    await worker.waitUntilReady();
    if (kind.schedule !== undefined) {
      const queue = await this.guard(this.store.queue(kind.name));
      const schedule = kind.schedule;
      await upsertScheduler(queue, kind.name, () =>
        queue.upsertJobScheduler(
          kind.name,
          schedule.cron !== undefined ? { pattern: schedule.cron, tz: schedule.timezone ?? 'UTC' } : { every: schedule.every! * 1000 },
          {
            name: kind.name,
            data: { payload: null } satisfies Envelope,
            opts: {
              attempts,
              backoff: backoffOf(options.backoff),
              removeOnComplete: { count: 100 },
              removeOnFail: { count: options.keepFailed ?? 1000 },
            },
          },
        ),
      );
    }
  }

  private async process(kind: Kind, bull: BullJob, token: string | undefined): Promise<unknown> {
    const data = (bull.data ?? {}) as Envelope;
    const id = String(bull.id);
    const attempt = Math.max(1, bull.attemptsStarted ?? bull.attemptsMade + 1);
    const base = this.logger;
    let logger: Logger | undefined;
    // The signal and the child logger are made only if the handler reads them.
    const entry: Running = { controller: undefined, reason: undefined, fail: undefined };
    const context: JobContext = {
      id,
      name: kind.name,
      attempt,
      get signal() {
        if (entry.controller === undefined) {
          entry.controller = new AbortController();
          if (entry.reason !== undefined) entry.controller.abort(entry.reason);
        }
        return entry.controller.signal;
      },
      get logger() {
        return (logger ??= base.child({ jobId: id, job: kind.name }));
      },
    };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = kind.options.timeout;
    if (timeout !== undefined && timeout > 0) {
      timer = setTimeout(() => {
        const error = new Error(`Job ${kind.name} timed out after ${timeout} s`);
        error.name = 'JobTimeoutError';
        abortEntry(entry, error);
        entry.fail?.(error);
      }, timeout * 1000);
    }
    this.running.add(entry);
    const started = performance.now();
    try {
      // The attempt ends with its handler, or earlier by `entry.fail` (its timeout, or shutdown).
      const result = await inConsumerSpan(
        { name: kind.name, id, attempt },
        data.trace,
        () =>
          new Promise<unknown>((resolve, reject) => {
            entry.fail = reject;
            try {
              const result = kind.handler(data.payload, context);
              // Not resolve(promise): that would lock this promise in to the handler's, and `fail` could not end it.
              if (isThenable(result)) result.then(resolve, reject);
              else resolve(result);
            } catch (error) {
              reject(error as Error);
            }
            if (this.requeued) reject(REQUEUE);
          }),
      );
      const value = result === undefined ? null : result;
      if (value !== null && jsonSize(value) > MAX_JSON_BYTES)
        throw new Error(`Result of job ${kind.name} is over ${MAX_JSON_BYTES} bytes as JSON`);
      const metrics = this.metricsReady === undefined ? await this.metricsOnce() : this.metricsReady;
      if (metrics) {
        metrics.duration(kind.name, (performance.now() - started) / 1000);
        metrics.count(kind.name, 'completed');
      }
      return value;
    } catch (error) {
      if (error === REQUEUE) {
        await bull.moveToWait(token);
        throw new (await loadBullmq()).WaitingError();
      }
      (await this.metricsOnce())?.duration(kind.name, (performance.now() - started) / 1000);
      throw error;
    } finally {
      clearTimeout(timer);
      this.running.delete(entry);
    }
  }

  /** Store calls: a failure to reach the store becomes a 503 `ServiceUnavailableError`. */
  private async guard<T>(operation: Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      return await Promise.race([
        operation,
        new Promise<never>((_resolve, reject) => {
          timer = setTimeout(() => reject(new Error('no answer within 5 s')), 5000);
        }),
      ]);
    } catch (error) {
      if (error instanceof JobPayloadError || error instanceof RangeError || error instanceof TypeError) throw error;
      throw this.store.unavailable(error);
    } finally {
      clearTimeout(timer);
    }
  }

  /** A connection error: logged once per outage (the clients reconnect by themselves). */
  private storeError(error: unknown, role: string): void {
    if (this.outage) return;
    this.outage = true;
    this.logger.error({ err: error, role, store: this.store.kind }, 'job store connection failed; reconnecting');
    setTimeout(() => {
      this.outage = false;
    }, 10_000).unref();
  }
}

type InputOf<S> = S extends { readonly '~standard': { readonly types?: infer T } }
  ? NonNullable<T> extends { readonly input: infer I }
    ? I
    : PayloadOf<S>
  : PayloadOf<S>;

/**
 * Sets a schedule up. Instances that start at the same moment race to create the schedule's next
 * job: the loser is told the job already exists, which means the schedule is there, set up by the
 * winner with the same settings.
 */
async function upsertScheduler(
  queue: { getJobScheduler(id: string): Promise<unknown> },
  id: string,
  upsert: () => Promise<unknown>,
): Promise<void> {
  try {
    await upsert();
  } catch (error) {
    if (!(error instanceof Error && /job ID already exists/i.test(error.message))) throw error;
    if ((await queue.getJobScheduler(id)) == null) throw error;
  }
}
