import type { Logger } from './logger.js';

/** Work handed to `request.defer`: run after the answer has been sent. */
export type DeferredTask = () => unknown;

/** Where a request keeps its deferred tasks: a symbol, so apps neither see nor set it. */
export const DEFERRED: unique symbol = Symbol('fnapi.deferred');

/** Deferred work still running, per app (or other owner), for a drain to wait on. */
const pending = new WeakMap<object, Set<Promise<void>>>();

/**
 * Runs tasks one after another in the order deferred (one deferred while the others run joins the
 * end); a task that throws or rejects is logged and the next one runs.
 */
export async function runTasks(tasks: DeferredTask[], logger: () => Logger): Promise<void> {
  // A task starts in a later turn of the event loop than the code that answered, so the answer is
  // out (or handed to the platform) first.
  await new Promise((resolve) => setTimeout(resolve, 0));
  for (let i = 0; i < tasks.length; i++) {
    try {
      await tasks[i]!();
    } catch (error) {
      logger().error({ err: error }, 'deferred task failed');
    }
  }
}

/** Keeps `work` in the owner's pending set until it settles, so `settleDeferred` can wait for it. */
export function trackDeferred(owner: object, work: Promise<void>): void {
  let set = pending.get(owner);
  if (set === undefined) {
    set = new Set();
    pending.set(owner, set);
  }
  const tracked = set;
  tracked.add(work);
  void work.finally(() => tracked.delete(work));
}

/**
 * Waits for the owner's deferred work still running, at most `timeoutMs`; resolves at once when there
 * is none. What a drain (SIGTERM, `app.shutdown()`) calls before the shutdown callbacks run.
 */
export async function settleDeferred(owner: object, timeoutMs: number): Promise<void> {
  const set = pending.get(owner);
  if (set === undefined || set.size === 0) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
  });
  // Work deferred while waiting is waited for too.
  const all = (async () => {
    while (set.size > 0) await Promise.allSettled([...set]);
  })();
  try {
    await Promise.race([all, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The request's method that starts its deferred tasks (a symbol: transports call it, apps do not). */
export const RUN_DEFERRED: unique symbol = Symbol('fnapi.runDeferred');
