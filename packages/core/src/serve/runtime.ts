import { type ValidationIssue, validationProblem } from '@fnapi/validation';
import type { EdgeSettings } from '../platform/proxy-trust.js';
import { HTTPError, type ProblemDetails, problemDetails, RequestValidationError } from '../http/errors.js';
import { PROBLEM_JSON } from '../http/facts.js';
import { defaultLogger, type Logger } from '../platform/logger.js';
import { composeActive, type Middleware, type MaybePromise, type Step, type StepThen } from './pipeline.js';
import type { PluginManager } from './plugins.js';
import type { Request } from '../http/request.js';
import { REQUEST_INTERNALS, type RequestInternals } from '../http/request-internals.js';
import { problemResponse, Response } from '../http/response.js';
import type { RouteTable } from './route-table.js';
import type { RuntimeLimits } from './runtime-contract.js';

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
  /** Builds the 422 body from the issues. */
  format(issues: readonly ValidationIssue[], request: Request): unknown;
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
  const internals = request[REQUEST_INTERNALS];
  if (plugins === undefined || internals === undefined) return undefined;
  if (Object.hasOwn(internals, 'reported') && internals.reported === error) return undefined;
  // The request's own internals over the shared ones, marked: only a request that failed pays for it.
  request[REQUEST_INTERNALS] = Object.create(internals, { reported: { value: error } }) as RequestInternals;
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
          return new Response(format.format(error.issues, request), { statusCode: 422, mediaType: PROBLEM_JSON });
        } catch (formatError) {
          logger().error({ err: formatError }, 'validationError.format failed');
          return problemResponse(internalErrorProblem(formatError, policy.debug, policy.debug));
        }
      }
      return problemResponse(validationProblem([...error.issues]) as unknown as ProblemDetails);
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
  const failed = (error: unknown, request: Request): MaybePromise<Response> => {
    const policy = policyOf(request);
    const settle = (answer: Response | undefined): Response => {
      if (answer) return answer;
      if (error instanceof HTTPError) return problemFor(error, request, policy, undefined);
      throw error;
    };
    const answered = report(error, request, policy);
    return answered === undefined ? settle(undefined) : answered.then(settle);
  };
  return (request) => {
    let out: MaybePromise<Response>;
    try {
      out = invoke(request);
    } catch (error) {
      return failed(error, request);
    }
    return out instanceof Promise ? out.catch((error: unknown) => failed(error, request)) : out;
  };
}

/** A compiled route: its template (for `request.route`) and its runner (router middleware + endpoint). */
export interface CompiledRoute {
  template: string;
  run: Step;
  /** `run` handing its answer to a callback, where the route has that form (an endpoint reading a body). */
  runThen?: StepThen;
  /** Answered while startup runs rather than after it (health probes). */
  servesWhileStarting?: boolean;
}

export interface RuntimeOptions {
  table: RouteTable<CompiledRoute>;
  /** The app's active middleware (`activeMiddleware`), outermost first. */
  middleware: readonly Middleware[];
  policy: ErrorPolicy;
  plugins: PluginManager;
  /** Answer a path that differs from a route only by a trailing slash with 308 (default true). */
  redirectSlashes: boolean;
  /** `requestIdHeader` and `trustProxy`, handed to each request. */
  edge: EdgeSettings;
  /** The app's limits, for steps that read them per request (uploads). */
  limits: Readonly<RuntimeLimits>;
  /** Browser origins allowed to open the app's WebSockets besides a request's own (`wsOrigins`). */
  wsOrigins: readonly string[];
}

/** Every answer carries the request's id (`X-Request-ID`), set last so that no middleware (a cache) can replace it. */
function stampId(response: Response, request: Request): Response {
  response.requestId = request.id;
  return response;
}

/**
 * One compiled snapshot of an app: the route table and the middleware chain, built by `compile`
 * and replaced after a later change. Serving is routing, the chain and the error path, nothing more.
 */
export class AppRuntime {
  private readonly table: RouteTable<CompiledRoute>;
  private readonly chain: Step;
  private readonly policy: ErrorPolicy;
  private readonly plugins: PluginManager;
  private readonly redirectSlashes: boolean;
  /** Handed to every request it serves: one object, one store per request. */
  private readonly internals: RequestInternals;
  /** No app middleware: routing is the whole chain. */
  private readonly routed: boolean;

  constructor(options: RuntimeOptions) {
    this.table = options.table;
    this.policy = options.policy;
    this.plugins = options.plugins;
    this.redirectSlashes = options.redirectSlashes;
    const policy = options.policy;
    this.internals = {
      edge: options.edge,
      limits: options.limits,
      wsOrigins: options.wsOrigins,
      policy,
      // The app's logger is made on first use, not when the runtime is compiled.
      get logger() {
        return policy.logger;
      },
    };
    this.chain = composeActive(options.middleware, this.route);
    this.routed = this.chain === this.route;
  }

  /** Serves one request; synchronous when nothing on its path is asynchronous. Never throws. */
  serve(request: Request): MaybePromise<Response> {
    request[REQUEST_INTERNALS] = this.internals;
    if (this.plugins.hasRequestHooks) return this.serveWithHooks(request);
    let out: MaybePromise<Response>;
    try {
      out = this.chain(request);
    } catch (error) {
      out = errorResponse(error, request);
    }
    if (!(out instanceof Promise)) return stampId(out, request);
    return out.then(
      (response) => stampId(response, request),
      async (error: unknown) => stampId(await errorResponse(error, request), request),
    );
  }

  /**
   * `serve` handing the response to `deliver(response, context)`: at once when it is synchronous, else
   * from one continuation of the chain's promise, where `serve` and its caller would take two; an
   * endpoint that reads a body and is the whole chain answers through its callback, with no promise.
   */
  serveThen<C>(request: Request, deliver: (response: Response, context: C) => void, context: C): void {
    request[REQUEST_INTERNALS] = this.internals;
    if (this.plugins.hasRequestHooks) {
      void this.serveWithHooks(request).then((response) => deliver(response, context));
      return;
    }
    // Without app middleware routing is the whole chain, and a route that reads a body answers through
    // its callback (which never throws).
    const found = this.routed ? this.find(request) : undefined;
    const runThen = found?.runThen;
    if (runThen !== undefined) {
      runThen(request, (error, response) => {
        if (response !== undefined) deliver(stampId(response, request), context);
        else this.deliverError(error, request, deliver, context);
      });
      return;
    }
    let out: MaybePromise<Response>;
    try {
      if (!this.routed) out = this.chain(request);
      else out = found === undefined ? this.unmatched(request) : found.run(request);
    } catch (error) {
      out = errorResponse(error, request);
    }
    if (!(out instanceof Promise)) {
      deliver(stampId(out, request), context);
      return;
    }
    out.then(
      (response) => deliver(stampId(response, request), context),
      (error: unknown) => this.deliverError(error, request, deliver, context),
    );
  }

  /** The answer to a failure, delivered once it is known (plugins' `onError` hooks may take a while). */
  private deliverError<C>(error: unknown, request: Request, deliver: (response: Response, context: C) => void, context: C): void {
    const answer = errorResponse(error, request);
    if (answer instanceof Promise) void answer.then((response) => deliver(stampId(response, request), context));
    else deliver(stampId(answer, request), context);
  }

  private async serveWithHooks(request: Request): Promise<Response> {
    const plugins = this.plugins;
    const started = performance.now();
    if (plugins.listens('request_received')) plugins.emit('request_received', { request });
    const current = await plugins.preRequest(request);
    current[REQUEST_INTERNALS] = this.internals;
    let response: Response;
    try {
      response = await this.chain(current);
    } catch (error) {
      response = await errorResponse(error, current);
    }
    response = stampId(await plugins.postResponse(response, current), current);
    if (plugins.listens('response_sent')) {
      plugins.emit('response_sent', { request: current, response, duration: performance.now() - started });
    }
    return response;
  }

  /** Whether the request's route answers while startup runs, without waiting for it (health probes). */
  servesWhileStarting(request: Request): boolean {
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    return this.table.match(method, request.path)?.value.servesWhileStarting === true;
  }

  /** Routing: the innermost step of the app's middleware chain. */
  private readonly route = (request: Request): MaybePromise<Response> => {
    const found = this.find(request);
    return found === undefined ? this.unmatched(request) : found.run(request);
  };

  /** The request's route, its path parameters and template set on the request; undefined when none matches. */
  private find(request: Request): CompiledRoute | undefined {
    const method = request.method;
    let match = this.table.match(method, request.path);
    if (match === undefined && method === 'HEAD') match = this.table.match('GET', request.path);
    if (match === undefined) return undefined;
    request.pathParams = match.params;
    request.route = match.value.template;
    return match.value;
  }

  /** 404, or 308 to the registered path when only a trailing slash differs. */
  private unmatched(request: Request): Response {
    const path = request.path;
    if (this.redirectSlashes && path.length > 1) {
      const other = path.endsWith('/') ? path.slice(0, -1) : `${path}/`;
      const method = request.method === 'HEAD' ? 'GET' : request.method;
      if (this.table.match(method, other) !== undefined && !other.startsWith('//')) {
        const location = request.rawQuery ? `${other}?${request.rawQuery}` : other;
        return new Response(undefined, { statusCode: 308, headers: { location } });
      }
    }
    return problemResponse(problemDetails(404, `No endpoint for ${request.method} ${request.path}`));
  }
}
