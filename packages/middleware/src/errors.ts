import {
  HTTPError,
  internalErrorProblem,
  problemResponse,
  RequestValidationError,
  type CallNext,
  type Logger,
  type Request,
  type Response,
} from '@fnapi/core';
import { pino } from 'pino';
import { Middleware } from './base.js';

export interface ErrorHandlingMiddlewareOptions {
  /** Adds `debug: { name, message }` to the 500 body of an unexpected exception. Default false. */
  debug?: boolean;
  /** Adds `debug.stack` as well (and so implies the `debug` block). Default false. */
  includeTraceback?: boolean;
  /** Logs unexpected exceptions (and 5xx HTTP errors) through pino. Default true. */
  logExceptions?: boolean;
  /** The pino logger to write to; default a pino logger to stdout named `fnapi`. */
  logger?: Logger;
}

/**
 * Turns every exception that reaches it into an RFC 9457 problem response: an `HTTPError` into its
 * status, problem body and headers; anything else into a 500 with a generic detail, plus debug
 * fields when asked.
 */
export class ErrorHandlingMiddleware extends Middleware {
  readonly debug: boolean;
  readonly includeTraceback: boolean;
  readonly logExceptions: boolean;
  private loggerInstance: Logger | undefined;

  constructor(options: ErrorHandlingMiddlewareOptions = {}) {
    super();
    this.debug = options.debug ?? false;
    this.includeTraceback = options.includeTraceback ?? false;
    this.logExceptions = options.logExceptions ?? true;
    this.loggerInstance = options.logger;
  }

  get logger(): Logger {
    return (this.loggerInstance ??= pino({ name: 'fnapi' }));
  }

  async dispatch(request: Request, callNext: CallNext): Promise<Response> {
    try {
      return await callNext(request);
    } catch (error) {
      return this.toResponse(error, request);
    }
  }

  /** The problem response an exception becomes. */
  toResponse(error: unknown, request: Request): Response {
    if (error instanceof HTTPError) {
      if (this.logExceptions && error.statusCode >= 500) this.log(error, request);
      const problem = error.toProblem();
      if (error instanceof RequestValidationError) problem.errors = error.issues;
      return problemResponse(problem, error.headers);
    }
    if (this.logExceptions) this.log(error, request);
    const showDebug = this.debug || this.includeTraceback;
    return problemResponse(internalErrorProblem(error, showDebug, this.includeTraceback));
  }

  private log(error: unknown, request: Request): void {
    this.logger.error(
      { err: error, method: request.method, path: request.path, route: request.route },
      'unhandled error',
    );
  }
}
