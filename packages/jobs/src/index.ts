export { JobPayloadError, type PayloadIssue } from './errors.js';
export { Jobs } from './jobs.js';
export type {
  Backoff,
  DefineOptions,
  EnqueueOptions,
  JobContext,
  JobHandler,
  JobInfo,
  JobsOptions,
  JobState,
  ScheduleOptions,
} from './options.js';
export type { PayloadSchema } from './payload.js';
export { JobKind } from './producer.js';
export type { PostgresConfig } from './store.js';
export type { MetricsRegistry } from './telemetry.js';
export { runWorker, type WorkerRun } from './runtime.js';
export type { WorkerMetricsOptions } from './metrics-server.js';
