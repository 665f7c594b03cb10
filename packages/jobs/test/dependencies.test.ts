/**
 * Job kinds and schedules with `uses` (on Redis): one run is one request — a `'request'` value is made
 * for the run and closed after it, the handler's error thrown in — and `'app'` values are the attached
 * app's, shared with its endpoints.
 */
import { API, dependency, z } from '@fnapi/core';
import { afterAll, describe, expect, it } from 'vitest';
import { Jobs } from '../src/index.js';
import { eventually, redisStore } from './support.js';

const store = await redisStore();

describe.skipIf(!store.available)('jobs with dependencies', () => {
  afterAll(() => store.cleanup());

  it('joins the values to the payload object, closes them after each run, and shares app values', async () => {
    const log: string[] = [];
    let pools = 0;
    const pool = dependency({ lifetime: 'app' }, async function* () {
      pools++;
      yield { id: 'pool' };
      log.push('pool closed');
    });
    const tx = dependency({ uses: { pool } }, async function* ({ pool }, job) {
      log.push(`tx open ${pool.id} for ${(job as unknown as { name: string }).name}`);
      try {
        yield { commit: () => log.push('committed') };
        log.push('tx closed');
      } catch (error) {
        log.push(`tx rolled back: ${(error as Error).message}`);
        throw error;
      }
    });
    const app = new API({ logger: false });
    app.get('/pool', { uses: { pool } }, ({ pool }) => pool);
    const jobs = new Jobs({ ...store.options(), shutdownTimeout: 2 });
    const done: string[] = [];
    const write = jobs.define('write', { payload: z.object({ n: z.int() }), uses: { tx } }, async ({ n, tx }) => {
      if (n < 0) throw new Error('negative');
      tx.commit();
      done.push(`wrote ${n}`);
      return { n };
    });
    jobs.attach(app);
    await app.startup();
    try {
      const ok = await write.enqueue({ n: 1 });
      await eventually(async () => ((await write.get(ok.id))?.state === 'completed' ? true : undefined));
      expect(log).toEqual(['tx open pool for write', 'committed', 'tx closed']);
      const bad = await write.enqueue({ n: -1 });
      await eventually(async () => ((await write.get(bad.id))?.state === 'failed' ? true : undefined));
      expect(log.slice(3)).toEqual(['tx open pool for write', 'tx rolled back: negative']);
      expect(done).toEqual(['wrote 1']);
      expect(pools).toBe(1);
    } finally {
      await app.shutdown();
    }
    expect(log.at(-1)).toBe('pool closed');
  });

  it('a schedule handler with uses takes the values, then the job', async () => {
    const stamp = dependency({}, () => 'stamped');
    const app = new API({ logger: false });
    const jobs = new Jobs({ ...store.options(), shutdownTimeout: 2 });
    const runs: string[] = [];
    jobs.schedule('tick-deps', { every: 0.2, uses: { stamp } }, ({ stamp }, job) => {
      runs.push(`${stamp} ${job.name}`);
    });
    jobs.attach(app);
    await app.startup();
    try {
      await eventually(() => (runs.length > 0 ? true : undefined));
      expect(runs[0]).toBe('stamped tick-deps');
    } finally {
      await app.shutdown();
    }
  });
});
