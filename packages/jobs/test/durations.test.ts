/**
 * Jobs take durations like every other option: seconds, or a string with its unit; fnapi hands BullMQ
 * milliseconds. Against a real Redis.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { API, z } from '@fnapi/core';
import { silentLogger } from '@fnapi/core/extend';
import { Jobs } from '../src/index.js';
import { eventually, redisStore } from './support.js';

const store = await redisStore();

describe.skipIf(!store.available)('job durations', () => {
  afterAll(() => store.cleanup());

  it('waits backoff.delay between attempts and delay before the first, both given with a unit', async () => {
    const app = new API({ logger: false });
    const jobs = new Jobs({ ...store.options(), logger: silentLogger(), shutdownTimeout: '2s' });
    const attempts: number[] = [];
    const retried = jobs.define(
      'retried',
      { attempts: 2, backoff: { type: 'fixed', delay: '300ms' }, lockDuration: '30s' },
      async (_p, job) => {
        attempts.push(performance.now());
        if (job.attempt === 1) throw new Error('first attempt fails');
        return { ok: true };
      },
    );
    const ran: number[] = [];
    const later = jobs.define('later', {}, async () => {
      ran.push(performance.now());
    });
    jobs.attach(app);
    await app.startup();
    try {
      const { id } = await retried.enqueue(undefined);
      await eventually(async () => ((await retried.get(id))?.state === 'completed' ? true : undefined), 10_000, 'the retried job');
      const gap = attempts[1]! - attempts[0]!;
      // 300 ms, not 300 s and not 0.3 ms.
      expect(gap).toBeGreaterThanOrEqual(250);
      expect(gap).toBeLessThan(3000);

      const enqueued = performance.now();
      const delayed = await later.enqueue(undefined, { delay: '400ms' });
      expect((await later.get(delayed.id))?.state).toBe('delayed');
      await eventually(() => (ran.length === 1 ? true : undefined), 10_000, 'the delayed job');
      expect(ran[0]! - enqueued).toBeGreaterThanOrEqual(350);
      expect(ran[0]! - enqueued).toBeLessThan(3000);
    } finally {
      await app.shutdown();
    }
  });

  it('refuses a shutdownTimeout over an hour as a number, and malformed durations, naming them', () => {
    expect(() => new Jobs({ redis: 'redis://127.0.0.1:1', shutdownTimeout: 10_000 })).toThrow(
      /^shutdownTimeout is in seconds: 10000 s is over an hour/,
    );
    const jobs = new Jobs({ redis: 'redis://127.0.0.1:1', shutdownTimeout: '2h' });
    expect(jobs.shutdownTimeout).toBe(7200);
    expect(() => jobs.schedule('often', { every: '5 minutes' as never }, () => null)).toThrow(/every is a number of seconds or a string/);
    // delay and every take any length.
    expect(() => jobs.schedule('monthly', { every: 30 * 86_400 }, () => null)).not.toThrow();
    expect(() => jobs.define('bad', { lockDuration: -1 }, () => null)).toThrow(/lockDuration is a number of seconds ≥ 0/);
    const kind = jobs.define('fine', { payload: z.object({}) }, () => null);
    return expect(kind.enqueue({}, { delay: 'soon' as never })).rejects.toThrow(/delay is a number of seconds or a string/);
  });
});
