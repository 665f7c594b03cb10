export interface BatchOptions {
  /** Most items in one batch; a full batch runs at once. Default 100. */
  maxBatchSize?: number;
  /**
   * Seconds after a batch's first call before it runs, if it is not full first. `0` runs it once the
   * current tick's calls are in (DataLoader's behaviour). Default 0.
   */
  maxWaitTime?: number;
}

/** One result per input, in order; an `Error` at position i rejects caller i alone. */
export type BatchFunction<I, O> = (inputs: I[]) => readonly (O | Error)[] | Promise<readonly (O | Error)[]>;

interface Pending<I, O> {
  input: I;
  resolve(value: O): void;
  reject(error: unknown): void;
}

/** Runs `run` once the promise jobs of this tick have settled, as DataLoader does. */
function afterThisTick(run: () => void): void {
  Promise.resolve().then(() => process.nextTick(run));
}

function batcher<I, O>(options: BatchOptions, fn: BatchFunction<I, O>): (input: I) => Promise<O> {
  const maxBatchSize = options.maxBatchSize ?? 100;
  const maxWaitTime = options.maxWaitTime ?? 0;
  if (!Number.isInteger(maxBatchSize) || maxBatchSize < 1) throw new RangeError('maxBatchSize must be a whole number of at least 1');
  if (!(maxWaitTime >= 0)) throw new RangeError('maxWaitTime must be 0 or more seconds');
  if (typeof fn !== 'function') throw new TypeError('batchProcess needs a batch function');
  let current: Pending<I, O>[] | undefined;
  let timer: NodeJS.Timeout | undefined;

  const flush = (batch: Pending<I, O>[]) => {
    if (current === batch) {
      current = undefined;
      clearTimeout(timer);
      timer = undefined;
    }
    // Not awaited: batches run concurrently, a slow one does not hold back the next.
    void run(batch);
  };

  const run = async (batch: Pending<I, O>[]) => {
    let results: readonly (O | Error)[];
    try {
      results = await fn(batch.map((p) => p.input));
    } catch (error) {
      for (const pending of batch) pending.reject(error);
      return;
    }
    if (!Array.isArray(results) || results.length !== batch.length) {
      const got = Array.isArray(results) ? `${results.length} results` : `a ${results === null ? 'null' : typeof results}`;
      const error = new TypeError(
        `batchProcess: the batch function returned ${got} for ${batch.length} inputs; it must return one result per input, in order`,
      );
      for (const pending of batch) pending.reject(error);
      return;
    }
    batch.forEach((pending, i) => {
      const result = results[i];
      if (result instanceof Error) pending.reject(result);
      else pending.resolve(result as O);
    });
  };

  return (input: I) =>
    new Promise<O>((resolve, reject) => {
      if (current === undefined) {
        const batch: Pending<I, O>[] = [];
        current = batch;
        if (maxWaitTime === 0) afterThisTick(() => current === batch && flush(batch));
        else timer = setTimeout(() => flush(batch), maxWaitTime * 1000);
      }
      const batch = current;
      batch.push({ input, resolve, reject });
      if (batch.length >= maxBatchSize) flush(batch);
    });
}

/**
 * Collects calls into batches for one call of `fn` each: a batch runs when it holds `maxBatchSize`
 * items or `maxWaitTime` seconds after its first call, whichever comes first. DataLoader's rules
 * where they apply: results in input order, an `Error` result rejects its caller alone, a throw or a
 * result list of the wrong length rejects every caller of that batch and no other.
 *
 * `batchProcess(options, fn)` returns the batched function; `batchProcess(options)(fn)` too.
 */
export function batchProcess<I, O>(options: BatchOptions, fn: BatchFunction<I, O>): (input: I) => Promise<O>;
export function batchProcess(options?: BatchOptions): <I, O>(fn: BatchFunction<I, O>) => (input: I) => Promise<O>;
export function batchProcess<I, O>(options: BatchOptions = {}, fn?: BatchFunction<I, O>) {
  if (fn !== undefined) return batcher(options, fn);
  return <I2, O2>(f: BatchFunction<I2, O2>) => batcher(options, f);
}
