/**
 * Two instances running the same schedules (as two replicas of an app would): each tick runs once in
 * all, for `every` and for a six-field cron expression, on each store.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@fnapi/core/extend';
import { Jobs } from '../src/index.js';
import { postgresStore, redisStore } from './support.js';

const stores = [await redisStore(), await postgresStore()];

for (const store of stores) {
  describe.skipIf(!store.available)(`two schedulers on ${store.name}`, () => {
    const instances: Jobs[] = [];
    afterAll(async () => {
      await Promise.all(instances.map((jobs) => jobs.close()));
      await store.cleanup();
    });

    it('one run per tick across instances, for every and for cron', async () => {
      const options = store.options();
      const runs: { instance: number; schedule: string; id: string; at: number }[] = [];
      for (const instance of [1, 2]) {
        const jobs = new Jobs({ ...options, logger: silentLogger(), shutdownTimeout: 5 });
        jobs.schedule('every-half-second', { every: 0.5 }, (job) => {
          runs.push({ instance, schedule: 'every', id: job.id, at: Date.now() });
        });
        jobs.schedule('each-second', { cron: '* * * * * *' }, (job) => {
          runs.push({ instance, schedule: 'cron', id: job.id, at: Date.now() });
        });
        instances.push(jobs);
      }
      await Promise.all(instances.map((jobs) => jobs.start()));
      const started = Date.now();
      // Counting a schedule's runs takes a window of time.
      await new Promise((resolve) => setTimeout(resolve, 3200));
      // The runs of the window (a schedule's first run may come while start() is still resolving).
      const window = [...runs];
      const elapsed = (Date.now() - started) / 1000 + 0.5;
      await Promise.all(instances.map((jobs) => jobs.close()));
      const every = window.filter((r) => r.schedule === 'every');
      const cron = window.filter((r) => r.schedule === 'cron');
      // Each tick is one job: no id twice, and no more runs than ticks (two instances would double them).
      expect(new Set(every.map((r) => r.id)).size).toBe(every.length);
      expect(new Set(cron.map((r) => r.id)).size).toBe(cron.length);
      expect(every.length).toBeGreaterThanOrEqual(4);
      expect(every.length).toBeLessThanOrEqual(Math.ceil(elapsed / 0.5) + 1);
      expect(cron.length).toBeGreaterThanOrEqual(2);
      expect(cron.length).toBeLessThanOrEqual(Math.ceil(elapsed) + 1);
    }, 30_000);
  });
}
