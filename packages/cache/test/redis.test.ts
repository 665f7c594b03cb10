/**
 * RedisCacheStore on a real Redis: two app instances share hits, Redis keeps the TTL, and an outage
 * of a private redis-server (stopped and started again mid-run) never fails a request: BYPASS within
 * the store timeout, one log line per outage, hits again once Redis is back.
 */
import { randomUUID } from 'node:crypto';
import { API } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { freePort, jsonLines, REDIS_URL, serviceAvailable } from '@fnapi/test-support';
import { pino } from 'pino';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { variantsApp } from '../../middleware/test/variants.js';
import { CacheMiddleware, RedisCacheStore } from '../src/index.js';
import { PrivateRedis, redisServerInstalled, untilAnswers } from '@fnapi/test-support/private-redis';

const available = await serviceAvailable('Redis', REDIS_URL);

/** Waits until the store's client is connected. */
function connected(store: RedisCacheStore): Promise<void> {
  return untilAnswers(() => store.get('connection-probe'));
}

function appWith(store: RedisCacheStore, counter: { hits: number }, logger = pino({ enabled: false })): API {
  const app = new API({ logger: false });
  app.addMiddleware(new CacheMiddleware({ store, ttl: 30, logger }));
  app.get('/items/{id}', function item({ id }) {
    counter.hits++;
    return { id, served: counter.hits };
  });
  return app;
}

describe.skipIf(!available)('RedisCacheStore on the shared Redis', () => {
  const keyPrefix = `fnapi-test:${randomUUID()}:`;
  const stores: RedisCacheStore[] = [];
  const clients: TestClient[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await Promise.all(stores.map((s) => s.close()));
  });

  it('serves one instance’s cached response from another instance', async () => {
    const counter = { hits: 0 };
    for (let i = 0; i < 2; i++) {
      const store = new RedisCacheStore({ url: REDIS_URL, keyPrefix });
      stores.push(store);
      await connected(store);
      clients.push(await TestClient.start(appWith(store, counter)));
    }
    const first = await clients[0]!.get('/items/7');
    expect(first.headers['x-cache']).toBe('MISS');
    const second = await clients[1]!.get('/items/7');
    expect(second.headers['x-cache']).toBe('HIT');
    expect(second.json()).toEqual(first.json());
    expect(counter.hits).toBe(1);
  });

  it('lets Redis expire entries after the ttl (TTL seen by an independent client)', async () => {
    const redis = createClient({ url: REDIS_URL });
    redis.on('error', () => {});
    await redis.connect();
    try {
      const keys = await redis.keys(`${keyPrefix}*`);
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) {
        const ttl = await redis.pTTL(key);
        expect(ttl).toBeGreaterThan(25_000);
        expect(ttl).toBeLessThanOrEqual(30_000);
      }
      const entry = JSON.parse((await redis.get(keys[0]!))!);
      expect(entry).toMatchObject({ kind: 'response', status: 200 });
    } finally {
      await redis.del(await redis.keys(`${keyPrefix}*`));
      await redis.close();
    }
  });
});

describe.skipIf(!available)('CacheMiddleware.invalidate(path) on Redis', () => {
  it('drops every variant of the path (query strings, methods, Vary values) and nothing else', async () => {
    const keyPrefix = `fnapi-test:${randomUUID()}:`;
    const store = new RedisCacheStore({ url: REDIS_URL, keyPrefix });
    await connected(store);
    const cache = new CacheMiddleware({ store, ttl: 30, logger: pino({ enabled: false }) });
    // Glob characters in a path are matched literally: `/it*` must not reach `/items`.
    const app = variantsApp(cache, '/it*');
    const client = await TestClient.start(app);
    try {
      const variants: [string, Record<string, string>][] = [
        ['/items', {}],
        ['/items?limit=10&offset=0', {}],
        ['/items?offset=20', { 'accept-language': 'fr' }],
      ];
      for (const [url, headers] of variants) await client.get(url, { headers });
      await client.request('HEAD', '/items?limit=5');
      await client.get('/items/1');
      for (const [url, headers] of variants) expect((await client.get(url, { headers })).headers['x-cache']).toBe('HIT');
      await cache.invalidate('/it*');
      expect((await client.get('/items')).headers['x-cache']).toBe('HIT');
      await cache.invalidate('/items');
      for (const [url, headers] of variants) expect((await client.get(url, { headers })).headers['x-cache']).toBe('MISS');
      expect((await client.request('HEAD', '/items?limit=5')).headers['x-cache']).toBe('MISS');
      expect((await client.get('/items/1')).headers['x-cache']).toBe('HIT');
    } finally {
      await client.close();
      await store.deletePrefix('');
      await store.close();
    }
  });
});

describe('a Redis unreachable from the start', () => {
  it('fails every call at once: requests are served uncached without waiting for the timeout, one log line', async () => {
    const port = await freePort(); // nothing listens there
    // A long timeout makes waiting visible: a call that waited for it would take a full second.
    const store = new RedisCacheStore({ url: `redis://127.0.0.1:${port}`, timeout: 1 });
    const { stream: sink, lines } = jsonLines();
    const counter = { hits: 0 };
    const client = await TestClient.start(appWith(store, counter, pino(sink)));
    try {
      const times: number[] = [];
      for (let i = 0; i < 10; i++) {
        const started = performance.now();
        const res = await client.get(`/items/${i % 3}`);
        times.push(performance.now() - started);
        expect(res.status).toBe(200);
        expect(res.headers['x-cache']).toBe('BYPASS');
      }
      expect(counter.hits).toBe(10);
      for (const took of times) expect(took).toBeLessThan(600);
      expect(lines.filter((line) => String(line.msg).startsWith('cache store unavailable'))).toHaveLength(1);
    } finally {
      await client.close();
      await store.close();
    }
  });

  it('each store call rejects as unreachable, not after its timeout', async () => {
    const store = new RedisCacheStore({ url: `redis://127.0.0.1:${await freePort()}`, timeout: 5 });
    try {
      const started = performance.now();
      for (let i = 0; i < 5; i++) await expect(store.get('k')).rejects.toThrow(/^Redis is not reachable/);
      await expect(store.set('k', { kind: 'vary', headers: [] }, 1)).rejects.toThrow(/^Redis is not reachable/);
      expect(performance.now() - started).toBeLessThan(4000); // one timeout would be 5 s
    } finally {
      await store.close();
    }
  });

  it('takes its timeout in seconds, default 0.1', () => {
    expect(new RedisCacheStore({ url: 'redis://127.0.0.1:1' }).timeout).toBe(0.1);
    expect(new RedisCacheStore({ url: process.env.REDIS_URL, timeout: 2 }).timeout).toBe(2);
    expect(() => new RedisCacheStore({ timeout: 0 })).toThrow(/seconds/);
  });
});

describe.skipIf(!available || !redisServerInstalled)('Redis going down and coming back', () => {
  let redis: PrivateRedis;
  let store: RedisCacheStore;
  let client: TestClient;
  const counter = { hits: 0 };
  const { stream: sink, lines } = jsonLines();

  beforeAll(async () => {
    redis = new PrivateRedis(await freePort());
    await redis.start();
    store = new RedisCacheStore({ url: redis.url, timeout: 0.1 });
    await connected(store);
    client = await TestClient.start(appWith(store, counter, pino(sink)));
  });

  afterAll(async () => {
    await client?.close();
    await store?.close();
    await redis?.dispose();
  });

  const outageLines = () => lines.filter((line) => String(line.msg).startsWith('cache store unavailable'));

  it('serves every request during an outage within the store timeout, logs it once, and caches again after', async () => {
    expect((await client.get('/items/1')).headers['x-cache']).toBe('MISS');
    expect((await client.get('/items/1')).headers['x-cache']).toBe('HIT');

    await redis.stop();
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      const res = await client.get(`/items/${i % 3}`);
      const took = performance.now() - started;
      expect(res.status).toBe(200);
      expect(res.headers['x-cache']).toBe('BYPASS');
      expect(took).toBeLessThan(400);
      times.push(took);
    }
    expect(outageLines()).toHaveLength(1);
    // Reconnecting, the store fails at once: requests do not even wait for its 100 ms timeout.
    expect(times.sort((a, b) => a - b)[10]).toBeLessThan(60);

    await redis.start();
    await expect.poll(async () => (await client.get('/items/1')).headers['x-cache'], { timeout: 8000, interval: 100 }).toMatch(/MISS|HIT/);
    await expect.poll(async () => (await client.get('/items/1')).headers['x-cache'], { timeout: 3000, interval: 50 }).toBe('HIT');
    expect(lines.some((line) => String(line.msg).startsWith('cache store answers again'))).toBe(true);

    await redis.stop();
    expect((await client.get('/items/2')).headers['x-cache']).toBe('BYPASS');
    expect(outageLines()).toHaveLength(2);
  });
});
