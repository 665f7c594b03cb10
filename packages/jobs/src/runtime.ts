import type { API } from '@fnapi/core';
import { ATTACHED_JOBS, type AttachedJobs } from './registry.js';

export interface WorkerRun {
  /** The attached job kinds and schedules being worked. */
  jobs: string[];
  schedules: string[];
  /** Stops the workers (running jobs finish, or return to the queue at the shutdown timeout) and the app. */
  close(): Promise<void>;
}

/** The `Jobs` attached to an app (`jobs.attach(app)`). */
export function attachedJobs(app: API): AttachedJobs[] {
  const set = (app as unknown as Record<symbol, Set<AttachedJobs> | undefined>)[ATTACHED_JOBS];
  return set === undefined ? [] : [...set];
}

/**
 * Runs an app's job workers without serving HTTP (`fnapi worker <entry>`): the app's startup
 * callbacks run (pools, clients the handlers use), every attached `Jobs` starts its workers — even one
 * attached with `{ workers: false }` — and SIGTERM/SIGINT stop them gracefully, then the process exits 0.
 */
export async function runWorker(app: API, options: { handleSignals?: boolean } = {}): Promise<WorkerRun> {
  const all = attachedJobs(app);
  if (all.length === 0) throw new Error('the app has no jobs: call jobs.attach(app) in the entry');
  await app.startup();
  for (const jobs of all) await jobs.start();
  const jobs = all.flatMap((j) => j.describe().jobs);
  const schedules = all.flatMap((j) => j.describe().schedules);
  app.logger.info({ jobs, schedules, pid: process.pid }, `fnapi worker running ${jobs.length} job kinds and ${schedules.length} schedules`);
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      await app.shutdown();
      app.logger.info('fnapi worker stopped');
    })();
    return closing;
  };
  const onSignal = (signal: NodeJS.Signals) => {
    app.logger.info({ signal }, 'fnapi worker shutting down: no new jobs, running ones finish or return to the queue');
    void close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.logger.error({ err: error }, 'fnapi worker shutdown failed');
        process.exit(1);
      },
    );
  };
  if (options.handleSignals ?? true) {
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  }
  return { jobs, schedules, close };
}
