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

/** Takes a step's answer, once: `done(undefined, response)`, or `done(error, undefined)` when it failed. */
export type Done = (error: unknown, response: Response | undefined) => void;

/**
 * One step of the internal pipeline, and the one calling convention of serving: it hands its answer
 * to `done` (at once when nothing on its path is asynchronous, so a sync handler costs no promise, and
 * a body read by a transport that calls back costs none either) and never throws.
 */
export type Step = (request: Request, done: Done) => void;

/** Hands an answer that may still be coming, or its failure, to `done`. */
export function settle(out: MaybePromise<Response>, done: Done): void {
  if (out instanceof Promise)
    out.then(
      (response) => done(undefined, response),
      (error: unknown) => done(error, undefined),
    );
  else done(undefined, out);
}

/** A function answering with a value or a promise (a built-in route) as a step. */
export function stepOf(answer: (request: Request) => MaybePromise<Response>): Step {
  return (request, done) => {
    let out: MaybePromise<Response>;
    try {
      out = answer(request);
    } catch (error) {
      done(error, undefined);
      return;
    }
    settle(out, done);
  };
}

/** A step's answer as a promise: what middleware is promised by `callNext`. */
export function stepPromise(step: Step, request: Request): Promise<Response> {
  return new Promise((resolve, reject) =>
    step(request, (error, response) => {
      if (response === undefined) reject(error);
      else resolve(response);
    }),
  );
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
 * Builds the chain once, over middleware already filtered by `activeMiddleware` (each `isActive()` is
 * asked once per compile): the first middleware runs first on the way in and last on the way out. No
 * middleware means no chain at all: `final` is returned as it is. A middleware may pass a request on
 * once: a second `callNext` from the same dispatch is refused (it would run the handler twice).
 */
export function composeActive(middleware: readonly Middleware[], final: Step): Step {
  let next: Step = final;
  for (let i = middleware.length - 1; i >= 0; i--) {
    const current = middleware[i]!;
    const dispatch = typeof current === 'function' ? current : (current as MiddlewareObject).dispatch.bind(current);
    if (typeof dispatch !== 'function') throw new TypeError(`${describe(current)} has no dispatch(request, callNext)`);
    const inner = next;
    const name = describe(current);
    next = (request, done) => {
      let called = false;
      const callOnce: CallNext = (req) => {
        if (called) return Promise.reject(new Error(`${name} called callNext() more than once; pass each request on once`));
        called = true;
        return stepPromise(inner, req);
      };
      const answered = (result: unknown) => {
        let response: Response;
        try {
          response = result instanceof Response ? result : asResponse(result, name);
        } catch (error) {
          done(error, undefined);
          return;
        }
        done(undefined, response);
      };
      let result: MiddlewareResult;
      try {
        result = dispatch(request, callOnce);
      } catch (error) {
        done(error, undefined);
        return;
      }
      if (isPromiseLike(result)) Promise.resolve(result).then(answered, (error: unknown) => done(error, undefined));
      else answered(result);
    };
  }
  return next;
}

export function assertMiddleware(middleware: unknown): asserts middleware is Middleware {
  if (typeof middleware === 'function') return;
  if (typeof middleware === 'object' && middleware !== null && typeof (middleware as MiddlewareObject).dispatch === 'function') return;
  throw new TypeError('A middleware is an object with dispatch(request, callNext) or a function (request, callNext)');
}
