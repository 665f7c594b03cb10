import type { Logger } from '../platform/logger.js';

/** Work handed to `request.defer`: run after the answer has been sent. */
export type DeferredTask = () => unknown;

/** Where a request keeps its deferred tasks: a symbol, so apps neither see nor set it. */
export const DEFERRED: unique symbol = Symbol('fnapi.deferred');

/**
 * Work still running after its answer, per app (the owner): deferred tasks and work handed to
 * `request.waitUntil` with no platform to take it; a count, and who waits for it to reach 0. The one
 * drain of an app (`drain`) waits for both.
 */
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
 * rejects is logged and the next one runs. Counted under `owner` until done, for `drain`.
 * A task that returns no promise costs no promise.
 */
export function runTasks(owner: object, tasks: DeferredTask[], logger: () => Logger, last?: DeferredTask): Promise<void> {
  const counted = counter(owner);
  counted.count++;
  return new Promise<void>((resolve) => {
    const done = () => {
      settled(counted);
      resolve();
    };
    // What must follow every deferred task (closing the request's dependencies) runs last.
    const finish =
      last === undefined
        ? done
        : () => {
            let out: unknown;
            try {
              out = last();
            } catch (error) {
              logger().error({ err: error }, 'closing after the deferred tasks failed');
            }
            void Promise.resolve(out).then(done, (error: unknown) => {
              logger().error({ err: error }, 'closing after the deferred tasks failed');
              done();
            });
          };
    later(() => runFrom(tasks, 0, logger, finish));
  });
}

/** Keeps `work` (which never rejects) counted under `owner` until it settles, so the owner's drain waits for it. */
export function keep(owner: object, work: Promise<unknown>): void {
  const counted = counter(owner);
  counted.count++;
  void work.finally(() => settled(counted));
}

function counter(owner: object): Pending {
  let state = pending.get(owner);
  if (state === undefined) {
    state = { count: 0, idle: [] };
    pending.set(owner, state);
  }
  return state;
}

function settled(counted: Pending): void {
  if (--counted.count === 0 && counted.idle.length > 0) for (const wake of counted.idle.splice(0)) wake();
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
 * The app's drain: waits for the owner's work still running after its answers (deferred tasks and
 * kept `waitUntil` work, what starts meanwhile included), at most `timeoutMs`; resolves at once when
 * there is none. `app.shutdown()` (SIGTERM, a server's `close()`) runs it before the shutdown
 * callbacks; an adapter whose platform freezes after an invocation runs it before returning.
 */
export async function drain(owner: object, timeoutMs: number): Promise<void> {
  const state = pending.get(owner);
  if (state === undefined || state.count === 0) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await new Promise<void>((resolve) => {
    state.idle.push(resolve);
    timer = setTimeout(resolve, timeoutMs);
  });
  clearTimeout(timer);
}

/** What runs after a request's deferred tasks (its dependencies' teardown), by request. */
const lastTasks = new WeakMap<object, DeferredTask>();

/**
 * Runs `fn` once the answer has been sent and the request's deferred tasks are done (the transports'
 * `afterAnswer`), counted for the drain like them. Used to close a request's dependencies.
 */
export function afterDeferred(request: { [DEFERRED]: DeferredTask[] | undefined }, fn: DeferredTask): void {
  request[DEFERRED] ??= [];
  const before = lastTasks.get(request);
  lastTasks.set(
    request,
    before === undefined
      ? fn
      : async () => {
          await before();
          await fn();
        },
  );
}

/** What `afterDeferred` left for a request. */
export function lastTaskOf(request: object): DeferredTask | undefined {
  return lastTasks.get(request);
}

/** The request's method that starts its deferred tasks (a symbol: transports call it, apps do not). */
export const RUN_DEFERRED: unique symbol = Symbol('fnapi.runDeferred');
