import type { CallNext, MiddlewareObject, Request } from '@fnapi/core';

/** What `dispatch` may return: an fnapi `Response` (or a Web one), directly or as a promise. */
export type DispatchResult = ReturnType<MiddlewareObject['dispatch']>;

/**
 * Base class of class-style middleware. Subclasses implement `dispatch(request, callNext)`: call
 * `callNext(request)` to pass the request on (await it and return its response, changed or not), or
 * return a response of their own without calling it.
 *
 * ```ts
 * class Timing extends Middleware {
 *   async dispatch(request: Request, callNext: CallNext) {
 *     const response = await callNext(request);
 *     response.headers.set('x-handled-by', 'timing');
 *     return response;
 *   }
 * }
 * ```
 */
export abstract class Middleware implements MiddlewareObject {
  abstract dispatch(request: Request, callNext: CallNext): DispatchResult;
}
