import { describe, expect, it } from 'vitest';
import { batchProcess } from '../src/index.js';

describe('batchProcess', () => {
  it('splits 25 calls of one window into 10, 10, 5 and answers in input order', async () => {
    const batches: number[][] = [];
    const double = batchProcess({ maxBatchSize: 10, maxWaitTime: 0.05 }, async (xs: number[]) => {
      batches.push(xs);
      return xs.map((x) => x * 2);
    });
    const results = await Promise.all(Array.from({ length: 25 }, (_, i) => double(i)));
    expect(results).toEqual(Array.from({ length: 25 }, (_, i) => i * 2));
    expect(batches.map((b) => b.length)).toEqual([10, 10, 5]);
  });

  it('rejects only the caller whose result is an Error', async () => {
    const load = batchProcess({ maxBatchSize: 10 }, (ids: number[]) => ids.map((id) => (id === 2 ? new Error(`no user ${id}`) : { id })));
    const outcomes = await Promise.allSettled([load(1), load(2), load(3)]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason.message).toBe('no user 2');
  });

  it('a thrown batch rejects its callers and no other', async () => {
    let call = 0;
    const load = batchProcess({ maxBatchSize: 2 }, async (ids: number[]) => {
      call++;
      if (call === 1) throw new Error('database down');
      return ids;
    });
    const outcomes = await Promise.allSettled([load(1), load(2), load(3), load(4)]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'fulfilled', 'fulfilled']);
  });

  it('a result list of the wrong length rejects the batch with a clear message', async () => {
    const load = batchProcess({}, (ids: number[]) => ids.slice(1));
    await expect(Promise.all([load(1), load(2), load(3)])).rejects.toThrow(
      'the batch function returned 2 results for 3 inputs; it must return one result per input, in order',
    );
  });

  it('maxWaitTime 0 flushes once the current tick’s calls are in', async () => {
    const sizes: number[] = [];
    const load = batchProcess({ maxWaitTime: 0 }, (xs: number[]) => {
      sizes.push(xs.length);
      return xs;
    });
    const a = load(1);
    const b = load(2);
    await Promise.resolve();
    const c = load(3); // still this tick's promise jobs
    await Promise.all([a, b, c]);
    await load(4);
    expect(sizes).toEqual([3, 1]);
  });

  it('waits at most maxWaitTime after the first call', async () => {
    const load = batchProcess({ maxBatchSize: 100, maxWaitTime: 0.1 }, (xs: number[]) => xs);
    const started = performance.now();
    await load(1);
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(90);
    expect(waited).toBeLessThan(1000);
  });

  it('runs batches concurrently: a slow batch does not hold back the next', async () => {
    const done: string[] = [];
    let fastDone!: () => void;
    const fastFinished = new Promise<void>((resolve) => {
      fastDone = resolve;
    });
    const load = batchProcess({ maxBatchSize: 1 }, async ([x]: string[]) => {
      // The slow batch ends only after the fast one: run one after the other, they would never end.
      if (x === 'slow') await fastFinished;
      done.push(x!);
      if (x === 'fast') fastDone();
      return [x!];
    });
    await Promise.all([load('slow'), load('fast')]);
    expect(done).toEqual(['fast', 'slow']);
  }, 2000);

  it('also works as batchProcess(options)(fn)', async () => {
    const load = batchProcess({ maxBatchSize: 5 })((xs: string[]) => xs.map((x) => x.toUpperCase()));
    expect(await Promise.all([load('a'), load('b')])).toEqual(['A', 'B']);
  });

  it('dedupes equal number keys within one batch; every caller gets its result', async () => {
    const batches: number[][] = [];
    const load = batchProcess({ maxBatchSize: 10 }, async (ids: number[]) => {
      batches.push(ids);
      return ids.map((id) => ({ id, name: `author ${id}` }));
    });
    const results = await Promise.all([load(1), load(1), load(2), load(2), load(1)]);
    expect(batches).toEqual([[1, 2]]);
    expect(results.map((r) => r.id)).toEqual([1, 1, 2, 2, 1]);
    expect(results[0]).toBe(results[1]);
  });

  it('maxBatchSize counts distinct keys', async () => {
    const batches: number[][] = [];
    const load = batchProcess({ maxBatchSize: 2, maxWaitTime: 5 }, (ids: number[]) => {
      batches.push(ids);
      return ids;
    });
    await Promise.all([load(1), load(1), load(1), load(2), load(3), load(3), load(4)]);
    expect(batches).toEqual([
      [1, 2],
      [3, 4],
    ]);
  });

  it('dedupes object keys by cacheKey; without it distinct objects stay distinct', async () => {
    const batches: { id: number }[][] = [];
    const fn = (keys: { id: number }[]) => {
      batches.push(keys);
      return keys.map((k) => k.id * 10);
    };
    const byId = batchProcess({ cacheKey: (k: { id: number }) => k.id }, fn);
    expect(await Promise.all([byId({ id: 1 }), byId({ id: 1 }), byId({ id: 2 })])).toEqual([10, 10, 20]);
    expect(batches).toEqual([[{ id: 1 }, { id: 2 }]]);
    batches.length = 0;
    const byIdentity = batchProcess({}, fn);
    await Promise.all([byIdentity({ id: 1 }), byIdentity({ id: 1 })]);
    expect(batches[0]).toHaveLength(2);
    batches.length = 0;
    const curried = batchProcess({ cacheKey: (k: { id: number }) => k.id })(fn);
    await Promise.all([curried({ id: 3 }), curried({ id: 3 })]);
    expect(batches).toEqual([[{ id: 3 }]]);
  });

  it('caches nothing across batches', async () => {
    let calls = 0;
    const load = batchProcess({}, (ids: number[]) => {
      calls++;
      return ids.map((id) => `${id}#${calls}`);
    });
    expect(await load(1)).toBe('1#1');
    expect(await load(1)).toBe('1#2');
  });

  it('a per-key Error rejects every caller of that key and no other', async () => {
    const load = batchProcess({}, (ids: number[]) => ids.map((id) => (id === 2 ? new Error(`no user ${id}`) : id)));
    const outcomes = await Promise.allSettled([load(2), load(1), load(2), load(3)]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'fulfilled', 'rejected', 'fulfilled']);
  });

  it('a throwing cacheKey rejects its caller alone', async () => {
    const load = batchProcess(
      {
        cacheKey: (k: { id: number }) => {
          if (k.id < 0) throw new Error('bad key');
          return k.id;
        },
      },
      (keys: { id: number }[]) => keys.map((k) => k.id),
    );
    const outcomes = await Promise.allSettled([load({ id: -1 }), load({ id: 1 })]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'fulfilled']);
  });
});
