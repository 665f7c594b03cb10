/**
 * ConnectionPool against the real PostgreSQL: sizes seen in pg_stat_activity, order and time-outs of
 * waiters, transactions seen through an independent client, and the faults — backends terminated
 * while idle or busy, the server gone and back — with no unhandled error and a pool that refills.
 */
import { API } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { DATABASE_URL, serviceAvailable, until } from '@fnapi/test-support';
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionPool, PoolTimeoutError, QueryTimeoutError } from '../src/index.js';
import { appName, backends, CuttableProxy, observer, urlWith } from './support.js';

const available = await serviceAvailable('PostgreSQL', DATABASE_URL);

describe.skipIf(!available)('ConnectionPool on PostgreSQL', () => {
  let db: pg.Client;
  const pools: ConnectionPool[] = [];
  const unhandled: unknown[] = [];
  const onUnhandled = (error: unknown) => unhandled.push(error);

  function pool(name: string, options: ConstructorParameters<typeof ConnectionPool>[1] = {}, url = urlWith(name)): ConnectionPool {
    const created = new ConnectionPool(url, options);
    pools.push(created);
    return created;
  }

  beforeAll(async () => {
    db = await observer();
    process.on('unhandledRejection', onUnhandled);
    process.on('uncaughtException', onUnhandled);
  });

  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.close()));
    expect(unhandled).toEqual([]);
  });

  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    process.off('uncaughtException', onUnhandled);
    await db?.end();
  });

  it('opens minSize connections from construction', async () => {
    const name = appName('min');
    const p = pool(name, { minSize: 3, maxSize: 5 });
    await until(async () => (await backends(db, name)).length === 3, 5000, '3 backends');
    expect(p.stats()).toEqual({ size: 3, idle: 3, inUse: 0, waiting: 0 });
  });

  it('never holds more than maxSize: 200 concurrent callers, all served', async () => {
    const name = appName('max');
    const p = pool(name, { minSize: 1, maxSize: 5 });
    let peak = 0;
    let sampling = true;
    const sampler = (async () => {
      // As often as the observer's connection answers.
      while (sampling) peak = Math.max(peak, (await backends(db, name)).length);
    })();
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        p.withConnection(async (conn) => {
          expect(p.stats().size).toBeLessThanOrEqual(5);
          const { rows } = await conn.query<{ n: number }>('select $1::int as n, pg_sleep(0.005)', [i]);
          return rows[0]!.n;
        }),
      ),
    );
    sampling = false;
    await sampler;
    expect(results).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect(peak).toBeGreaterThan(1);
    expect(peak).toBeLessThanOrEqual(5);
    expect(p.stats()).toMatchObject({ inUse: 0, waiting: 0 });
  });

  it('serves waiters in order and times them out with the pool state, as a 503 in a request', async () => {
    const name = appName('wait');
    const p = pool(name, { minSize: 1, maxSize: 1, acquireTimeout: 0.3 });
    const held = await p.acquire();
    const order: number[] = [];
    const first = p.acquire().then((c) => {
      order.push(1);
      return c;
    });
    const second = p.acquire().then((c) => {
      order.push(2);
      return c;
    });
    held.release();
    (await first).release();
    (await second).release();
    expect(order).toEqual([1, 2]);

    const blocker = await p.acquire();
    const started = performance.now();
    const failure = await p.acquire().then(
      () => undefined,
      (error: unknown) => error,
    );
    const waited = performance.now() - started;
    expect(failure).toBeInstanceOf(PoolTimeoutError);
    expect((failure as Error).message).toMatch(/within 0.3 s \(pool: 1\/1 connections, 1 in use, 0 idle, 1 waiting/);
    expect(waited).toBeGreaterThanOrEqual(280);
    expect(waited).toBeLessThan(1500);

    const app = new API({ logger: false });
    app.get('/count', () => p.query<{ n: number }>('select 1 as n').then((r) => r.rows[0]));
    const client = await TestClient.start(app);
    try {
      const res = await client.get('/count');
      expect(res.status).toBe(503);
      expect(res.json()).toMatchObject({ status: 503, title: 'Service Unavailable' });
      blocker.release();
      expect((await client.get('/count')).json()).toEqual({ n: 1 });
    } finally {
      await client.close();
    }
  });

  it('releases with `await using`', async () => {
    const p = pool(appName('using'), { minSize: 0, maxSize: 1 });
    {
      await using conn = await p.acquire();
      expect((await conn.query<{ one: number }>('select 1 as one')).rows).toEqual([{ one: 1 }]);
      expect(p.stats().inUse).toBe(1);
    }
    expect(p.stats()).toMatchObject({ inUse: 0, idle: 1 });
  });

  it('rolls back a thrown transaction: rows unchanged, no backend idle in transaction', async () => {
    const name = appName('tx');
    const table = `fnapi_tx_${name.slice(-8)}`;
    const p = pool(name, { minSize: 1, maxSize: 2 });
    await p.query(`create table ${table} (id int)`);
    try {
      await p.transaction(async (conn) => conn.query(`insert into ${table} values (1)`));
      await expect(
        p.transaction(async (conn) => {
          await conn.query(`insert into ${table} values (2)`);
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      expect((await db.query(`select count(*)::int as n from ${table}`)).rows).toEqual([{ n: 1 }]);
      expect((await backends(db, name)).filter((b) => b.state.startsWith('idle in transaction'))).toEqual([]);
    } finally {
      await db.query(`drop table if exists ${table}`);
    }
  });

  it('closes a connection released inside an aborted transaction instead of reusing it', async () => {
    const name = appName('aborted');
    const p = pool(name, { minSize: 1, maxSize: 1 });
    const conn = await p.acquire();
    const { rows } = await conn.query<{ pid: number }>('select pg_backend_pid() as pid');
    await conn.query('BEGIN');
    await expect(conn.query('select * from a_table_that_does_not_exist')).rejects.toThrow();
    conn.release();
    const next = await p.withConnection((c) => c.query<{ pid: number; tx: string }>('select pg_backend_pid() as pid'));
    expect(next.rows[0]!.pid).not.toBe(rows[0]!.pid);
    await until(async () => !(await backends(db, name)).some((b) => b.pid === rows[0]!.pid), 3000, 'the aborted backend to go');
  });

  it('survives pg_terminate_backend on idle and busy connections and refills to minSize', async () => {
    const name = appName('terminate');
    const p = pool(name, { minSize: 2, maxSize: 4 });
    await until(async () => (await backends(db, name)).length === 2, 5000, '2 backends');
    const busy = p
      .withConnection((c) => c.query('select pg_sleep(5)'))
      .then(
        () => 'finished',
        (error: Error) => error.message,
      );
    await until(async () => (await backends(db, name)).some((b) => b.state === 'active'), 3000, 'a busy backend');
    await db.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [name]);
    expect(await busy).toMatch(/terminat/i);
    await until(async () => p.stats().size === 2 && p.stats().idle === 2, 5000, 'the pool to refill');
    await until(async () => (await backends(db, name)).length === 2, 5000, '2 new backends');
    expect((await p.query<{ ok: number }>('select 1 as ok')).rows).toEqual([{ ok: 1 }]);
  });

  it('recovers when the server goes away while the pool is idle, without a restart', async () => {
    const proxy = await new CuttableProxy().start();
    try {
      const name = appName('restart');
      const p = pool(name, { minSize: 2, maxSize: 3, acquireTimeout: 3 }, proxy.url(name));
      await until(() => p.stats().idle === 2, 5000, '2 idle connections');
      proxy.down();
      await until(() => p.stats().idle === 0, 3000, 'the lost connections to be dropped');
      await until(() => proxy.refused > 0, 3000, 'the pool trying to reconnect while the server is away');
      proxy.up();
      expect((await p.query<{ ok: number }>('select 1 as ok')).rows).toEqual([{ ok: 1 }]);
      await until(() => p.stats().size === 2, 10_000, 'minSize again');
    } finally {
      await proxy.close();
    }
  });

  it('cancels a query past queryTimeout on the server, rejects with a 503 naming it, and reuses the connection', async () => {
    const name = appName('query-timeout');
    const p = pool(name, { minSize: 1, maxSize: 1, queryTimeout: 0.3 });
    const started = performance.now();
    const error = await p.query('select pg_sleep(5)').catch((e: unknown) => e);
    expect(performance.now() - started).toBeLessThan(1200);
    expect(error).toBeInstanceOf(QueryTimeoutError);
    expect((error as QueryTimeoutError).statusCode).toBe(503);
    expect((error as Error).message).toMatch(/queryTimeout of 0\.3 s: select pg_sleep\(\?\)/);
    // The server stops the query (its cancel may still be on its way on a busy machine, well before
    // pg_sleep's 5 s), and the same backend serves the next one.
    await until(async () => (await backends(db, name))[0]?.state === 'idle', 2000, 'the cancelled query to stop on the server');
    const [backend] = await backends(db, name);
    expect((await p.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid).toBe(backend!.pid);
    expect(p.stats().size).toBe(1);
  });

  it('gives up on a server that does not answer at all, one second past queryTimeout, never reusing that connection', async () => {
    const proxy = await new CuttableProxy().start();
    try {
      const name = appName('frozen');
      const p = pool(name, { minSize: 1, maxSize: 1, queryTimeout: 0.2, acquireTimeout: 3 }, proxy.url(name));
      await until(() => p.stats().idle === 1, 5000, 'a connection');
      proxy.freeze();
      const started = performance.now();
      await expect(p.query('select 1')).rejects.toBeInstanceOf(QueryTimeoutError);
      expect(performance.now() - started).toBeLessThan(2500);
      expect(p.stats().inUse).toBe(0);
    } finally {
      await proxy.close();
    }
  });

  it('leaves no backend after close()', async () => {
    const name = appName('close');
    const p = new ConnectionPool(urlWith(name), { minSize: 3, maxSize: 3 });
    await until(async () => (await backends(db, name)).length === 3, 5000, '3 backends');
    await p.close();
    await until(async () => (await backends(db, name)).length === 0, 3000, 'no backend');
    await expect(p.acquire()).rejects.toThrow('closed');
  });
});
