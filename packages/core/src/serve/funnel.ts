// The error funnel: the one place where a thrown value becomes an answer (a problem body), after it
// has been offered to plugins once per request. Fastify's error handler plays this part.
import { type ValidationIssue, validationProblem } from '@fnapi/validation';
import { firstReport, HTTPError, type ProblemDetails, problemDetails, RequestValidationError } from '../http/errors.js';
import { PROBLEM_JSON } from '../http/facts.js';
import { defaultLogger, type Logger } from '../platform/logger.js';
import type { Done, MaybePromise, Step } from './pipeline.js';
import type { PluginManager } from './plugins.js';
import type { Request } from '../http/request.js';
import { REQUEST_INTERNALS } from '../http/request-internals.js';
import { problemResponse, Response } from '../http/response.js';

/** The problem body of an unexpected exception: generic unless debug output is asked for. */
export function internalErrorProblem(error: unknown, debug: boolean, includeStack: boolean): ProblemDetails {
  const problem = problemDetails(500, 'An unexpected error occurred');
  if (debug) {
    const err = error instanceof Error ? error : new Error(String(error));
    const info: Record<string, unknown> = { name: err.name, message: err.message };
    if (includeStack && err.stack) info.stack = err.stack;
    problem.debug = info;
  }
  return problem;
}

/** Replaces the 422 body everywhere, routers included (`new API({ validationError })`). */
export interface ValidationErrorFormat {
  /** Schema of the 422 body, documented in /openapi.json. */
  schema: import('@fnapi/validation').z.ZodType;
  /**
   * Builds the 422 body from the issues: at most the first 100, with `info.truncated` true when more
   * were found (validation stopped there).
   */
  format(issues: readonly ValidationIssue[], request: Request, info: { truncated: boolean }): unknown;
}

/** How the app turns thrown values into responses. */
export interface ErrorPolicy {
  readonly plugins: PluginManager | undefined;
  readonly logger: Logger;
  /** Adds `debug: { name, message, stack }` to 500 bodies. */
  readonly debug: boolean;
  readonly validationError: ValidationErrorFormat | undefined;
}

declare module '../http/request-internals.js' {
  interface RequestInternals {
    /** How a thrown value becomes a response (`errorResponse` follows it). */
    readonly policy: ErrorPolicy;
  }
}

/** What a caller of `errorResponse` (such as `ErrorHandlingMiddleware`) may change of the app's policy. */
export interface ErrorResponseOptions {
  /** Adds `debug: { name, message }` to 500 bodies; default: the app's `debug`. */
  debug?: boolean;
  /** Adds `debug.stack` too; default: the app's `debug`. */
  includeTraceback?: boolean;
  /** Logs unexpected exceptions and 5xx errors; default true. */
  logExceptions?: boolean;
  /** Where to log; default the app's logger. */
  logger?: Logger;
}

let fallbackPolicy: ErrorPolicy | undefined;

function policyOf(request: Request): ErrorPolicy {
  return (
    request[REQUEST_INTERNALS]?.policy ??
    (fallbackPolicy ??= { plugins: undefined, logger: defaultLogger(), debug: false, validationError: undefined })
  );
}

/**
 * Offers a thrown value to plugins, once per request: `error_occurred`, then `onError` hooks, the
 * first of which that returns a response answers the request.
 */
function report(error: unknown, request: Request, policy: ErrorPolicy): Promise<Response | undefined> | undefined {
  const plugins = policy.plugins;
  if (plugins === undefined || request[REQUEST_INTERNALS] === undefined || !firstReport(request, error)) return undefined;
  if (plugins.listens('error_occurred')) plugins.emit('error_occurred', { error, request });
  return plugins.hasErrorHooks ? plugins.onError(error, request) : undefined;
}

/** The problem response of a thrown value, without reporting it. */
function problemFor(error: unknown, request: Request, policy: ErrorPolicy, options: ErrorResponseOptions | undefined): Response {
  const log = options?.logExceptions ?? true;
  // The request's child logger (with `reqId`) is only made when a line is written.
  const logger = () => options?.logger ?? request.logger;
  if (error instanceof HTTPError) {
    if (log && error.statusCode >= 500)
      logger().error({ err: error, method: request.method, path: request.path, route: request.route }, 'request failed');
    if (error instanceof RequestValidationError) {
      const format = policy.validationError;
      if (format) {
        try {
          return new Response(format.format(error.issues, request, { truncated: error.truncated }), {
            statusCode: 422,
            mediaType: PROBLEM_JSON,
          });
        } catch (formatError) {
          logger().error({ err: formatError }, 'validationError.format failed');
          return problemResponse(internalErrorProblem(formatError, policy.debug, policy.debug));
        }
      }
      return problemResponse(validationProblem([...error.issues], error.truncated) as unknown as ProblemDetails);
    }
    return problemResponse(error.toProblem(), error.headers);
  }
  if (log) logger().error({ err: error, method: request.method, path: request.path, route: request.route }, 'unhandled error');
  const includeStack = options?.includeTraceback ?? policy.debug;
  const debug = (options?.debug ?? policy.debug) || includeStack;
  return problemResponse(internalErrorProblem(error, debug, includeStack));
}

/**
 * The one place where a thrown value becomes a response: it is offered to plugins (once per
 * request, wherever it is caught), then an `HTTPError` becomes its problem body (422 through the
 * app's `validationError` format) and anything else a 500, with debug fields as the app or the
 * options ask. `ErrorHandlingMiddleware` calls it with its options.
 */
export function errorResponse(error: unknown, request: Request, options?: ErrorResponseOptions): MaybePromise<Response> {
  const policy = policyOf(request);
  const answered = report(error, request, policy);
  if (answered === undefined) return problemFor(error, request, policy, options);
  return answered.then((answer) => answer ?? problemFor(error, request, policy, options));
}

/**
 * Wraps an endpoint (binding, validation, handler): its errors are offered to plugins here; an
 * `HTTPError` becomes a response so that every middleware sees it as one, anything else propagates
 * through the middleware as an exception.
 */
export function endpointBoundary(invoke: Step): Step {
  return (request, done) =>
    invoke(request, (error, response) => {
      if (response !== undefined) {
        done(undefined, response);
        return;
      }
      const policy = policyOf(request);
      const settle = (answer: Response | undefined): void => {
        if (answer !== undefined) done(undefined, answer);
        else if (error instanceof HTTPError) done(undefined, problemFor(error, request, policy, undefined));
        else done(error, undefined);
      };
      const answered = report(error, request, policy);
      if (answered === undefined) settle(undefined);
      else answered.then(settle, (failure: unknown) => done(failure, undefined));
    });
}

/**
 * Hands the answer to a failure to `done` once it is known (plugins' `onError` hooks may take a
 * while); should the funnel itself fail, the answer is a plain 500.
 */
export function answerError(error: unknown, request: Request, done: Done, options?: ErrorResponseOptions): void {
  let answer: MaybePromise<Response>;
  try {
    answer = errorResponse(error, request, options);
  } catch (failure) {
    answer = Promise.reject(failure);
  }
  if (!(answer instanceof Promise)) {
    done(undefined, answer);
    return;
  }
  answer.then(
    (response) => done(undefined, response),
    (failure: unknown) => {
      policyOf(request).logger.error({ err: failure }, 'the error handler failed');
      done(undefined, problemResponse(internalErrorProblem(failure, false, false)));
    },
  );
}
