import type { API } from '@fnapi/core';
import { provide, provided, WORKER_RUNTIME, type WorkerRuntime } from '@fnapi/core/extend';
import { ensureWorkerRegistry, serveWorkerMetrics, type WorkerMetricsOptions } from './metrics-server.js';
import type { MetricsRegistry } from './telemetry.js';

export interface WorkerRun {
  /** The attached job kinds and schedules being worked. */
  jobs: string[];
  schedules: string[];
  /** Where the worker's Prometheus metrics are served, when asked (`--metrics-port`). */
  metrics?: { url: string; port: number } | undefined;
  /** Stops the workers (running jobs finish, or return to the queue at the shutdown timeout) and the app. */
  close(): Promise<void>;
}

/** What the worker runtime needs of an attached `Jobs`. */
export interface AttachedJobs {
  start(): Promise<void>;
  describe(): { jobs: string[]; schedules: string[] };
  /** The registry its metrics are recorded in, if any. */
  metricsRegistry(): MetricsRegistry | undefined;
}

interface RunOptions {
  handleSignals: boolean;
  metrics?: WorkerMetricsOptions | undefined;
}

/** The runtime `fnapi worker` finds on an app under `WORKER_RUNTIME`: it runs every `Jobs` attached to the app. */
interface JobsRuntime extends WorkerRuntime {
  add(jobs: AttachedJobs): void;
  run(options: RunOptions): Promise<WorkerRun>;
}

function isJobsRuntime(runtime: WorkerRuntime): runtime is JobsRuntime {
  return typeof (runtime as Partial<JobsRuntime>).add === 'function';
}

/**
 * Records `jobs` as attached to `app`, in the app's worker runtime (left on the app by the first
 * `Jobs` attached, whichever copy of this package it came from, and found by the others).
 */
export function attachToRuntime(app: API, jobs: AttachedJobs): void {
  const runtime = provided(app, WORKER_RUNTIME);
  if (runtime === undefined) {
    const attached = new Set<AttachedJobs>([jobs]);
    const created: JobsRuntime = {
      add: (more) => attached.add(more),
      run: (options) => runAttached(app, [...attached], options),
    };
    provide(app, WORKER_RUNTIME, created);
  } else if (isJobsRuntime(runtime)) {
    runtime.add(jobs);
  } else {
    throw new Error('the app has a worker runtime that is not @fnapi/jobs: its jobs cannot be attached');
  }
}

/**
 * Runs an app's job workers without serving HTTP (`fnapi worker <entry>`): the app's startup
 * callbacks run (pools, clients the handlers use), every attached `Jobs` starts its workers — even one
 * attached with `{ workers: false }` — and SIGTERM/SIGINT stop them gracefully, then the process exits 0.
 */
export async function runWorker(
  app: API,
  options: { handleSignals?: boolean; metrics?: WorkerMetricsOptions | undefined } = {},
): Promise<WorkerRun> {
  const runtime = provided(app, WORKER_RUNTIME);
  if (runtime === undefined) throw new Error('the app has no jobs: call jobs.attach(app) in the entry');
  return (await runtime.run({ handleSignals: options.handleSignals ?? true, metrics: options.metrics })) as WorkerRun;
}

async function runAttached(app: API, all: AttachedJobs[], options: RunOptions): Promise<WorkerRun> {
  // Before startup, where jobs look their registry up: a worker asked to serve metrics always records them.
  if (options.metrics !== undefined && all.some((jobs) => jobs.metricsRegistry() === undefined)) await ensureWorkerRegistry(app);
  await app.startup();
  for (const jobs of all) await jobs.start();
  const jobs = all.flatMap((j) => j.describe().jobs);
  const schedules = all.flatMap((j) => j.describe().schedules);
  app.logger.info({ jobs, schedules, pid: process.pid }, `fnapi worker running ${jobs.length} job kinds and ${schedules.length} schedules`);
  let metrics: Awaited<ReturnType<typeof serveWorkerMetrics>> | undefined;
  if (options.metrics !== undefined) {
    try {
      metrics = await serveWorkerMetrics(() => all.map((j) => j.metricsRegistry()).filter((r) => r !== undefined), options.metrics);
    } catch (error) {
      await app.shutdown();
      throw error;
    }
    app.logger.info({ url: metrics.url }, `fnapi worker serving Prometheus metrics at ${metrics.url}`);
  }
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      await app.shutdown();
      // Last: a scrape during the drain still sees the final counts.
      await metrics?.close();
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
  if (options.handleSignals) {
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  }
  return { jobs, schedules, ...(metrics !== undefined ? { metrics: { url: metrics.url, port: metrics.port } } : {}), close };
}
