import { API, Response, StreamingResponse } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { CacheMiddleware, MemoryCacheStore, type CacheEntry, type CacheStore } from '../src/index.js';
import { variantsApp } from './variants.js';

let client: TestClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

/** A clock the test moves by hand. */
function manualClock(start = 1_700_000_000_000) {
  let now = start;
  return { now: () => now, advance: (seconds: number) => (now += seconds * 1000) };
}

/** `/slow` answers once `slowArrivals` requests for it have reached the app (before the cache). */
function countingApp(cache: CacheMiddleware, slowArrivals = 1) {
  const calls: Record<string, number> = {};
  const count = (key: string) => (calls[key] = (calls[key] ?? 0) + 1);
  const app = new API({ logger: false });
  let arrived = 0;
  let allArrived!: () => void;
  const arrivals = new Promise<void>((resolve) => {
    allArrived = resolve;
  });
  app.addMiddleware(async (request, callNext) => {
    if (request.path === '/slow' && ++arrived === slowArrivals) allArrived();
    return callNext(request);
  });
  app.addMiddleware(cache);
  app.get('/items', (_input, request) => ({ n: count('items'), q: request.queryParams.toString() }));
  app.get('/bytes', () => new Response(new Uint8Array([0, 1, 0xc3, 0xa9])));
  app.get('/nostore', () => new Response({ n: count('nostore') }, { headers: { 'cache-control': 'no-store' } }));
  app.get('/private', () => new Response({ n: count('private') }, { headers: { 'cache-control': 'private, max-age=60' } }));
  app.get('/cookie', () => new Response({ n: count('cookie') }, { headers: { 'set-cookie': 'a=1' } }));
  app.get('/fail', () => new Response({ n: count('fail') }, { statusCode: 503 }));
  app.get('/stream', () => {
    count('stream');
    return new StreamingResponse(
      (async function* () {
        yield 'a';
        yield 'b';
      })(),
      { mediaType: 'text/plain' },
    );
  });
  app.get(
    '/lang',
    (_input, request) =>
      new Response({ n: count('lang'), lang: request.headers.get('accept-language') }, { headers: { vary: 'Accept-Language' } }),
  );
  app.get('/slow', async () => {
    count('slow');
    await arrivals;
    return { slow: true };
  });
  app.post('/items', () => ({ n: count('post') }));
  return { app, calls };
}

describe('CacheMiddleware', () => {
  it('misses, then hits with Age, then expires after ttl', async () => {
    const clock = manualClock();
    const { app, calls } = countingApp(new CacheMiddleware({ ttl: 30, now: clock.now }));
    client = await TestClient.start(app);

    const first = await client.get('/items');
    expect(first.status).toBe(200);
    expect(first.headers['x-cache']).toBe('MISS');
    expect(first.headers.age).toBeUndefined();
    expect(first.json()).toEqual({ n: 1, q: '' });

    clock.advance(12);
    const second = await client.get('/items');
    expect(second.headers['x-cache']).toBe('HIT');
    expect(second.headers.age).toBe('12');
    expect(second.headers['content-type']).toBe('application/json');
    expect(second.json()).toEqual({ n: 1, q: '' });
    expect(calls.items).toBe(1);

    clock.advance(19); // 31 s after storing: past the ttl
    const third = await client.get('/items');
    expect(third.headers['x-cache']).toBe('MISS');
    expect(third.json()).toEqual({ n: 2, q: '' });
    expect(calls.items).toBe(2);
  });

  it('expires a 1 s ttl once the second has passed, by the injected clock', async () => {
    const clock = manualClock();
    const { app, calls } = countingApp(new CacheMiddleware({ ttl: 1, now: clock.now }));
    client = await TestClient.start(app);
    expect((await client.get('/items')).headers['x-cache']).toBe('MISS');
    clock.advance(0.999);
    expect((await client.get('/items')).headers['x-cache']).toBe('HIT');
    clock.advance(0.002);
    expect((await client.get('/items')).headers['x-cache']).toBe('MISS');
    expect(calls.items).toBe(2);
  });

  it('keys on the query (order-insensitive) and on the method', async () => {
    const { app, calls } = countingApp(new CacheMiddleware());
    client = await TestClient.start(app);
    expect((await client.get('/items?a=1&b=2')).json()).toEqual({ n: 1, q: 'a=1&b=2' });
    expect((await client.get('/items?a=2')).json()).toEqual({ n: 2, q: 'a=2' });
    const again = await client.get('/items?b=2&a=1');
    expect(again.headers['x-cache']).toBe('HIT');
    expect(again.json()).toEqual({ n: 1, q: 'a=1&b=2' });
    const head = await client.head('/items?a=1&b=2');
    expect(head.headers['x-cache']).toBe('MISS');
    expect((await client.head('/items?a=1&b=2')).headers['x-cache']).toBe('HIT');
    expect(calls.items).toBe(3);
  });

  it('never caches requests with Authorization or Cookie', async () => {
    const { app, calls } = countingApp(new CacheMiddleware());
    client = await TestClient.start(app);
    for (let i = 0; i < 2; i++) {
      const res = await client.get('/items', { headers: { authorization: 'Bearer t' } });
      expect(res.headers['x-cache']).toBeUndefined();
      await client.get('/items', { headers: { cookie: 'sid=1' } });
    }
    expect(calls.items).toBe(4);
    // and an authorized request does not read what an anonymous one stored
    await client.get('/items');
    const authed = await client.get('/items', { headers: { authorization: 'Bearer t' } });
    expect(authed.json()).toEqual({ n: 6, q: '' });
  });

  it('never caches no-store, private, Set-Cookie, non-2xx or streamed responses', async () => {
    const { app, calls } = countingApp(new CacheMiddleware());
    client = await TestClient.start(app);
    for (const path of ['/nostore', '/private', '/cookie', '/fail', '/stream']) {
      const a = await client.get(path);
      const b = await client.get(path);
      expect(a.headers['x-cache'], path).toBe('MISS');
      expect(b.headers['x-cache'], path).toBe('MISS');
    }
    expect(calls).toMatchObject({ nostore: 2, private: 2, cookie: 2, fail: 2, stream: 2 });
    expect((await client.get('/stream')).body).toBe('ab');
  });

  it('does not cache methods outside `methods`', async () => {
    const { app, calls } = countingApp(new CacheMiddleware());
    client = await TestClient.start(app);
    await client.post('/items', { json: {} });
    const res = await client.post('/items', { json: {} });
    expect(res.headers['x-cache']).toBeUndefined();
    expect(calls.post).toBe(2);
  });

  it('keys on the request headers named in Vary', async () => {
    const { app, calls } = countingApp(new CacheMiddleware());
    client = await TestClient.start(app);
    const en = await client.get('/lang', { headers: { 'accept-language': 'en' } });
    const fr = await client.get('/lang', { headers: { 'accept-language': 'fr' } });
    expect(en.json()).toEqual({ n: 1, lang: 'en' });
    expect(fr.json()).toEqual({ n: 2, lang: 'fr' });
    const en2 = await client.get('/lang', { headers: { 'accept-language': 'en' } });
    const fr2 = await client.get('/lang', { headers: { 'accept-language': 'fr' } });
    expect(en2.headers['x-cache']).toBe('HIT');
    expect(en2.json()).toEqual({ n: 1, lang: 'en' });
    expect(fr2.headers['x-cache']).toBe('HIT');
    expect(fr2.json()).toEqual({ n: 2, lang: 'fr' });
    expect(calls.lang).toBe(2);
  });

  it('runs the handler once for concurrent misses of one key', async () => {
    // The first miss is held until all 8 have arrived: the others come while it runs.
    const { app, calls } = countingApp(new CacheMiddleware(), 8);
    client = await TestClient.start(app);
    const responses = await Promise.all(Array.from({ length: 8 }, () => client!.get('/slow')));
    expect(calls.slow).toBe(1);
    for (const res of responses) {
      expect(res.status).toBe(200);
      expect(res.json()).toEqual({ slow: true });
    }
    expect(responses.filter((r) => r.headers['x-cache'] === 'MISS')).toHaveLength(1);
    expect(responses.filter((r) => r.headers['x-cache'] === 'HIT')).toHaveLength(7);
  });

  it('stores plain JSON data (bytes as base64) that survives a JSON round trip', async () => {
    const raw = new Map<string, string>();
    const jsonStore: CacheStore = {
      async get(key) {
        const value = raw.get(key);
        return value === undefined ? undefined : (JSON.parse(value) as CacheEntry);
      },
      async set(key, value) {
        raw.set(key, JSON.stringify(value));
      },
      async delete(key) {
        raw.delete(key);
      },
    };
    const { app } = countingApp(new CacheMiddleware({ store: jsonStore }));
    client = await TestClient.start(app);
    const miss = await client.get('/bytes');
    expect(miss.headers['x-cache']).toBe('MISS');
    const stored = JSON.parse(raw.get('GET /bytes')!);
    expect(stored).toMatchObject({
      kind: 'response',
      status: 200,
      encoding: 'base64',
      body: Buffer.from([0, 1, 0xc3, 0xa9]).toString('base64'),
    });
    expect(stored.headers).toContainEqual(['content-type', 'application/octet-stream']);
    const hit = await client.get('/bytes');
    expect(hit.headers['x-cache']).toBe('HIT');
    expect(hit.headers['content-type']).toBe('application/octet-stream');
    expect(hit.body).toBe('\u0000\u0001é'); // the same bytes, read back as UTF-8
  });

  it('serves uncached when the store fails', async () => {
    const broken: CacheStore = {
      get() {
        throw new Error('down');
      },
      set() {
        return Promise.reject(new Error('down'));
      },
      delete() {},
    };
    const { app, calls } = countingApp(new CacheMiddleware({ store: broken, logger: silent() }));
    client = await TestClient.start(app);
    expect((await client.get('/items')).status).toBe(200);
    expect((await client.get('/items')).status).toBe(200);
    expect(calls.items).toBe(2);
  });

  it('caches one endpoint through its middleware option, and only that one', async () => {
    const cache = new CacheMiddleware();
    const app = new API({ logger: false });
    let n = 0;
    app.get('/books', { middleware: [cache] }, () => ({ n: ++n }));
    app.get('/authors', () => ({ n: ++n }));
    app.post('/books', { middleware: [] }, async () => {
      await cache.invalidate('/books');
      return { added: true };
    });
    client = await TestClient.start(app);
    expect((await client.get('/books?limit=5')).headers['x-cache']).toBe('MISS');
    expect((await client.get('/books?limit=5')).headers['x-cache']).toBe('HIT');
    expect((await client.get('/authors')).headers['x-cache']).toBeUndefined();
    await client.post('/books');
    expect((await client.get('/books?limit=5')).headers['x-cache']).toBe('MISS');
  });

  it('invalidate(path) drops every variant of the path: query strings, methods, Vary values', async () => {
    const cache = new CacheMiddleware();
    const app = variantsApp(cache, '/itemsx');
    client = await TestClient.start(app);
    const variants: [string, Record<string, string>][] = [
      ['/items', {}],
      ['/items?limit=10&offset=0', {}],
      ['/items?offset=20', { 'accept-language': 'fr' }],
      ['/items', { 'accept-language': 'de' }],
    ];
    const others = ['/items/1', '/itemsx'];
    for (const [url, headers] of variants) await client.get(url, { headers });
    for (const url of others) await client.get(url);
    const head = await client.request('HEAD', '/items?limit=10');
    expect(head.headers['x-cache']).toBe('MISS');
    for (const [url, headers] of variants) expect((await client.get(url, { headers })).headers['x-cache']).toBe('HIT');
    expect((await client.request('HEAD', '/items?limit=10')).headers['x-cache']).toBe('HIT');

    await cache.invalidate('/items');
    for (const [url, headers] of variants) expect((await client.get(url, { headers })).headers['x-cache']).toBe('MISS');
    expect((await client.request('HEAD', '/items?limit=10')).headers['x-cache']).toBe('MISS');
    for (const url of others) expect((await client.get(url)).headers['x-cache']).toBe('HIT');
  });

  it('invalidate(path) on a store without deletePrefix drops the bare path and warns once', async () => {
    const memory = new MemoryCacheStore<CacheEntry>();
    const plain: CacheStore = { get: (k) => memory.get(k), set: (k, v, t) => memory.set(k, v, t), delete: (k) => memory.delete(k) };
    const warnings: unknown[] = [];
    const logger = { ...silent(), warn: (...args: unknown[]) => warnings.push(args) };
    const cache = new CacheMiddleware({ store: plain, logger });
    const { app } = countingApp(cache);
    client = await TestClient.start(app);
    await client.get('/items');
    await cache.invalidate('/items');
    await cache.invalidate('/items');
    expect((await client.get('/items')).headers['x-cache']).toBe('MISS');
    expect(warnings).toHaveLength(1);
  });
});

describe('MemoryCacheStore', () => {
  it('evicts the least recently used entry past maxEntries', () => {
    const store = new MemoryCacheStore<number>({ maxEntries: 2 });
    store.set('a', 1, 60);
    store.set('b', 2, 60);
    expect(store.get('a')).toBe(1); // a is now the most recent
    store.set('c', 3, 60);
    expect(store.get('b')).toBeUndefined();
    expect(store.get('a')).toBe(1);
    expect(store.get('c')).toBe(3);
    expect(store.size).toBe(2);
  });

  it('expires entries after their ttl', () => {
    let now = 0;
    const store = new MemoryCacheStore<string>({ now: () => now });
    store.set('k', 'v', 2);
    now = 1999;
    expect(store.get('k')).toBe('v');
    now = 2000;
    expect(store.get('k')).toBeUndefined();
    expect(store.size).toBe(0);
  });
});

function silent() {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { warn() {}, error() {}, info() {} } as any;
}

describe('CacheMiddleware and request ids', () => {
  it('a HIT carries the id of the request it answers, not the cached one', async () => {
    const app = new API({ logger: false });
    app.addMiddleware(new CacheMiddleware({ ttl: 60 }));
    app.get('/cached', () => ({ ok: true }));
    const client = await TestClient.start(app);
    try {
      const miss = await client.get('/cached', { headers: { 'x-request-id': 'first-request' } });
      expect(miss.headers['x-cache']).toBe('MISS');
      expect(miss.headers['x-request-id']).toBe('first-request');
      const hit = await client.get('/cached', { headers: { 'x-request-id': 'second-request' } });
      expect(hit.headers['x-cache']).toBe('HIT');
      expect(hit.headers['x-request-id']).toBe('second-request');
      const generated = await client.get('/cached');
      expect(generated.headers['x-cache']).toBe('HIT');
      expect(generated.headers['x-request-id']).not.toMatch(/request$/);
    } finally {
      await client.close();
    }
  });
});
