import type { Uses } from '@fnapi/core';
import type { Logger } from '@fnapi/core';
import { type Duration, durationMs, type DurationOptions, durationSeconds } from '@fnapi/core/extend';
import type { PostgresConfig } from './store.js';
import type { PayloadSchema } from './payload.js';
import type { MetricsRegistry } from './telemetry.js';

export interface JobsOptions {
  /** A Redis URL: the queues live in Redis. */
  redis?: string | undefined;
  /** A PostgreSQL connection string or `pg` pool config: the queues live in PostgreSQL. */
  postgres?: string | PostgresConfig | undefined;
  /** Names the Redis keys (`<prefix>:<job>:…`) or the PostgreSQL schema; default `fnapi`. */
  prefix?: string | undefined;
  /**
   * Seconds (or `'30s'`) running jobs get to finish on shutdown before they return to the queue;
   * default 10. A number over an hour is refused.
   */
  shutdownTimeout?: Duration | undefined;
  /** Where jobs log; default the attached app's logger, else fnapi's default logger. */
  logger?: Logger | undefined;
  /**
   * A prom-client registry for `jobs_total` and `job_duration_seconds`; default the registry of the
   * attached app's `MetricsMiddleware`, if it has one.
   */
  metrics?: MetricsRegistry | undefined;
}

/** Wait between attempts: `{ type, delay }` with `delay` in seconds or a string with a unit (exponential doubles it each time). */
export interface Backoff {
  type: 'fixed' | 'exponential';
  delay: Duration;
}

/** How the jobs of one kind run: the options `define` and `schedule` share. */
export interface RunOptions {
  /** Tries before the job is `failed`; default 1. */
  attempts?: number | undefined;
  /** Wait between attempts; a duration alone is a fixed delay (seconds, or `'500ms'`). */
  backoff?: Backoff | Duration | undefined;
  /** Seconds (or `'5m'`) an attempt may run: then `job.signal` aborts and the attempt fails. */
  timeout?: Duration | undefined;
  /** Jobs of this kind one process runs at once; default 1. */
  concurrency?: number | undefined;
  /**
   * Dependencies whose values join the handler's input: the payload object for `define` (so a kind
   * with `uses` has an object payload), the first argument of a `schedule` handler. One run is one
   * request; `'app'` ones are the attached app's.
   */
  uses?: Uses | undefined;
  /** Seconds a worker's hold on a running job lasts without renewal (a dead worker's job is taken up after it); default 30. */
  lockDuration?: Duration | undefined;
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
  /** Seconds (or a string with a unit, `'2h'`) to wait before the job may run; any length. */
  delay?: Duration | undefined;
  /** BullMQ's priority: 1 is the highest, larger numbers run later. */
  priority?: number | undefined;
}

export interface ScheduleOptions extends Omit<RunOptions, 'keepCompleted'> {
  /** A cron expression, five fields (or six, the first for seconds). */
  cron?: string | undefined;
  /** Or: every so many seconds (or a string with a unit, `'5m'`); any length. */
  every?: Duration | undefined;
  /** The cron expression's time zone; default UTC. */
  timezone?: string | undefined;
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

export type JobHandler<P> = (payload: P, job: JobContext) => unknown;

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

/** A duration option in seconds (a number, or a string with its unit), or `fallback` when not given. */
export function seconds(name: string, value: Duration | undefined, fallback: number, options?: DurationOptions): number {
  return value === undefined ? fallback : durationSeconds(name, value, options);
}

/** A `backoff` option as BullMQ takes it (milliseconds). */
export function backoffOf(backoff: Backoff | Duration | undefined): { type: 'fixed' | 'exponential'; delay: number } | undefined {
  if (backoff === undefined) return undefined;
  if (typeof backoff !== 'object') return { type: 'fixed', delay: durationMs('backoff', backoff) };
  return { type: backoff.type, delay: durationMs('backoff.delay', backoff.delay) };
}
