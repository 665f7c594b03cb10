/** RateLimitMiddleware over real HTTP: sliding window, 429 + Retry-After, IETF headers, keys, skip, store outages. */
import { API, type APIOptions } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryRateLimitStore, RateLimitMiddleware, type RateLimitOptions, type RateLimitStore } from '../src/index.js';

let client: TestClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

function buildApp(options: RateLimitOptions, apiOptions: APIOptions = {}): API {
  const app = new API({ logger: false, ...apiOptions });
  app.addMiddleware(new RateLimitMiddleware(options));
  app.get('/items', () => [{ id: 1 }]);
  app.get('/health', () => ({ ok: true }));
  return app;
}

function clock(start = 1_700_000_000_000) {
  const state = { now: start };
  return { state, now: () => state.now };
}

describe('RateLimitMiddleware', () => {
  it('lets `limit` requests through per window, then answers 429 with Retry-After and a problem body', async () => {
    const time = clock();
    const store = new MemoryRateLimitStore({ now: time.now });
    client = await TestClient.start(buildApp({ limit: 3, window: 60, store }));
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await client.get('/items');
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit-policy']).toBe('default;q=3;w=60');
      remaining.push(res.headers.ratelimit as string);
      time.state.now += 10_000;
    }
    expect(remaining).toEqual(['default;r=2;t=60', 'default;r=1;t=50', 'default;r=0;t=40']);
    const refused = await client.get('/items');
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toBe('application/problem+json');
    expect(refused.json()).toMatchObject({ status: 429, title: 'Too Many Requests' });
    expect(refused.headers['retry-after']).toBe('30');
    expect(refused.headers.ratelimit).toBe('default;r=0;t=30');
    expect(refused.headers['ratelimit-policy']).toBe('default;q=3;w=60');
    expect(refused.headers['x-request-id']).toBeTruthy();
  });

  it('slides: a slot frees up when the oldest request leaves the window, not at a fixed boundary', async () => {
    const time = clock();
    const store = new MemoryRateLimitStore({ now: time.now });
    client = await TestClient.start(buildApp({ limit: 2, window: 10, store }));
    expect((await client.get('/items')).status).toBe(200); // t=0
    time.state.now += 6_000;
    expect((await client.get('/items')).status).toBe(200); // t=6
    time.state.now += 3_000;
    expect((await client.get('/items')).status).toBe(429); // t=9: both still inside
    time.state.now += 1_001;
    expect((await client.get('/items')).status).toBe(200); // t=10.001: the first left
    expect((await client.get('/items')).status).toBe(429); // the t=6 one is still in
    time.state.now += 6_000;
    const back = await client.get('/items');
    expect(back.status).toBe(200);
  });

  it('counts each client address apart by default (behind a trusted proxy, the forwarded one)', async () => {
    client = await TestClient.start(buildApp({ limit: 1, window: 60 }, { trustProxy: true }));
    const as = (ip: string) => client!.get('/items', { headers: { 'x-forwarded-for': ip } });
    expect((await as('203.0.113.1')).status).toBe(200);
    expect((await as('203.0.113.1')).status).toBe(429);
    expect((await as('203.0.113.2')).status).toBe(200);
  });

  it('takes a key function and skips what skip() says', async () => {
    const app = buildApp({
      limit: 1,
      window: 60,
      key: (request) => request.headers.get('x-api-key') ?? 'anonymous',
      skip: (request) => request.path === '/health',
    });
    client = await TestClient.start(app);
    const key = (k: string) => ({ headers: { 'x-api-key': k } });
    expect((await client.get('/items', key('a'))).status).toBe(200);
    expect((await client.get('/items', key('a'))).status).toBe(429);
    expect((await client.get('/items', key('b'))).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      const health = await client.get('/health', key('a'));
      expect(health.status).toBe(200);
      expect(health.headers.ratelimit).toBeUndefined();
    }
  });

  it('never lets concurrent requests take more than `limit` slots', async () => {
    client = await TestClient.start(buildApp({ limit: 5, window: 60 }));
    const statuses = await Promise.all(Array.from({ length: 12 }, () => client!.get('/items').then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(7);
  });

  it('lets every request through while the store fails, logs once per outage, and limits again after', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const memory = new MemoryRateLimitStore();
    const flaky = { down: false };
    const store: RateLimitStore = {
      async hit(key, window, limit) {
        if (flaky.down) throw new Error('connection refused');
        return memory.hit(key, window, limit);
      },
    };
    client = await TestClient.start(buildApp({ limit: 2, window: 60, store, logger }));
    expect((await client.get('/items')).status).toBe(200);
    flaky.down = true;
    for (let i = 0; i < 5; i++) {
      const res = await client.get('/items');
      expect(res.status).toBe(200);
      expect(res.headers.ratelimit).toBeUndefined();
    }
    expect(lines.filter((l) => l.level === 40)).toHaveLength(1);
    flaky.down = false;
    expect((await client.get('/items')).status).toBe(200);
    expect((await client.get('/items')).status).toBe(429);
    expect(lines.filter((l) => l.msg === 'rate limit store answers again; limiting resumed')).toHaveLength(1);
    flaky.down = true;
    await client.get('/items');
    await client.get('/items');
    expect(lines.filter((l) => l.level === 40)).toHaveLength(2);
  });

  it('declares 429 for the document and refuses bad options', () => {
    expect(new RateLimitMiddleware({ limit: 1, window: 1 }).responses).toEqual({ 429: 'Too many requests' });
    expect(() => new RateLimitMiddleware({ limit: 0, window: 1 })).toThrow(RangeError);
    expect(() => new RateLimitMiddleware({ limit: 1, window: 0 })).toThrow(RangeError);
  });
});

describe('MemoryRateLimitStore', () => {
  it('keeps at most maxKeys keys, dropping the least recently seen', () => {
    const store = new MemoryRateLimitStore({ maxKeys: 3 });
    for (const key of ['a', 'b', 'c']) store.hit(key, 60, 1);
    store.hit('a', 60, 1); // refused, but seen: b is now the oldest
    store.hit('d', 60, 1);
    expect(store.size).toBe(3);
    expect(store.hit('a', 60, 1).count).toBe(2); // still limited
    expect(store.hit('b', 60, 1).count).toBe(1); // was dropped: counted afresh
  });
});
