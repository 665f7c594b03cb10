import { type Duration, durationSeconds, HOUR } from '@fnapi/core/extend';

export interface BatchOptions<I = never> {
  /** Most distinct keys in one batch; a full batch runs at once. Default 100. */
  maxBatchSize?: number | undefined;
  /**
   * Seconds after a batch's first call before it runs, if it is not full first. `0` runs it once the
   * current tick's calls are in (DataLoader's behaviour). Default 0. A string takes a unit (`'10ms'`); a
   * number over an hour is refused.
   */
  maxWaitTime?: Duration | undefined;
  /**
   * Maps a key to what equal keys share, for object keys (e.g. `(k) => k.id`). Equal keys within one
   * batch reach the batch function once. Default: the key itself, compared with `===`.
   */
  cacheKey?: ((key: I) => unknown) | undefined;
}

/** One result per input, in order; an `Error` at position i rejects caller i alone. */
export type BatchFunction<I, O> = (inputs: I[]) => readonly (O | Error)[] | Promise<readonly (O | Error)[]>;

interface Caller<O> {
  resolve(value: O): void;
  reject(error: unknown): void;
}

/** One batch: its distinct inputs in first-call order, and the callers waiting on each. */
interface Batch<I, O> {
  inputs: I[];
  callers: Caller<O>[][];
  index: Map<unknown, number>;
}

/** Runs `run` once the promise jobs of this tick have settled, as DataLoader does. */
function afterThisTick(run: () => void): void {
  Promise.resolve().then(() => process.nextTick(run));
}

function batcher<I, O>(options: BatchOptions<I>, fn: BatchFunction<I, O>): (input: I) => Promise<O> {
  const maxBatchSize = options.maxBatchSize ?? 100;
  const maxWaitTime = durationSeconds('maxWaitTime', options.maxWaitTime ?? 0, { maxNumber: HOUR });
  const cacheKey = options.cacheKey;
  if (!Number.isInteger(maxBatchSize) || maxBatchSize < 1) throw new RangeError('maxBatchSize must be a whole number of at least 1');
  if (typeof fn !== 'function') throw new TypeError('batchProcess needs a batch function');
  if (cacheKey !== undefined && typeof cacheKey !== 'function') throw new TypeError('cacheKey must be a function');
  let current: Batch<I, O> | undefined;
  let timer: NodeJS.Timeout | undefined;

  const flush = (batch: Batch<I, O>) => {
    if (current === batch) {
      current = undefined;
      clearTimeout(timer);
      timer = undefined;
    }
    // Not awaited: batches run concurrently, a slow one does not hold back the next.
    void run(batch);
  };

  const rejectAll = (batch: Batch<I, O>, error: unknown) => {
    for (const callers of batch.callers) for (const caller of callers) caller.reject(error);
  };

  const run = async (batch: Batch<I, O>) => {
    const { inputs } = batch;
    let results: readonly (O | Error)[];
    try {
      results = await fn(inputs);
    } catch (error) {
      rejectAll(batch, error);
      return;
    }
    if (!Array.isArray(results) || results.length !== inputs.length) {
      const got = Array.isArray(results) ? `${results.length} results` : `a ${results === null ? 'null' : typeof results}`;
      rejectAll(
        batch,
        new TypeError(
          `batchProcess: the batch function returned ${got} for ${inputs.length} inputs; it must return one result per input, in order`,
        ),
      );
      return;
    }
    batch.callers.forEach((callers, i) => {
      const result = results[i];
      for (const caller of callers) {
        if (result instanceof Error) caller.reject(result);
        else caller.resolve(result as O);
      }
    });
  };

  return (input: I) =>
    new Promise<O>((resolve, reject) => {
      // Computed before a batch opens, so a throwing cacheKey rejects this caller alone.
      const key = cacheKey === undefined ? input : cacheKey(input);
      if (current === undefined) {
        const batch: Batch<I, O> = { inputs: [], callers: [], index: new Map() };
        current = batch;
        if (maxWaitTime === 0) afterThisTick(() => current === batch && flush(batch));
        else timer = setTimeout(() => flush(batch), maxWaitTime * 1000);
      }
      const batch = current;
      const seen = batch.index.get(key);
      if (seen !== undefined) {
        batch.callers[seen]?.push({ resolve, reject });
        return;
      }
      batch.index.set(key, batch.inputs.length);
      batch.inputs.push(input);
      batch.callers.push([{ resolve, reject }]);
      if (batch.inputs.length >= maxBatchSize) flush(batch);
    });
}

/**
 * Collects calls into batches for one call of `fn` each: a batch runs when it holds `maxBatchSize`
 * items or `maxWaitTime` seconds after its first call, whichever comes first. DataLoader's rules
 * where they apply: results in input order, an `Error` result rejects its caller alone, a throw or a
 * result list of the wrong length rejects every caller of that batch and no other. Equal keys within
 * one batch (`===`, or equal `cacheKey(key)`) reach `fn` once and share its result; nothing is cached
 * across batches.
 *
 * `batchProcess(options, fn)` returns the batched function; `batchProcess(options)(fn)` too.
 */
export function batchProcess<I, O>(options: BatchOptions<I>, fn: BatchFunction<I, O>): (input: I) => Promise<O>;
export function batchProcess(options?: BatchOptions): <I, O>(fn: BatchFunction<I, O>) => (input: I) => Promise<O>;
export function batchProcess<I, O>(options: BatchOptions = {}, fn?: BatchFunction<I, O>) {
  // BatchOptions<never> takes any cacheKey; the overloads above tie it to the key type where known.
  if (fn !== undefined) return batcher(options as BatchOptions<I>, fn);
  return <I2, O2>(f: BatchFunction<I2, O2>) => batcher(options as BatchOptions<I2>, f);
}
