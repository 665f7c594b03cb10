import type { Logger } from '@fnapi/core';
import type { Job as BullJob, Worker } from 'bullmq';
import type { StoreErrors } from './errors.js';
import type { Kind, Kinds } from './kinds.js';
import { backoffOf, type JobContext, seconds } from './options.js';
import { jsonSize, MAX_JSON_BYTES } from './payload.js';
import type { Envelope } from './producer.js';
import { loadBullmq, type Store } from './store.js';
import { consumerSpanName, inConsumerSpan, type Metrics } from './telemetry.js';

/**
 * One attempt of a job: the handler's `job`, and what shutdown needs to end it (abort its signal, made
 * only if the handler reads it; `fail` the attempt without waiting for its handler). A class, not an
 * object literal with getters: such a literal is built by the runtime's slow path at every job.
 */
class Attempt implements JobContext {
  #controller: AbortController | undefined = undefined;
  #reason: unknown = undefined;
  #logger: Logger | undefined = undefined;
  readonly #baseLogger: () => Logger;
  /** Ends the attempt early (its timeout's error, or REQUEUE); set while a handler's promise is pending. */
  #end: ((reason: unknown) => void) | undefined = undefined;
  #timer: ReturnType<typeof setTimeout> | undefined = undefined;

  constructor(
    readonly id: string,
    readonly name: string,
    readonly attempt: number,
    baseLogger: () => Logger,
  ) {
    this.#baseLogger = baseLogger;
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#reason !== undefined) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  get logger(): Logger {
    return (this.#logger ??= this.#baseLogger().child({ jobId: this.id, job: this.name }));
  }

  abort(reason: unknown): void {
    if (this.#reason !== undefined) return;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }

  /** While the handler's promise is pending, `fail` ends the attempt through `end`. */
  endsWith(end: (reason: unknown) => void): void {
    this.#end = end;
  }

  fail(reason: unknown): void {
    this.#end?.(reason);
  }

  /** Aborts the signal and fails the attempt after `seconds`. */
  timeout(seconds: number): void {
    this.#timer = setTimeout(() => {
      const error = new Error(`Job ${this.name} timed out after ${seconds} s`);
      error.name = 'JobTimeoutError';
      this.abort(error);
      this.fail(error);
    }, seconds * 1000);
  }

  settled(): void {
    clearTimeout(this.#timer);
  }
}

const REQUEUE = Symbol('requeue');
/** How long workers closing after the shutdown timeout get to hand their jobs back before they are forced. */
const REQUEUE_WAIT_MS = 5000;

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

/** What the workers are given: the store and its errors, the kinds they run, where they log and count. */
export interface WorkersOptions {
  store: Store;
  errors: StoreErrors;
  kinds: Kinds;
  metrics: Metrics;
  logger: () => Logger;
  /** Seconds running jobs get to finish at `close` before they return to the queue. */
  shutdownTimeout: number;
}

/**
 * The consumer side: one BullMQ worker per job kind, the schedules, and each attempt's run (its span,
 * timeout, signal and metrics); `close` stops them gracefully.
 */
export class Workers {
  private readonly workers = new Map<string, Worker>();
  private readonly running = new Set<Attempt>();
  /** Set when shutdown sends the running jobs back: an attempt that starts after it goes back too. */
  private requeued = false;
  private started: Promise<void> | undefined;
  private closing: Promise<void> | undefined;

  constructor(private readonly options: WorkersOptions) {}

  /** Starts a worker for every job kind and sets up the schedules. */
  start(): Promise<void> {
    this.started ??= (async () => {
      this.closing = undefined;
      this.requeued = false;
      for (const kind of this.options.kinds.all()) await this.startWorker(kind);
    })().catch((error: unknown) => {
      this.started = undefined;
      throw error;
    });
    return this.started;
  }

  /** A kind defined after the workers started: its worker starts too. */
  added(kind: Kind): void {
    if (this.started !== undefined) void this.started.then(() => this.startWorker(kind));
  }

  /**
   * Stops the workers: no new job is taken, running ones get `shutdownTimeout` seconds to finish, and
   * one still running then is returned to the queue.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const workers = [...this.workers.values()];
      this.workers.clear();
      this.started = undefined;
      const closed = Promise.allSettled(workers.map((worker) => worker.close()));
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), this.options.shutdownTimeout * 1000);
      });
      if ((await Promise.race([closed, late])) === 'late') {
        this.options.logger().warn({ running: this.running.size }, 'jobs still running at the shutdown timeout return to the queue');
        for (const entry of this.running) entry.abort(new Error('The worker is shutting down; the job returns to the queue'));
        this.requeued = true;
        for (const entry of this.running) entry.fail(REQUEUE);
        await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, REQUEUE_WAIT_MS))]);
        await Promise.allSettled(workers.map((worker) => worker.close(true)));
      }
      clearTimeout(timer);
    })();
    return this.closing;
  }

  private async startWorker(kind: Kind): Promise<void> {
    if (this.workers.has(kind.name)) return;
    const { store, errors, metrics } = this.options;
    const options = kind.options;
    const lockMs = Math.round(seconds('lockDuration', options.lockDuration, 30) * 1000);
    const attempts = Math.max(1, options.attempts ?? 1);
    const run: PerKind = { timeout: seconds('timeout', options.timeout, 0), spanName: consumerSpanName(kind.name) };
    const worker = await store.worker(kind.name, (job, token) => this.process(kind, run, job, token), {
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
      if (final) this.options.logger().error(fields, `job ${kind.name} failed`);
      else this.options.logger().warn(fields, `job ${kind.name} attempt failed; it will be retried`);
      metrics.count(kind.name, final ? 'failed' : 'retried');
    });
    worker.on('stalled', (jobId) =>
      this.options.logger().warn({ jobId, job: kind.name }, `job ${kind.name} stalled (its worker stopped); it runs again`),
    );
    void worker.run().catch((error: unknown) => this.options.logger().error({ err: error, job: kind.name }, 'job worker stopped'));
    await worker.waitUntilReady();
    if (kind.schedule !== undefined) {
      const queue = await errors.guard(store.queue(kind.name));
      const schedule = kind.schedule;
      await upsertScheduler(queue, kind.name, () =>
        queue.upsertJobScheduler(
          kind.name,
          schedule.cron !== undefined
            ? { pattern: schedule.cron, tz: schedule.timezone ?? 'UTC' }
            : { every: Math.round(seconds('every', schedule.every, 0) * 1000) },
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

  /**
   * One attempt: its span, timeout and metrics around the handler. A handler that returns a value (not
   * a promise) completes the attempt without a promise of ours in between.
   */
  private process(kind: Kind, run: PerKind, bull: BullJob, token: string | undefined): Promise<unknown> {
    const data = (bull.data ?? {}) as Envelope;
    const attempt = new Attempt(
      String(bull.id),
      kind.name,
      Math.max(1, bull.attemptsStarted ?? bull.attemptsMade + 1),
      this.options.logger,
    );
    if (run.timeout > 0) attempt.timeout(run.timeout);
    this.running.add(attempt);
    const started = performance.now();
    let outcome: unknown;
    try {
      outcome = inConsumerSpan(run.spanName, attempt, data.trace, () => this.runHandler(kind, data.payload, attempt));
    } catch (error) {
      return this.failed(kind, attempt, started, error, bull, token);
    }
    // A promise (the handler's, wrapped, or the recording span's), else the handler's value.
    if (!(outcome instanceof Promise)) return this.completed(kind, attempt, started, outcome);
    return outcome.then(
      (result) => this.completed(kind, attempt, started, result),
      (error: unknown) => this.failed(kind, attempt, started, error, bull, token),
    );
  }

  /**
   * Calls the handler: its value, or a promise of it that `attempt.fail` (the timeout, or shutdown) can
   * end before the handler's own promise settles.
   */
  private runHandler(kind: Kind, payload: unknown, attempt: Attempt): unknown {
    const result = kind.handler(payload, attempt);
    if (!isThenable(result)) return result;
    return new Promise<unknown>((resolve, reject) => {
      attempt.endsWith(reject);
      // Not resolve(promise): that would lock this promise in to the handler's, and `fail` could not end it.
      result.then(resolve, reject);
      if (this.requeued) reject(REQUEUE);
    });
  }

  private completed(kind: Kind, attempt: Attempt, started: number, result: unknown): Promise<unknown> {
    const value = result === undefined ? null : result;
    if (value !== null && jsonSize(value) > MAX_JSON_BYTES)
      return this.failed(kind, attempt, started, new Error(`Result of job ${kind.name} is over ${MAX_JSON_BYTES} bytes as JSON`));
    this.finished(attempt);
    const metrics = this.options.metrics;
    metrics.duration(kind.name, (performance.now() - started) / 1000);
    metrics.count(kind.name, 'completed');
    return Promise.resolve(value);
  }

  private async failed(
    kind: Kind,
    attempt: Attempt,
    started: number,
    error: unknown,
    bull?: BullJob,
    token?: string | undefined,
  ): Promise<never> {
    this.finished(attempt);
    if (error === REQUEUE && bull !== undefined) {
      await bull.moveToWait(token);
      throw new (await loadBullmq()).WaitingError();
    }
    this.options.metrics.duration(kind.name, (performance.now() - started) / 1000);
    throw error;
  }

  private finished(attempt: Attempt): void {
    attempt.settled();
    this.running.delete(attempt);
  }
}

/** What each attempt of a kind needs, worked out once when its worker starts. */
interface PerKind {
  /** Seconds; 0 for none. */
  timeout: number;
  spanName: string;
}

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
