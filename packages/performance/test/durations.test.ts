/**
 * The pool's timeouts and `maxWaitTime` are seconds, or strings with their unit; a number over an
 * hour (a millisecond value, most likely) is refused. Against the real PostgreSQL.
 */
import { DATABASE_URL, serviceAvailable } from '@fnapi/test-support';
import { describe, expect, it } from 'vitest';
import { batchProcess, ConnectionPool, PoolTimeoutError, QueryTimeoutError } from '../src/index.js';

const available = await serviceAvailable('PostgreSQL', DATABASE_URL);

describe('durations of the performance helpers', () => {
  it('refuses a number over an hour for each timeout, naming the unit', () => {
    for (const name of ['acquireTimeout', 'idleTimeout', 'queryTimeout'] as const) {
      expect(() => new ConnectionPool(DATABASE_URL, { minSize: 0, [name]: 30_000 }), name).toThrow(
        new RegExp(`^${name} is in seconds: 30000 s is over an hour`),
      );
    }
    expect(() => batchProcess({ maxWaitTime: 10_000 }, (xs: number[]) => xs)).toThrow(
      /^maxWaitTime is in seconds: 10000 s is over an hour/,
    );
    expect(() => batchProcess({ maxWaitTime: '10' as never }, (xs: number[]) => xs)).toThrow(
      /maxWaitTime is a number of seconds or a string/,
    );
  });

  it('flushes a batch maxWaitTime after its first call, given with a unit', async () => {
    const sizes: number[] = [];
    const load = batchProcess({ maxBatchSize: 100, maxWaitTime: '80ms' }, (xs: number[]) => {
      sizes.push(xs.length);
      return xs;
    });
    const t0 = performance.now();
    const first = load(1);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const second = load(2);
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    expect(sizes).toEqual([2]);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(70);
  });

  it.skipIf(!available)('times out an acquire and a query at timeouts given with a unit', async () => {
    const pool = new ConnectionPool(DATABASE_URL, {
      minSize: 1,
      maxSize: 1,
      acquireTimeout: '300ms',
      queryTimeout: '250ms',
      idleTimeout: '1m',
    });
    try {
      const held = await pool.acquire();
      const t0 = performance.now();
      await expect(pool.acquire()).rejects.toBeInstanceOf(PoolTimeoutError);
      const waited = performance.now() - t0;
      expect(waited).toBeGreaterThanOrEqual(250);
      expect(waited).toBeLessThan(3000);
      held.release();
      await expect(pool.query('select pg_sleep(5)')).rejects.toBeInstanceOf(QueryTimeoutError);
    } finally {
      await pool.close();
    }
  });
});
