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
  /** What is running, with the request it came from and when it started: named if a drain abandons it. */
  running: Set<Work>;
  /** What the server's drain abandoned (requests, sockets), named with the rest in the drain's one line. */
  abandoned: Abandoned[];
}

/** The request a piece of work came from, as the drain's warning names it. */
export interface WorkOrigin {
  readonly method: string;
  readonly path: string;
  readonly route?: string | undefined;
  readonly id: string;
}

interface Work {
  kind: 'deferred' | 'waitUntil';
  from: WorkOrigin | undefined;
  started: number;
}

/** One thing a drain's time limit ended while it was still running. */
export interface Abandoned {
  kind: 'request' | 'websocket' | 'deferred' | 'waitUntil';
  method: string;
  path: string;
  route: string | undefined;
  reqId: string;
  /** How long it had been running, in seconds. */
  running: number;
}

/** What a drain abandons, described from the request it belongs to. */
export function abandoned(kind: Abandoned['kind'], from: WorkOrigin, started: number): Abandoned {
  return {
    kind,
    method: from.method,
    path: from.path,
    route: from.route,
    reqId: from.id,
    running: Math.round(performance.now() - started) / 1000,
  };
}

/** Entries named in the warning's message; all of them are in its `abandoned` field (up to 100). */
const NAMED = 10;

/**
 * The drain's warning line: what its time limit ended while still running (how many; each one's kind,
 * method, path, route, request id and how long it had run), never dropped without a word.
 */
export function warnAbandoned(logger: Logger, what: Abandoned[]): void {
  if (what.length === 0) return;
  const named = what
    .slice(0, NAMED)
    .map((one) => `${one.kind} ${one.method} ${one.path} (${one.reqId}, ${one.running.toFixed(1)} s)`)
    .join(', ');
  const more = what.length > NAMED ? ` and ${what.length - NAMED} more` : '';
  logger.warn(
    { count: what.length, abandoned: what.slice(0, 100) },
    `shutdown timeout passed: abandoning ${what.length} still running: ${named}${more}`,
  );
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
export function runTasks(
  owner: object,
  tasks: DeferredTask[],
  logger: () => Logger,
  from?: WorkOrigin,
  last?: DeferredTask,
): Promise<void> {
  const counted = counter(owner);
  const work: Work = { kind: 'deferred', from, started: performance.now() };
  counted.count++;
  counted.running.add(work);
  return new Promise<void>((resolve) => {
    const done = () => {
      settled(counted, work);
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
export function keep(owner: object, work: Promise<unknown>, from?: WorkOrigin): void {
  const counted = counter(owner);
  const entry: Work = { kind: 'waitUntil', from, started: performance.now() };
  counted.count++;
  counted.running.add(entry);
  void work.finally(() => settled(counted, entry));
}

function counter(owner: object): Pending {
  let state = pending.get(owner);
  if (state === undefined) {
    state = { count: 0, idle: [], running: new Set(), abandoned: [] };
    pending.set(owner, state);
  }
  return state;
}

function settled(counted: Pending, work: Work): void {
  counted.running.delete(work);
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
 * there is none, else with what was still running when the time limit ended it, after what the
 * server's drain abandoned (`abandon`): the warning line's list. `app.shutdown()` (SIGTERM, a server's `close()`) runs it before the shutdown callbacks; an
 * adapter whose platform freezes after an invocation runs it before returning.
 */
export async function drain(owner: object, timeoutMs: number): Promise<Abandoned[]> {
  const state = pending.get(owner);
  if (state === undefined) return [];
  const left = state.abandoned.splice(0);
  if (state.count === 0) return left;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await new Promise<void>((resolve) => {
    state.idle.push(resolve);
    timer = setTimeout(resolve, timeoutMs);
  });
  clearTimeout(timer);
  for (const work of state.running) left.push(abandoned(work.kind, work.from ?? UNKNOWN, work.started));
  return left;
}

/**
 * What a server's drain abandoned (requests, WebSocket handlers), handed to the owner's drain so that
 * the one warning line names it with the deferred work still running.
 */
export function abandon(owner: object, what: Abandoned[]): void {
  if (what.length > 0) counter(owner).abandoned.push(...what);
}

/** The origin of work handed over outside any request. */
const UNKNOWN: WorkOrigin = { method: '-', path: '-', id: '-' };

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
