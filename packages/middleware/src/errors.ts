import type { CallNext, Logger, Request, Response } from '@fnapi/core';
import { errorResponse } from '@fnapi/core/extend';
import { Middleware } from './base.js';

export interface ErrorHandlingMiddlewareOptions {
  /** Adds `debug: { name, message }` to the 500 body of an unexpected exception. Default false. */
  debug?: boolean | undefined;
  /** Adds `debug.stack` as well (and so implies the `debug` block). Default false. */
  includeTraceback?: boolean | undefined;
  /** Logs unexpected exceptions (and 5xx HTTP errors). Default true. */
  logExceptions?: boolean | undefined;
  /** The pino logger to write to; default the app's logger. */
  logger?: Logger | undefined;
}

/**
 * Turns every exception that reaches it into an RFC 9457 problem response, through core's one error
 * path (`errorResponse`): an `HTTPError` into its status, problem body and headers (422 in the app's
 * `validationError` format); anything else into a 500 with a generic detail, plus debug fields when
 * asked. Plugins hear of each error once, wherever it is caught.
 */
export class ErrorHandlingMiddleware extends Middleware {
  readonly debug: boolean;
  readonly includeTraceback: boolean;
  readonly logExceptions: boolean;
  readonly logger: Logger | undefined;

  constructor(options: ErrorHandlingMiddlewareOptions = {}) {
    super();
    this.debug = options.debug ?? false;
    this.includeTraceback = options.includeTraceback ?? false;
    this.logExceptions = options.logExceptions ?? true;
    this.logger = options.logger;
  }

  async dispatch(request: Request, callNext: CallNext): Promise<Response> {
    try {
      return await callNext(request);
    } catch (error) {
      return this.toResponse(error, request);
    }
  }

  /** The problem response an exception becomes. */
  toResponse(error: unknown, request: Request): Promise<Response> {
    return Promise.resolve(
      errorResponse(error, request, {
        debug: this.debug,
        includeTraceback: this.includeTraceback,
        logExceptions: this.logExceptions,
        logger: this.logger,
      }),
    );
  }
}
