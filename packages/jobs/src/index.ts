export { ATTACHED_JOBS } from './registry.js';
export {
  type Backoff,
  type DefineOptions,
  type EnqueueOptions,
  type JobContext,
  type JobHandler,
  type JobInfo,
  JobKind,
  Jobs,
  type JobsOptions,
  type JobState,
  type ScheduleOptions,
} from './jobs.js';
export { JobPayloadError, type PayloadIssue, type PayloadSchema } from './payload.js';
export type { PostgresConfig } from './store.js';
export { runWorker, type WorkerRun } from './worker.js';
