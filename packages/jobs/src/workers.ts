import type { Logger } from '@fnapi/core';
import type { Job as BullJob, Worker } from 'bullmq';
import type { StoreErrors } from './errors.js';
import type { Kind, Kinds } from './kinds.js';
import { backoffOf, type JobContext, seconds } from './options.js';
import { jsonSize, MAX_JSON_BYTES } from './payload.js';
import type { Envelope } from './producer.js';
import { loadBullmq, type Store } from './store.js';
import { inConsumerSpan, type Metrics } from './telemetry.js';

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
  private readonly running = new Set<Running>();
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
        for (const entry of this.running) abortEntry(entry, new Error('The worker is shutting down; the job returns to the queue'));
        this.requeued = true;
        for (const entry of this.running) entry.fail?.(REQUEUE);
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
    const worker = await store.worker(kind.name, (job, token) => this.process(kind, job, token), {
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

  private async process(kind: Kind, bull: BullJob, token: string | undefined): Promise<unknown> {
    const data = (bull.data ?? {}) as Envelope;
    const id = String(bull.id);
    const attempt = Math.max(1, bull.attemptsStarted ?? bull.attemptsMade + 1);
    const base = this.options.logger();
    const metrics = this.options.metrics;
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
    const timeout = seconds('timeout', kind.options.timeout, 0);
    if (timeout > 0) {
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
      metrics.duration(kind.name, (performance.now() - started) / 1000);
      metrics.count(kind.name, 'completed');
      return value;
    } catch (error) {
      if (error === REQUEUE) {
        await bull.moveToWait(token);
        throw new (await loadBullmq()).WaitingError();
      }
      metrics.duration(kind.name, (performance.now() - started) / 1000);
      throw error;
    } finally {
      clearTimeout(timer);
      this.running.delete(entry);
    }
  }
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
