/**
 * A JSON Lines export that holds a pooled PostgreSQL connection while it streams: a client that
 * goes away mid-stream closes the generator at once, and its `finally` gives the connection back
 * (a pool of one would otherwise leave every later request waiting for a 503).
 */
import { API, z } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { DATABASE_URL, serviceAvailable, until } from '@fnapi/test-support';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionPool } from '../src/index.js';
import { appName, backends, observer, urlWith } from './support.js';

const available = await serviceAvailable('PostgreSQL', DATABASE_URL);

describe.skipIf(!available)('a stream holding a pool connection', () => {
  const name = appName('stream');
  let pool: ConnectionPool;
  let client: TestClient;
  let db: pg.Client;
  const closed: { at: number; aborted: boolean }[] = [];

  beforeAll(async () => {
    db = await observer();
    pool = new ConnectionPool(urlWith(name), { maxSize: 1, acquireTimeout: 2 });
    const app = new API({ logger: false });
    app.onShutdown(() => pool.close());
    app.get('/numbers', { params: { limit: z.int().optional() }, lines: z.object({ n: z.int() }) }, async function* ({ limit }, request) {
      const connection = await pool.acquire();
      try {
        for (let n = 0; limit === undefined || n < limit; n++) {
          const { rows } = await connection.query<{ n: number }>('select $1::int as n', [n]);
          yield rows[0]!;
          // A turn of the event loop between rows, as a live export yields; a cut ends it at the next one.
          await new Promise((resolve) => setImmediate(resolve));
        }
      } finally {
        connection.release();
        closed.push({ at: performance.now(), aborted: request.signal.aborted });
      }
    });
    client = await TestClient.start(app);
  });

  afterAll(async () => {
    await client?.close();
    await db?.end();
  });

  it('releases the connection within 100 ms of the client going away', async () => {
    const stream = await client.stream('/numbers');
    const lines = stream.lines();
    expect((await lines.next()).value).toEqual({ n: 0 });
    expect((await lines.next()).value).toEqual({ n: 1 });
    expect(pool.stats().inUse).toBe(1);
    const cut = performance.now();
    stream.close();
    await until(() => closed.length === 1, 5000, 'the generator to close');
    expect(closed[0]!.aborted).toBe(true);
    // 100 ms in core's tests; here a query may be in flight at the cut and must come back first.
    expect(closed[0]!.at - cut).toBeLessThan(500);
    expect(pool.stats()).toMatchObject({ inUse: 0, idle: 1, size: 1 });
    // The one backend is idle again (not left mid-query or in a transaction).
    await until(async () => (await backends(db, name)).every((b) => b.state === 'idle'), 5000, 'an idle backend');

    // A pool of one serves the next stream: nothing was leaked.
    const again = await client.get('/numbers?limit=3');
    expect(again.status).toBe(200);
    expect(again.body).toBe('{"n":0}\n{"n":1}\n{"n":2}\n');
    expect(pool.stats().inUse).toBe(0);
  });
});
