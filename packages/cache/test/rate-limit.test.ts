/**
 * RedisRateLimitStore on a real Redis: one limit shared by two app instances (N+k requests → exactly
 * k refused), Redis expiring the keys; and a private redis-server stopped while rate-limited traffic
 * flows: requests pass, one log line per outage, counting resumes once it is back.
 */
import { randomUUID } from 'node:crypto';
import { API } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { freePort, jsonLines, REDIS_URL, serviceAvailable } from '@fnapi/test-support';
import { type Logger, pino } from 'pino';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimitMiddleware, RedisRateLimitStore } from '../src/index.js';
import { PrivateRedis, redisServerInstalled, untilAnswers } from '@fnapi/test-support/private-redis';

const available = await serviceAvailable('Redis', REDIS_URL);

/** Waits until the store's client is connected. */
function connected(store: RedisRateLimitStore): Promise<void> {
  return untilAnswers(() => store.ping());
}

function appWith(store: RedisRateLimitStore, limit: number, logger?: Logger): API {
  const app = new API({ logger: false });
  app.addMiddleware(
    new RateLimitMiddleware({ limit, window: 60, store, logger, key: (request) => request.headers.get('x-client') ?? 'anon' }),
  );
  app.get('/items', () => [{ id: 1 }]);
  return app;
}

describe.skipIf(!available)('RedisRateLimitStore on the shared Redis', () => {
  const keyPrefix = `fnapi-test:${randomUUID()}:`;
  const stores: RedisRateLimitStore[] = [];
  const clients: TestClient[] = [];
  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      const store = new RedisRateLimitStore({ url: REDIS_URL, keyPrefix, timeout: 1 });
      stores.push(store);
      await connected(store);
      clients.push(await TestClient.start(appWith(store, 5)));
    }
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    const redis = createClient({ url: REDIS_URL });
    redis.on('error', () => {});
    await redis.connect();
    const keys = await redis.keys(`${keyPrefix}*`);
    if (keys.length > 0) await redis.del(keys);
    await redis.close();
    await Promise.all(stores.map((s) => s.close()));
  });

  it('holds a limit of N across two instances: N+k requests spread over both, exactly k refused', async () => {
    const headers = { 'x-client': 'spread' };
    const statuses: number[] = [];
    const remaining: string[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await clients[i % 2]!.get('/items', { headers });
      statuses.push(res.status);
      remaining.push(res.headers.ratelimit as string);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    expect(remaining.slice(0, 5).map((h) => h.split(';')[1])).toEqual(['r=4', 'r=3', 'r=2', 'r=1', 'r=0']);
  });

  it('counts atomically under concurrency from both instances', async () => {
    const headers = { 'x-client': 'burst' };
    const statuses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => clients[i % 2]!.get('/items', { headers }).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
  });

  it('keeps one sorted set per key that Redis expires after the window', async () => {
    const redis = createClient({ url: REDIS_URL });
    redis.on('error', () => {});
    await redis.connect();
    try {
      const key = `${keyPrefix}spread`;
      expect(await redis.type(key)).toBe('zset');
      expect(await redis.zCard(key)).toBe(5);
      const ttl = await redis.pTTL(key);
      expect(ttl).toBeGreaterThan(50_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
    } finally {
      await redis.close();
    }
  });
});

describe.skipIf(!available || !redisServerInstalled)('Redis going down under rate-limited traffic', () => {
  let redis: PrivateRedis;
  let store: RedisRateLimitStore;
  let client: TestClient;
  const { stream: sink, lines } = jsonLines();

  beforeAll(async () => {
    redis = new PrivateRedis(await freePort());
    await redis.start();
    store = new RedisRateLimitStore({ url: redis.url, timeout: 0.1 });
    await connected(store);
    client = await TestClient.start(appWith(store, 3, pino(sink)));
  });

  afterAll(async () => {
    await client?.close();
    await store?.close();
    await redis?.dispose();
  });

  const outageLines = () => lines.filter((line) => String(line.msg).startsWith('rate limit store unavailable'));
  const send = (who: string) => client.get('/items', { headers: { 'x-client': who } });

  it('lets requests through while Redis is down, logs the outage once, and counts again after', async () => {
    for (let i = 0; i < 3; i++) expect((await send('a')).status).toBe(200);
    expect((await send('a')).status).toBe(429);

    await redis.stop();
    for (let i = 0; i < 15; i++) {
      const started = performance.now();
      const res = await send('a');
      expect(res.status).toBe(200);
      expect(res.headers.ratelimit).toBeUndefined();
      expect(performance.now() - started).toBeLessThan(1000);
    }
    expect(outageLines()).toHaveLength(1);

    await redis.start();
    // The restarted server is empty: once the client reconnects, 'b' is counted from zero.
    await expect.poll(async () => (await send('b')).headers.ratelimit, { timeout: 10_000, interval: 100 }).toBeDefined();
    const after: number[] = [];
    for (let i = 0; i < 4; i++) after.push((await send('b')).status);
    expect(after).toEqual([200, 200, 429, 429]);
    expect(lines.filter((line) => String(line.msg).startsWith('rate limit store answers again'))).toHaveLength(1);

    await redis.stop();
    expect((await send('c')).status).toBe(200);
    expect(outageLines()).toHaveLength(2);
  });
});
