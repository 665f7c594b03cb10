import type { Request } from '../http/request.js';
import { fromWebResponse, isWebResponse, Response } from '../http/response.js';

/** Passes the request on; always resolves to an fnapi `Response` with mutable headers. */
export type CallNext = (request: Request) => Promise<Response>;

export type MaybePromise<T> = T | Promise<T>;

/** A promise or any thenable (a handler's result may be either). */
export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    value instanceof Promise || (typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function')
  );
}

/**
 * One step of the internal pipeline. Unlike `CallNext` it may answer synchronously, so a sync handler
 * behind no middleware costs no promise at all.
 */
export type Step = (request: Request) => MaybePromise<Response>;

/** Takes a step's answer: `done(undefined, response)`, or `done(error, undefined)` when it failed. */
export type StepDone = (error: unknown, response: Response | undefined) => void;

/**
 * A step that hands its answer to `done` instead of returning it (never throwing): an endpoint that
 * reads a body offers one, so that a server taking answers in a callback costs no promise for it.
 */
export type StepThen = (request: Request, done: StepDone) => void;

/** Hands a step's answer, or its failure, to `done`. */
export function settle(out: MaybePromise<Response>, done: StepDone): void {
  if (out instanceof Promise)
    out.then(
      (response) => done(undefined, response),
      (error: unknown) => done(error, undefined),
    );
  else done(undefined, out);
}

export type MiddlewareResult = Response | globalThis.Response | Promise<Response | globalThis.Response>;

/** Anything with `dispatch(request, callNext)`. */
export interface MiddlewareObject {
  dispatch(request: Request, callNext: CallNext): MiddlewareResult;
  /** Statuses it can answer by itself (status → description), documented on every operation it runs for. */
  readonly responses?: Record<number, string>;
  /**
   * Asked once each time the chain is compiled (before the first request): `false` leaves this
   * middleware out of it, at no cost per request (`TracingMiddleware` with no tracing SDK registered).
   */
  isActive?(): boolean;
}
export type MiddlewareFunction = (request: Request, callNext: CallNext) => MiddlewareResult;
export type Middleware = MiddlewareObject | MiddlewareFunction;

/** Normalises whatever a middleware or hook returned into an fnapi `Response`. */
export function asResponse(value: unknown, source: string): Response {
  if (value instanceof Response) return value;
  if (isWebResponse(value)) return fromWebResponse(value);
  throw new TypeError(`${source} must return a Response, got ${value === null ? 'null' : typeof value}`);
}

function describe(middleware: Middleware): string {
  if (typeof middleware === 'function') return `middleware ${middleware.name || '(anonymous)'}`;
  return `middleware ${middleware.constructor?.name ?? 'object'}`;
}

/** The middleware that takes part in a chain compiled now (an object's `isActive()` may leave it out). */
export function activeMiddleware(all: readonly Middleware[]): Middleware[] {
  return all.filter((m) => typeof m === 'function' || m.isActive?.() !== false);
}

/**
 * Builds the chain once: the first middleware runs first on the way in and last on the way out.
 * No middleware means no chain at all: `final` is returned as it is. A middleware may pass a request
 * on once: a second `callNext` from the same dispatch is refused (it would run the handler twice).
 * Middleware whose `isActive()` says false is left out.
 */
export function compose(all: readonly Middleware[], final: Step): Step {
  return composeActive(activeMiddleware(all), final);
}

/** `compose` over middleware already filtered by `activeMiddleware` (each `isActive()` is asked once per compile). */
export function composeActive(middleware: readonly Middleware[], final: Step): Step {
  if (middleware.length === 0) return final;
  let next: CallNext = toAsync(final);
  for (let i = middleware.length - 1; i >= 0; i--) {
    const current = middleware[i]!;
    const dispatch = typeof current === 'function' ? current : (current as MiddlewareObject).dispatch.bind(current);
    if (typeof dispatch !== 'function') throw new TypeError(`${describe(current)} has no dispatch(request, callNext)`);
    const inner = next;
    const name = describe(current);
    next = async (request) => {
      let called = false;
      const callOnce: CallNext = (req) => {
        if (called) return Promise.reject(new Error(`${name} called callNext() more than once; pass each request on once`));
        called = true;
        return inner(req);
      };
      const result = await dispatch(request, callOnce);
      return result instanceof Response ? result : asResponse(result, name);
    };
  }
  return next;
}

/** Middleware is promised a `Promise` from `callNext`, whatever the step behind it returns. */
function toAsync(step: Step): CallNext {
  return (request) => {
    try {
      const out = step(request);
      return out instanceof Promise ? out : Promise.resolve(out);
    } catch (error) {
      return Promise.reject(error);
    }
  };
}

export function assertMiddleware(middleware: unknown): asserts middleware is Middleware {
  if (typeof middleware === 'function') return;
  if (typeof middleware === 'object' && middleware !== null && typeof (middleware as MiddlewareObject).dispatch === 'function') return;
  throw new TypeError('A middleware is an object with dispatch(request, callNext) or a function (request, callNext)');
}
