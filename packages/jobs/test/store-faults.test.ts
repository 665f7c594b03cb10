/**
 * The store going away and coming back, on private instances (never the shared ones): Redis killed and
 * restarted, PostgreSQL stopped and started. Meanwhile enqueue fails at once with a 503
 * `ServiceUnavailableError`; nothing enqueued before is lost; the worker that lived through the outage
 * runs every job once the store is back.
 */
import { REQUIRE_SERVICES } from '@fnapi/test-support';
import { afterAll, describe, expect, it } from 'vitest';
import { ServiceUnavailableError, z } from '@fnapi/core';
import { silentLogger } from '@fnapi/core/extend';
import { Jobs } from '../src/index.js';
import { type PrivateService, postgresBin, privatePostgres, privateRedis, redisServerAvailable } from './services.js';
import { eventually } from './support.js';

function available(what: string, ok: boolean): boolean {
  if (ok) return true;
  if (REQUIRE_SERVICES) throw new Error(`FNAPI_REQUIRE_SERVICES=1 but ${what} is not installed`);
  console.warn(`!!! SKIPPED: ${what} is not installed`);
  return false;
}

const cases = [
  { name: 'Redis', ok: available('redis-server', redisServerAvailable()), make: privateRedis, store: 'redis' as const },
  {
    name: 'PostgreSQL',
    ok: available('PostgreSQL server binaries', postgresBin() !== undefined),
    make: privatePostgres,
    store: 'postgres' as const,
  },
];

for (const c of cases) {
  describe.skipIf(!c.ok)(`${c.name} stopped and restarted`, () => {
    let service: PrivateService | undefined;
    let jobs: Jobs | undefined;
    afterAll(async () => {
      await jobs?.close();
      await service?.destroy();
    });

    it('enqueue fails clearly while it is down; nothing enqueued before is lost; the worker goes on', async () => {
      service = await c.make();
      const ran: number[] = [];
      jobs = new Jobs({ [c.store]: service.url, prefix: 'faults', shutdownTimeout: 1, logger: silentLogger() });
      const count = jobs.define('count', { payload: z.object({ n: z.int() }), concurrency: 4 }, ({ n }) => {
        ran.push(n);
        return { n };
      });
      await jobs.start();
      // Enqueued before the outage, to run after it.
      const before = [];
      for (let n = 0; n < 5; n++) before.push(await count.enqueue({ n }, { delay: 1.5 }));
      await service.stop();

      const started = Date.now();
      const error = await count.enqueue({ n: 99 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServiceUnavailableError);
      expect((error as ServiceUnavailableError).statusCode).toBe(503);
      expect((error as Error).message).toMatch(/job store .* unavailable|unreachable/);
      expect(Date.now() - started).toBeLessThan(6000);

      await service.start();
      const after = await eventually(() => count.enqueue({ n: 5 }).catch(() => undefined), 15_000, 'an enqueue after the restart');
      await eventually(() => (ran.length >= 6 ? true : undefined), 20_000, 'every job to run');
      expect([...ran].sort()).toEqual([0, 1, 2, 3, 4, 5]);
      // A handler's return is recorded just after it ran: wait for each job's state to say so.
      for (const job of [...before, after]) {
        await eventually(
          async () => ((await count.get(job.id))?.state === 'completed' ? true : undefined),
          10_000,
          `job ${job.id} completed`,
        );
      }
    }, 30_000);
  });
}
