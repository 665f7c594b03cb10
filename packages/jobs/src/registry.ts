/** Where an app keeps the `Jobs` attached to it (a registry symbol: any copy of the package finds them). */
export const ATTACHED_JOBS: unique symbol = Symbol.for('fnapi.jobs') as never;
/** Where an app keeps the worker runtime (`runWorker`), which `fnapi worker` calls. */
export const WORKER_RUNTIME: unique symbol = Symbol.for('fnapi.jobs.runWorker') as never;

/** What the worker runtime needs of an attached `Jobs`. */
export interface AttachedJobs {
  start(): Promise<void>;
  describe(): { jobs: string[]; schedules: string[] };
}
