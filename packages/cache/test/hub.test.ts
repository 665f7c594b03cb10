/**
 * RedisHub on a real Redis: messages cross instances in publish order, one subscriber connection per
 * instance however many topics, bounded buffers with drops counted, an events endpoint that returns a
 * subscription, and an outage of a private redis-server: publish answers 503 meanwhile, and
 * subscriptions resume by themselves once Redis is back.
 */
import { randomUUID } from 'node:crypto';
import { API, ServiceUnavailableError, z } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { freePort, REDIS_URL, serviceAvailable } from '@fnapi/test-support';
import { createClient } from 'redis';
import { afterAll, describe, expect, it, vi } from 'vitest';
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
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    while (out.length < n) {
      const next = await Promise.race([iterator.next(), deadline]);
      if (next === undefined) throw new Error(`only ${out.length} of ${n} messages arrived`);
      if (next.done) break;
      out.push(next.value);
    }
  } finally {
    clearTimeout(timer);
  }
  return out;
}

describe.skipIf(!available)('RedisHub', () => {
  it('carries messages from one instance to another, in publish order', async () => {
    const prefix = `test:hub:${randomUUID()}:`;
    const a = hub(prefix);
    const b = hub(prefix);
    // a's publisher connected first: the publishes below go out as soon as b is ready.
    await a.publish('elsewhere', null);
    const sub = b.subscribe<{ n: number }>('room');
    await b.ready();
    const published: Promise<void>[] = [];
    for (let n = 0; n < 200; n++) published.push(a.publish('room', { n }));
    const got = await take(sub, 200);
    expect(got.map((m) => m.n)).toEqual([...Array(200).keys()]);
    // Counted once Redis acknowledged each PUBLISH, which may come after a subscriber already has it.
    await Promise.all(published);
    expect(a.stats().published).toBe(201);
    expect(b.stats()).toMatchObject({ topics: 1, subscriptions: 1, delivered: 200, dropped: 0 });
  });

  it('holds one subscriber connection however many topics', async () => {
    const prefix = `test:hub:${randomUUID()}:`;
    const h = hub(prefix);
    // Connected first, so what it sees right after ready() is what ready() promised.
    const admin = createClient({ url: REDIS_URL });
    await admin.connect();
    const subs = Array.from({ length: 50 }, (_, i) => h.subscribe(`t${i}`));
    await h.ready();
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
    for (let n = 0; n < 50; n++) await h.publish('busy', n);
    await vi.waitUntil(() => h.stats().delivered === 50, { timeout: 5000 });
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
      // The stream answered, so the endpoint has subscribed; ready() waits for Redis to confirm it.
      await h.ready();
      await h.publish('feed', { n: 1 });
      await h.publish('feed', { n: 2 });
      const events = await take(stream.events(), 2);
      expect(events.map((e) => JSON.parse(e.data))).toEqual([{ n: 1 }, { n: 2 }]);
      stream.close();
      await vi.waitUntil(() => h.stats().subscriptions === 0, { timeout: 2000 });
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
        // Made while Redis is away: ready only once Redis confirmed it, whether or not the hub has
        // noticed the outage yet.
        const during = b.subscribe<string>('down');
        let duringReady = false;
        void during.ready.then(() => {
          duringReady = true;
        });
        const started = Date.now();
        const error = await a.publish('chat', 'lost').catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ServiceUnavailableError);
        expect(Date.now() - started).toBeLessThan(1500);
        const res = await client.post('/say', { json: { text: 'lost' } });
        expect(res.status).toBe(503);
        expect(res.headers['content-type']).toBe('application/problem+json');
        expect(duringReady).toBe(false);

        await redis.start();
        // The subscriber reconnects and subscribes again by itself, 'chat' first (node-redis subscribes
        // again before it is ready), then 'down'.
        await vi.waitUntil(() => duringReady, { timeout: 10_000 });
        // The publisher reconnects by itself too; until then a publish fails at once.
        await vi.waitFor(() => a.publish('chat', 'after'), { timeout: 10_000, interval: 50 });
        expect(await take(sub, 1)).toEqual(['after']);
        await a.publish('down', 'back');
        expect(await take(during, 1)).toEqual(['back']);
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

describe.skipIf(!available)('RedisHub readiness', () => {
  it("a subscription's ready rejects with an AbortError when it ends first", async () => {
    const fresh = hub(`test:hub:${randomUUID()}:`);
    const abandoned = fresh.subscribe('gone');
    abandoned.end();
    const reason = await abandoned.ready.catch((error: unknown) => error);
    expect(reason).toBeInstanceOf(DOMException);
    expect((reason as DOMException).name).toBe('AbortError');
    const controller = new AbortController();
    const aborted = fresh.subscribe('gone', { signal: controller.signal });
    controller.abort();
    await expect(aborted.ready).rejects.toThrow(/ended before it was ready/);
    // Nothing left to wait for.
    await fresh.ready();
    expect(fresh.stats().subscriptions).toBe(0);
  });

  it('a publish stops waiting for the subscribe of a subscription that ended', async () => {
    const slowToGiveUp = new RedisHub({ url: REDIS_URL, keyPrefix: `test:hub:${randomUUID()}:`, logger: false, timeout: 5 });
    hubs.push(slowToGiveUp);
    const started = Date.now();
    const subscription = slowToGiveUp.subscribe('gone');
    // Waits for that SUBSCRIBE (a subscription made just before sees the message)...
    const publishing = slowToGiveUp.publish('gone', 1);
    // ...but not once the subscription is gone.
    subscription.end();
    await publishing;
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('a subscription to a topic this instance already listens to is ready at once', async () => {
    const h = hub(`test:hub:${randomUUID()}:`);
    const first = h.subscribe('t');
    await first.ready;
    const second = h.subscribe('t');
    let settled = false;
    void second.ready.then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(true);
  });
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

describe.skipIf(!available)('RedisHub: ready means every later message arrives', () => {
  it('subscribe, await ready, publish from another instance: 50 fresh instances, none missed', async () => {
    const prefix = `test:hub:${randomUUID()}:`;
    const publisher = hub(prefix);
    let received = 0;
    for (let round = 0; round < 50; round++) {
      // A fresh instance each time: its subscriber connection is still being made when it subscribes.
      const fresh = new RedisHub({ url: REDIS_URL, keyPrefix: prefix, logger: false });
      try {
        const subscription = fresh.subscribe<number>(`round-${round}`);
        if (round % 2 === 0) await subscription.ready;
        else await fresh.ready();
        // Published by the other instance, which waits for nothing of this one's: only `ready` orders them.
        await publisher.publish(`round-${round}`, round);
        expect(await take(subscription, 1, 2000)).toEqual([round]);
        received++;
      } finally {
        await fresh.close();
      }
    }
    expect(received).toBe(50);
  }, 60_000);
});
