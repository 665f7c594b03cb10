/**
 * Where jobs meet the app, on Redis: `app.extend(jobs)` runs the workers with the app; every `Jobs`
 * attached to one app is run by the worker runtime the app offers (`WORKER_RUNTIME`); metrics go to
 * the `metrics` option's registry, else to the one a `MetricsMiddleware` of the app provides, even
 * when it is added after the jobs.
 */
import { MetricsMiddleware } from '@fnapi/monitoring';
import { Registry } from 'prom-client';
import { afterAll, describe, expect, it } from 'vitest';
import { API, z } from '@fnapi/core';
import { silentLogger } from '@fnapi/core/extend';
import { METRICS_REGISTRY, provided, WORKER_RUNTIME } from '@fnapi/core/extend';
import { Jobs, runWorker } from '../src/index.js';
import { eventually, redisStore } from './support.js';

const store = await redisStore();

/** The value of one series in a registry's text, or undefined while it is not there. */
async function series(registry: Registry, line: string): Promise<number | undefined> {
  const found = (await registry.metrics()).split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe.skipIf(!store.available)('jobs as an extension of the app', () => {
  const apps: API[] = [];
  afterAll(async () => {
    for (const app of apps) await app.shutdown();
    await store.cleanup();
  });

  function newApp() {
    const app = new API({ logger: false });
    apps.push(app);
    return app;
  }

  function newJobs(options: { metrics?: Registry } = {}) {
    return new Jobs({ ...store.options(), logger: silentLogger(), shutdownTimeout: 2, ...options });
  }

  it('app.extend(jobs) runs the workers with the app; extending twice is refused', async () => {
    const app = newApp();
    const jobs = newJobs();
    const double = jobs.define('double', { payload: z.object({ n: z.int() }) }, ({ n }) => n * 2);
    expect(app.extend(jobs)).toBe(app);
    expect(() => app.extend(jobs)).toThrow(/attached already/);
    await app.startup();
    const { id } = await double.enqueue({ n: 21 });
    const info = await eventually(async () => {
      const i = await double.get(id);
      return i?.state === 'completed' ? i : undefined;
    });
    expect(info.result).toBe(42);
  });

  it('the worker runtime the app offers runs every Jobs attached to it, { workers: false } too', async () => {
    const app = newApp();
    const mail = newJobs();
    const reports = newJobs();
    const mailed: string[] = [];
    const send = mail.define('send', { payload: z.object({ to: z.email() }) }, ({ to }) => {
      mailed.push(to);
    });
    reports.schedule('nightly', { cron: '0 3 * * *' }, () => undefined);
    const build = reports.define('build', {}, () => 'built');
    mail.attach(app, { workers: false });
    app.extend(reports);
    expect(provided(app, WORKER_RUNTIME)).toBeDefined();
    const run = await runWorker(app, { handleSignals: false });
    try {
      expect(run.jobs.sort()).toEqual(['build', 'send']);
      expect(run.schedules).toEqual(['nightly']);
      const sent = await send.enqueue({ to: 'a@example.com' });
      const built = await build.enqueue(null);
      await eventually(async () => ((await send.get(sent.id))?.state === 'completed' ? true : undefined));
      await eventually(async () => ((await build.get(built.id))?.state === 'completed' ? true : undefined));
      expect(mailed).toEqual(['a@example.com']);
    } finally {
      await run.close();
    }
  });

  it('an app with no jobs attached has no worker runtime', async () => {
    const app = newApp();
    expect(provided(app, WORKER_RUNTIME)).toBeUndefined();
    await expect(runWorker(app, { handleSignals: false })).rejects.toThrow(/the app has no jobs/);
  });

  it('records metrics in the registry a MetricsMiddleware added after attach provides', async () => {
    const app = newApp();
    const jobs = newJobs();
    const square = jobs.define('square', { payload: z.number() }, (n) => n * n);
    jobs.attach(app);
    const registry = new Registry();
    app.addMiddleware(new MetricsMiddleware({ registry, defaultMetrics: false }));
    expect(provided(app, METRICS_REGISTRY)).toBe(registry);
    await app.startup();
    await square.enqueue(3);
    expect(await eventually(() => series(registry, 'jobs_total{job="square",state="completed"}'))).toBe(1);
    expect(await series(registry, 'jobs_total{job="square",state="enqueued"}')).toBe(1);
    expect(await series(registry, 'job_duration_seconds_count{job="square"}')).toBe(1);
  });

  it('the metrics option wins: without an app, and over the app middleware registry', async () => {
    const own = new Registry();
    const alone = newJobs({ metrics: own });
    const echo = alone.define('echo', {}, (payload) => payload);
    await alone.start();
    try {
      await echo.enqueue('hi');
      expect(await eventually(() => series(own, 'jobs_total{job="echo",state="completed"}'))).toBe(1);
    } finally {
      await alone.close();
    }

    const app = newApp();
    const middlewareRegistry = new Registry();
    app.addMiddleware(new MetricsMiddleware({ registry: middlewareRegistry, defaultMetrics: false }));
    const chosen = new Registry();
    const jobs = newJobs({ metrics: chosen });
    const noop = jobs.define('noop', {}, () => null);
    app.extend(jobs);
    await app.startup();
    await noop.enqueue(null);
    expect(await eventually(() => series(chosen, 'jobs_total{job="noop",state="completed"}'))).toBe(1);
    expect(await middlewareRegistry.getSingleMetric('jobs_total')).toBeUndefined();
  });
});
