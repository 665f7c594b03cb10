/**
 * RedisHub on a real Redis: messages cross instances in publish order, one subscriber connection per
 * instance however many topics, bounded buffers with drops counted, an events endpoint that returns a
 * subscription, and an outage of a private redis-server: publish answers 503 meanwhile, and
 * subscriptions resume by themselves once Redis is back.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { API, ServiceUnavailableError, z } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { freePort, REDIS_URL, serviceAvailable } from '@fnapi/test-support';
import { createClient } from 'redis';
import { afterAll, describe, expect, it } from 'vitest';
import { RedisHub } from '../src/index.js';
import { PrivateRedis, redisServerInstalled } from '@fnapi/test-support/private-redis';

const available = await serviceAvailable('Redis', REDIS_URL);
const hubs: RedisHub[] = [];
function hub(prefix: string, url = REDIS_URL, bufferSize?: number): RedisHub {
  const made = new RedisHub({ url, keyPrefix: prefix, logger: false, bufferSize });
  hubs.push(made);
  return made;
}
afterAll(async () => {
  await Promise.all(hubs.map((h) => h.close()));
});

/** Reads `n` items without ending the iteration (a `for await` that breaks would end a subscription). */
async function take<T>(iterable: AsyncIterable<T>, n: number, ms = 5000): Promise<T[]> {
  const iterator = iterable[Symbol.asyncIterator]();
  const out: T[] = [];
  const deadline = Date.now() + ms;
  while (out.length < n) {
    const left = deadline - Date.now();
    const next = await Promise.race([iterator.next(), sleep(Math.max(left, 0)).then(() => undefined)]);
    if (next === undefined) throw new Error(`only ${out.length} of ${n} messages arrived`);
    if (next.done) break;
    out.push(next.value);
  }
  return out;
}

describe.skipIf(!available)('RedisHub', () => {
  it('carries messages from one instance to another, in publish order', async () => {
    const prefix = `test:hub:${randomUUID()}:`;
    const a = hub(prefix);
    const b = hub(prefix);
    const sub = b.subscribe<{ n: number }>('room');
    await b.ready();
    await sleep(50);
    const published: Promise<void>[] = [];
    for (let n = 0; n < 200; n++) published.push(a.publish('room', { n }));
    const got = await take(sub, 200);
    expect(got.map((m) => m.n)).toEqual([...Array(200).keys()]);
    // Counted once Redis acknowledged each PUBLISH, which may come after a subscriber already has it.
    await Promise.all(published);
    expect(a.stats().published).toBe(200);
    expect(b.stats()).toMatchObject({ topics: 1, subscriptions: 1, delivered: 200, dropped: 0 });
  });

  it('holds one subscriber connection however many topics', async () => {
    const prefix = `test:hub:${randomUUID()}:`;
    const h = hub(prefix);
    const subs = Array.from({ length: 50 }, (_, i) => h.subscribe(`t${i}`));
    await h.ready();
    await sleep(100);
    const admin = createClient({ url: REDIS_URL });
    await admin.connect();
    try {
      const list = await admin.sendCommand<string>(['CLIENT', 'LIST']);
      const mine = list.split('\n').filter((line) => line.includes(`name=fnapi-hub:${prefix}`));
      expect(mine).toHaveLength(1);
      expect(mine[0]).toMatch(/ sub=50 /);
      const counts = (await admin.sendCommand<unknown[]>(['PUBSUB', 'NUMSUB', `${prefix}t0`, `${prefix}t49`])) as (string | number)[];
      expect(counts.map(String)).toEqual([`${prefix}t0`, '1', `${prefix}t49`, '1']);
    } finally {
      await admin.close();
    }
    for (const sub of subs) sub.end();
    expect(h.stats().topics).toBe(0);
  });

  it('a subscription that does not read keeps at most bufferSize messages: the oldest are dropped and counted', async () => {
    const prefix = `test:hub:${randomUUID()}:`;
    const h = hub(prefix, REDIS_URL, 10);
    const sub = h.subscribe<number>('busy');
    await h.ready();
    await sleep(50);
    for (let n = 0; n < 50; n++) await h.publish('busy', n);
    await sleep(200);
    expect(h.stats().dropped).toBe(40);
    expect(sub.dropped).toBe(40);
    expect(await take(sub, 10)).toEqual([40, 41, 42, 43, 44, 45, 46, 47, 48, 49]);
  });

  it('an events endpoint can return a subscription', async () => {
    const prefix = `test:hub:${randomUUID()}:`;
    const h = hub(prefix);
    const app = new API({ logger: false });
    // A quick ping flushes the stream's headers before the first message.
    app.get('/feed', { events: z.object({ n: z.int() }), ping: 0.1 }, (_input, request) => h.subscribe('feed', { signal: request.signal }));
    const client = await TestClient.start(app);
    try {
      const stream = await client.stream('/feed');
      expect(stream.status).toBe(200);
      await h.ready();
      await sleep(100);
      await h.publish('feed', { n: 1 });
      await h.publish('feed', { n: 2 });
      const events = await take(stream.events(), 2);
      expect(events.map((e) => JSON.parse(e.data))).toEqual([{ n: 1 }, { n: 2 }]);
      stream.close();
      const deadline = Date.now() + 2000;
      while (h.stats().subscriptions > 0 && Date.now() < deadline) await sleep(20);
      expect(h.stats().subscriptions).toBe(0);
    } finally {
      await client.close();
    }
  });
});

describe.skipIf(!redisServerInstalled)('RedisHub when Redis goes away', () => {
  it('publish answers 503 while Redis is down; subscriptions resume once it is back', async () => {
    const redis = new PrivateRedis(await freePort());
    await redis.start();
    try {
      const prefix = `test:hub:${randomUUID()}:`;
      const a = hub(prefix, redis.url);
      const b = hub(prefix, redis.url);
      const sub = b.subscribe<string>('chat');
      await b.ready();
      await sleep(50);
      await a.publish('chat', 'before');
      expect(await take(sub, 1)).toEqual(['before']);

      const app = new API({ logger: false });
      app.post('/say', { params: { text: z.string() } }, async ({ text }) => {
        await a.publish('chat', text);
        return { ok: true };
      });
      const client = await TestClient.start(app);
      try {
        await redis.stop();
        await sleep(100);
        const started = Date.now();
        const error = await a.publish('chat', 'lost').catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ServiceUnavailableError);
        expect(Date.now() - started).toBeLessThan(1500);
        const res = await client.post('/say', { json: { text: 'lost' } });
        expect(res.status).toBe(503);
        expect(res.headers['content-type']).toBe('application/problem+json');

        await redis.start();
        // The subscriber reconnects and subscribes again by itself; publishing resumes.
        const deadline = Date.now() + 10_000;
        let delivered: string[] = [];
        const reader = take(sub, 1, 10_000).then((got) => {
          delivered = got;
        });
        while (delivered.length === 0 && Date.now() < deadline) {
          await a.publish('chat', 'after').catch(() => {});
          await Promise.race([reader, sleep(200)]);
        }
        expect(delivered).toEqual(['after']);
        expect((await client.post('/say', { json: { text: 'again' } })).status).toBe(200);
      } finally {
        await client.close();
        await a.close();
        await b.close();
      }
    } finally {
      await redis.dispose();
    }
  }, 30_000);
});

describe.skipIf(!available)('RedisHub, subscribe then publish at once', () => {
  it('a subscription made on this instance sees a publish made right after it', async () => {
    // A new hub: the subscriber connection is still being made.
    const fresh = hub(`test:hub:${randomUUID()}:`);
    const first = fresh.subscribe<string>('now');
    await fresh.publish('now', 'first');
    expect(await take(first, 1)).toEqual(['first']);
    const later = fresh.subscribe<string>('later');
    await fresh.publish('later', 'second');
    expect(await take(later, 1)).toEqual(['second']);
  });
});
