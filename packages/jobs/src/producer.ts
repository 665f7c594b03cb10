import type { StoreErrors } from './errors.js';
import { backoffOf, type DefineOptions, type EnqueueOptions, type JobInfo, type JobState, type RunOptions, seconds } from './options.js';
import { assertStorable, validatePayload } from './payload.js';
import type { Store } from './store.js';
import { currentTraceLink, type Metrics, type TraceLink } from './telemetry.js';

/** What a job carries in the store: its payload, and the enqueuing request's span. */
export interface Envelope {
  payload: unknown;
  trace?: TraceLink;
}

/** A job kind: `enqueue` and `get`. */
export class JobKind<P = unknown, In = P> {
  constructor(
    readonly name: string,
    private readonly producer: Producer,
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
    assertStorable(this.name, value);
    return this.producer.add(this.name, { payload: value, trace: currentTraceLink() }, options, this.options);
  }

  /** The job's state, attempts, and result or last error; undefined for an id the store does not know. */
  get(id: string): Promise<JobInfo | undefined> {
    return this.producer.info(this.name, id);
  }
}

const KEY_ID_MAX = 200;
const PRIORITY_MAX = 2_097_152;

/** A BullMQ job id for an idempotency key: never an integer, never a colon. */
function keyId(key: string): string {
  if (typeof key !== 'string' || key.length === 0 || key.length > KEY_ID_MAX) {
    throw new TypeError(`An enqueue key is a string of 1 to ${KEY_ID_MAX} characters`);
  }
  return `key-${encodeURIComponent(key)}`;
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

/** The producer side: adds jobs, reads one job's state, counts jobs. Needs no running worker. */
export class Producer {
  constructor(
    private readonly store: Store,
    private readonly errors: StoreErrors,
    private readonly metrics: Metrics,
  ) {}

  /** Adds a job (`JobKind.enqueue`, after validation). */
  async add(name: string, data: Envelope, options: EnqueueOptions, run: RunOptions): Promise<{ id: string }> {
    const delay = seconds('delay', options.delay, 0);
    const priority = options.priority;
    if (priority !== undefined && (!Number.isInteger(priority) || priority < 0 || priority > PRIORITY_MAX)) {
      throw new RangeError(`priority is an integer from 0 to ${PRIORITY_MAX}, got ${String(priority)}`);
    }
    const jobId = options.key === undefined ? undefined : keyId(options.key);
    const queue = this.store.cachedQueue(name) ?? (await this.errors.guard(this.store.queue(name)));
    if (jobId !== undefined) {
      // A failed job does not hold its key: enqueueing again starts afresh.
      const existing = await this.errors.guard(queue.getJob(jobId));
      if (existing !== undefined && (await this.errors.guard(existing.getState())) === 'failed') await this.errors.guard(existing.remove());
    }
    const kept = keptOptions(run);
    const job = await this.errors.guard(
      queue.add(name, data, {
        jobId,
        delay: Math.round(delay * 1000),
        priority,
        attempts: kept.attempts,
        backoff: kept.backoff,
        removeOnComplete: kept.removeOnComplete,
        removeOnFail: kept.removeOnFail,
      }),
    );
    this.metrics.count(name, 'enqueued');
    return { id: String(job.id) };
  }

  /** A job's state (`JobKind.get`). */
  async info(name: string, id: string): Promise<JobInfo | undefined> {
    const queue = await this.errors.guard(this.store.queue(name));
    // The state first, then the job: what the job says is then at least as new as its state.
    const state = stateOf(await this.errors.guard(queue.getJobState(id)));
    if (state === undefined) return undefined;
    const job = await this.errors.guard(queue.getJob(id));
    if (job === undefined || job === null) return undefined;
    const info: JobInfo = { id: String(job.id), state, attempt: Math.max(job.attemptsStarted ?? 0, job.attemptsMade ?? 0) };
    if (state === 'completed') info.result = job.returnvalue ?? null;
    if (job.failedReason) info.error = job.failedReason;
    return info;
  }

  /** Counts per kind and state, for the kinds named. */
  async stats(names: Iterable<string>): Promise<Record<string, Record<JobState, number>>> {
    const out: Record<string, Record<JobState, number>> = {};
    for (const name of names) {
      const queue = await this.errors.guard(this.store.queue(name));
      const counts = await this.errors.guard(queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active', 'completed', 'failed'));
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
}
