import type { Logger } from '../platform/logger.js';

/** Work handed to `request.defer`: run after the answer has been sent. */
export type DeferredTask = () => unknown;

/** Where a request keeps its deferred tasks: a symbol, so apps neither see nor set it. */
export const DEFERRED: unique symbol = Symbol('fnapi.deferred');

/** Deferred work still running, per app (or other owner): a count, and who waits for it to reach 0. */
interface Pending {
  count: number;
  idle: (() => void)[];
}
const pending = new WeakMap<object, Pending>();

/** The next turn of the event loop: `setImmediate` where there is one (after pending I/O), else a timer. */
const later: (fn: () => void) => void =
  typeof globalThis.setImmediate === 'function' ? (fn) => void globalThis.setImmediate(fn) : (fn) => void setTimeout(fn, 0);

/**
 * Runs tasks one after another in the order deferred (one deferred while the others run joins the
 * end), starting in a later turn of the event loop than the code that answered; a task that throws or
 * rejects is logged and the next one runs. Counted under `owner` until done, for `settleDeferred`.
 * A task that returns no promise costs no promise.
 */
export function runTasks(owner: object, tasks: DeferredTask[], logger: () => Logger): Promise<void> {
  let state = pending.get(owner);
  if (state === undefined) {
    state = { count: 0, idle: [] };
    pending.set(owner, state);
  }
  const counted = state;
  counted.count++;
  return new Promise<void>((resolve) => {
    const finish = () => {
      if (--counted.count === 0 && counted.idle.length > 0) for (const wake of counted.idle.splice(0)) wake();
      resolve();
    };
    later(() => runFrom(tasks, 0, logger, finish));
  });
}

function runFrom(tasks: DeferredTask[], start: number, logger: () => Logger, finish: () => void): void {
  for (let i = start; i < tasks.length; i++) {
    let out: unknown;
    try {
      out = tasks[i]!();
    } catch (error) {
      logger().error({ err: error }, 'deferred task failed');
      continue;
    }
    if (out !== null && typeof out === 'object' && typeof (out as PromiseLike<unknown>).then === 'function') {
      const next = i + 1;
      (out as PromiseLike<unknown>).then(
        () => runFrom(tasks, next, logger, finish),
        (error: unknown) => {
          logger().error({ err: error }, 'deferred task failed');
          runFrom(tasks, next, logger, finish);
        },
      );
      return;
    }
  }
  finish();
}

/**
 * Waits for the owner's deferred work still running (work deferred meanwhile included), at most
 * `timeoutMs`; resolves at once when there is none. What a drain (SIGTERM, `app.shutdown()`) calls
 * before the shutdown callbacks run.
 */
export async function settleDeferred(owner: object, timeoutMs: number): Promise<void> {
  const state = pending.get(owner);
  if (state === undefined || state.count === 0) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await new Promise<void>((resolve) => {
    state.idle.push(resolve);
    timer = setTimeout(resolve, timeoutMs);
  });
  clearTimeout(timer);
}

/** The request's method that starts its deferred tasks (a symbol: transports call it, apps do not). */
export const RUN_DEFERRED: unique symbol = Symbol('fnapi.runDeferred');
