/**
 * Worker processes that die or are told to stop, on each store: a worker SIGKILLed mid-job (another
 * worker completes the job once its lock expires), and SIGTERM with running jobs (a short one
 * finishes, a long one returns to the queue at the shutdown timeout; none is lost).
 */
import { fileURLToPath } from 'node:url';
import { DATABASE_URL, REDIS_URL } from '@fnapi/test-support';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from '@fnapi/core';
import { Jobs } from '../src/index.js';
import { type ChildLog, eventually, postgresStore, redisStore, startChild } from './support.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const fixture = fileURLToPath(new URL('./fixtures/worker.ts', import.meta.url));
const stores = [await redisStore(), await postgresStore()];

for (const store of stores) {
  describe.skipIf(!store.available)(`worker faults on ${store.name}`, () => {
    const children: ChildLog[] = [];
    const producers: Jobs[] = [];
    afterAll(async () => {
      for (const c of children) c.child.kill('SIGKILL');
      await Promise.all(producers.map((p) => p.close()));
      await store.cleanup();
    });

    function setup(shutdownTimeout = 10) {
      const options = store.options();
      const url = store.name === 'redis' ? REDIS_URL : DATABASE_URL;
      const producer = new Jobs({ ...options, logger: undefined });
      producers.push(producer);
      const hold = producer.define('hold', { payload: z.object({ ms: z.int() }), attempts: 3 }, () => undefined);
      const worker = () => {
        const child = startChild(
          [fixture],
          {
            JOBS_STORE: store.name,
            JOBS_URL: url,
            JOBS_PREFIX: options.prefix,
            SHUTDOWN_TIMEOUT: String(shutdownTimeout),
          },
          here,
        );
        children.push(child);
        return child;
      };
      return { hold, worker };
    }

    it('a worker SIGKILLed mid-job: another worker completes the job after the lock expires', async () => {
      const { hold, worker } = setup();
      const first = worker();
      await first.seen((l) => typeof l.msg === 'string' && l.msg.startsWith('fnapi worker running'));
      const { id } = await hold.enqueue({ ms: 1500 });
      await first.seen((l) => l.msg === 'job started' && l.jobId === id);
      first.child.kill('SIGKILL');
      // A second worker starts while the job still belongs to the dead one.
      const second = worker();
      await first.exited;
      expect((await hold.get(id))?.state).toBe('active');
      const info = await eventually(async () => {
        const i = await hold.get(id);
        return i?.state === 'completed' ? i : undefined;
      }, 30_000);
      expect(info.result).toEqual({ worker: second.child.pid, attempt: 2 });
      expect(info.attempt).toBe(2);
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
    }, 60_000);

    it('SIGTERM with running jobs: the short one finishes, the long one returns to the queue; none is lost', async () => {
      const { hold, worker } = setup(1);
      const first = worker();
      await first.seen((l) => typeof l.msg === 'string' && l.msg.startsWith('fnapi worker running'));
      const short = await hold.enqueue({ ms: 300 });
      const long = await hold.enqueue({ ms: 8000 });
      await first.seen((l) => l.msg === 'job started' && l.jobId === short.id);
      await first.seen((l) => l.msg === 'job started' && l.jobId === long.id);
      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);
      expect((await hold.get(short.id))?.state).toBe('completed');
      // Back in the queue at once: not left for the lock to expire.
      expect((await hold.get(long.id))?.state).toBe('waiting');
      const second = worker();
      await second.seen((l) => l.msg === 'job started' && l.jobId === long.id);
      second.child.kill('SIGKILL');
    }, 60_000);
  });
}
