import { jsonLines } from '@fnapi/test-support';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { Hub } from '../src/index.js';
import { MemoryHub } from '../src/extend.js';

describe('Hub', () => {
  it('delivers to the subscriptions made before a publish, in publish order', async () => {
    const hub = new Hub({ logger: false });
    await hub.publish('t', 'before anyone listened');
    const a = hub.subscribe<number>('t');
    const b = hub.subscribe<number>('t');
    const other = hub.subscribe<number>('u');
    for (let n = 0; n < 5; n++) await hub.publish('t', n);
    for (const sub of [a, b]) {
      const got: number[] = [];
      for (let n = 0; n < 5; n++) got.push((await sub.next()).value as number);
      expect(got).toEqual([0, 1, 2, 3, 4]);
    }
    expect(other.pending).toBe(0);
    expect(hub.stats()).toEqual({ topics: 2, subscriptions: 3, published: 6, delivered: 10, dropped: 0 });
  });

  it('drops the oldest past bufferSize, counts them and logs once per subscription', async () => {
    const { stream, lines } = jsonLines();
    const hub = new Hub({ bufferSize: 3, logger: pino(stream) });
    const slow = hub.subscribe<number>('t');
    const roomy = hub.subscribe<number>('t', { bufferSize: 100 });
    for (let n = 0; n < 10; n++) await hub.publish('t', n);
    expect(slow.dropped).toBe(7);
    expect(roomy.dropped).toBe(0);
    expect(hub.stats().dropped).toBe(7);
    const got: number[] = [];
    for (let n = 0; n < 3; n++) got.push((await slow.next()).value as number);
    expect(got).toEqual([7, 8, 9]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.filter((l) => l.topic === 't')).toHaveLength(1);
  });

  it('ends a subscription when its signal aborts, when the loop is left, and on close', async () => {
    const hub = new Hub({ logger: false });
    const controller = new AbortController();
    const sub = hub.subscribe('t', { signal: controller.signal });
    const waiting = sub.next();
    controller.abort();
    expect(await waiting).toEqual({ done: true, value: undefined });
    expect(hub.stats().subscriptions).toBe(0);
    const looped = hub.subscribe('t');
    setTimeout(() => void hub.publish('t', 1), 5);
    for await (const _ of looped) break;
    expect(hub.stats()).toMatchObject({ topics: 0, subscriptions: 0 });
    const open = hub.subscribe('t');
    await hub.close();
    expect(await open.next()).toEqual({ done: true, value: undefined });
    await expect(hub.publish('t', 1)).rejects.toThrow(/closed/);
  });

  it('is ready at once: a subscription once the hub has it, and rejects with an AbortError when it ended first', async () => {
    const hub: Hub = new Hub({ logger: false });
    expect(hub).toBeInstanceOf(MemoryHub);
    const sub = hub.subscribe('t');
    let settled = false;
    void sub.ready.then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(true);
    await hub.ready();
    const controller = new AbortController();
    controller.abort();
    const late = hub.subscribe('t', { signal: controller.signal });
    expect(late.ended).toBe(true);
    const reason = await late.ready.catch((error: unknown) => error);
    expect(reason).toBeInstanceOf(DOMException);
    expect((reason as DOMException).name).toBe('AbortError');
    expect(hub.stats().subscriptions).toBe(1);
    await hub.close();
  });
});
