import { firstReport, problemDetails, ServiceUnavailableError } from '../http/errors.js';
import { FileResponse } from '../http/file-response.js';
import type { Request } from '../http/request.js';
import { authorityOf } from '../http/request-access.js';
import { REQUEST_INTERNALS, type RequestInternals } from '../http/request-internals.js';
import { fromWebResponse, problemResponse, Response } from '../http/response.js';
import type { Logger } from '../platform/logger.js';
import type { EdgeSettings } from '../platform/proxy-trust.js';
import { answerError, type ErrorPolicy } from './funnel.js';
import { composeActive, type Done, type Middleware, settle, type Step } from './pipeline.js';
import type { PluginManager } from './plugins.js';
import type { RouteTable } from './route-table.js';
import type { Deliver, RuntimeLimits } from './runtime-contract.js';

/** A compiled route: its template (for `request.route`) and its runner (router middleware + endpoint). */
export interface CompiledRoute {
  template: string;
  run: Step;
  /** Answered while startup runs rather than after it (health probes). */
  servesWhileStarting?: boolean;
}

/**
 * A path an extension answers itself, as a transport does (MCP's `/mcp`): the runtime serves it before
 * plugins and the app's middleware, so that the requests it makes through the app run them once.
 * Its failures go through the error funnel like any other.
 */
export interface TransportRoute {
  readonly path: string;
  serve(request: Request): Response | globalThis.Response | Promise<Response | globalThis.Response>;
}

/** What the runtime asks of the app's lifecycle: whether startup has run, and running it. */
export interface Lifecycle {
  readonly ready: boolean;
  /** Runs startup once; concurrent callers share the run; a failed run rejects and is tried again by the next call. */
  startup(): Promise<void>;
  readonly logger: Logger;
  /** Serves a request through the app's current runtime (once started, a later change may have replaced this one). */
  serve<C>(request: Request, deliver: Deliver<C>, context: C): void;
}

export interface RuntimeOptions {
  table: RouteTable<CompiledRoute>;
  /** The app's active middleware (`activeMiddleware`), outermost first. */
  middleware: readonly Middleware[];
  policy: ErrorPolicy;
  plugins: PluginManager;
  lifecycle: Lifecycle;
  /** Answer a path that differs from a route only by a trailing slash with 308 (default true). */
  redirectSlashes: boolean;
  /** `requestIdHeader` and `trustProxy`, handed to each request. */
  edge: EdgeSettings;
  /** The app's limits, for steps that read them per request (uploads). */
  limits: Readonly<RuntimeLimits>;
  /** Browser origins allowed to open the app's WebSockets besides a request's own (`wsOrigins`). */
  wsOrigins: readonly string[];
  /** Paths extensions answer as transports (MCP), before plugins and middleware. */
  transports?: ReadonlyMap<string, TransportRoute> | undefined;
}

/** A transport's answer as an fnapi `Response` (a Web one is streamed through). */
function asResponse(out: Response | globalThis.Response): Response {
  return out instanceof Response ? out : fromWebResponse(out);
}

/** A percent sign not followed by two hexadecimal digits. */
const MALFORMED_ESCAPE = /%(?![0-9A-Fa-f]{2})/;

/**
 * Why a request cannot be routed at all (400), or undefined: a path with a malformed percent-escape
 * (`%zz`, or escapes that are not UTF-8), or a host that is not one (`Host: a b`; with `trustProxy`,
 * `X-Forwarded-Host` too). Routing answers it, so middleware sees the 400 as a response.
 */
function badTarget(request: Request): string | undefined {
  const path = request.path;
  if (path.includes('%')) {
    if (MALFORMED_ESCAPE.test(path)) return 'Malformed percent-escape in the request path';
    try {
      decodeURIComponent(path);
    } catch {
      return 'Percent-escapes in the request path are not UTF-8';
    }
  }
  if (authorityOf(request) === undefined) return 'The request names an invalid host';
  return undefined;
}

/** No log line of the funnel for a startup failure: it is logged once, where startup failed. */
const QUIET = { logExceptions: false };

/**
 * One compiled snapshot of an app: the route table and the middleware chain, built by `compile`
 * and replaced after a later change. Serving is the startup gate, routing, the chain and the error
 * funnel, nothing more.
 */
export class AppRuntime {
  private readonly table: RouteTable<CompiledRoute>;
  private readonly chain: Step;
  private readonly plugins: PluginManager;
  private readonly lifecycle: Lifecycle;
  private readonly redirectSlashes: boolean;
  private readonly transports: ReadonlyMap<string, TransportRoute> | undefined;
  /** Handed to every request it serves: one object, one store per request. */
  private readonly internals: RequestInternals;

  constructor(options: RuntimeOptions) {
    this.table = options.table;
    this.plugins = options.plugins;
    this.lifecycle = options.lifecycle;
    this.redirectSlashes = options.redirectSlashes;
    this.transports = options.transports;
    const policy = options.policy;
    this.internals = {
      edge: options.edge,
      limits: options.limits,
      wsOrigins: options.wsOrigins,
      // The runtime transports see: its requests' deferred and kept work is counted under it, for the drain.
      owner: options.lifecycle,
      policy,
      // The app's logger is made on first use, not when the runtime is compiled.
      get logger() {
        return policy.logger;
      },
    };
    this.chain = composeActive(options.middleware, this.route);
  }

  /**
   * Serves one request: startup once, plugins, the middleware chain, routing, the endpoint; a failure
   * anywhere goes through the funnel. `deliver(response, context)` is called once, at once when nothing
   * on the request's path is asynchronous. Never throws.
   */
  serve<C>(request: Request, deliver: Deliver<C>, context: C): void {
    request[REQUEST_INTERNALS] = this.internals;
    const transport = this.transports?.get(request.path);
    if (transport !== undefined) this.serveTransport(transport, request, deliver, context);
    else if (!this.lifecycle.ready) this.serveWhenStarted(request, deliver, context);
    else if (this.plugins.hasRequestHooks)
      this.serveWithHooks(request).then(
        (response) => deliver(response, context),
        (error: unknown) => answerError(error, request, this.delivering(request, deliver, context)),
      );
    else this.chain(request, this.delivering(request, deliver, context));
  }

  /**
   * A path an extension answers as a transport: before plugins and middleware (the requests it makes
   * through the app meet them once), with its failures through the funnel.
   */
  private serveTransport<C>(transport: TransportRoute, request: Request, deliver: Deliver<C>, context: C): void {
    const done = this.delivering(request, deliver, context);
    let out: ReturnType<TransportRoute['serve']>;
    try {
      out = transport.serve(request);
    } catch (error) {
      done(error, undefined);
      return;
    }
    settle(out instanceof Promise ? out.then(asResponse) : asResponse(out), done);
  }

  /** The chain's `done` for one request: the answer (a file prepared, the id stamped) or the funnel's. */
  private delivering<C>(request: Request, deliver: Deliver<C>, context: C): Done {
    const done: Done = (error, response) => {
      if (response === undefined) answerError(error, request, done);
      else if (response instanceof FileResponse && !response.prepared) settle(response.prepare(request), done);
      else {
        // Every answer carries the request's id, set last so that no middleware (a cache) can replace it.
        response.requestId = request.id;
        deliver(response, context);
      }
    };
    return done;
  }

  /**
   * A request that comes before startup has run: it waits for the same startup, and is answered 503
   * (through the funnel) when startup fails; the next request tries again. A health probe is answered
   * at once while startup runs.
   */
  private serveWhenStarted<C>(request: Request, deliver: Deliver<C>, context: C): void {
    const lifecycle = this.lifecycle;
    const started = lifecycle.startup();
    if (this.servesWhileStarting(request)) {
      // Answered at once (`/readyz`: 503 while starting); startup runs, or goes on, meanwhile.
      started.catch((error: unknown) => this.startupFailed(error));
      this.chain(request, this.delivering(request, deliver, context));
      return;
    }
    started.then(
      () => lifecycle.serve(request, deliver, context),
      (error: unknown) => {
        this.startupFailed(error);
        const refusal = new ServiceUnavailableError('The service is starting and could not get ready; try again', undefined, {
          headers: { 'retry-after': '1' },
        });
        answerError(refusal, request, this.delivering(request, deliver, context), QUIET);
      },
    );
  }

  /** Requests waiting on the same failed run share one log line. */
  private startupFailed(error: unknown): void {
    if (firstReport(this.lifecycle, error))
      this.lifecycle.logger.error({ err: error }, 'startup failed; answering 503 until a later request starts the app');
  }

  private async serveWithHooks(request: Request): Promise<Response> {
    const plugins = this.plugins;
    const started = performance.now();
    if (plugins.listens('request_received')) plugins.emit('request_received', { request });
    const current = await plugins.preRequest(request);
    current[REQUEST_INTERNALS] = this.internals;
    let response = await new Promise<Response>((resolve) => this.chain(current, this.delivering(current, resolve, undefined)));
    response = await plugins.postResponse(response, current);
    response.requestId = current.id;
    if (plugins.listens('response_sent')) {
      plugins.emit('response_sent', { request: current, response, duration: performance.now() - started });
    }
    return response;
  }

  /** Whether the request's route answers while startup runs, without waiting for it (health probes). */
  private servesWhileStarting(request: Request): boolean {
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    return this.table.match(method, request.path)?.value.servesWhileStarting === true;
  }

  /** Routing: the innermost step of the app's middleware chain. */
  private readonly route: Step = (request, done) => {
    const refusal = badTarget(request);
    if (refusal !== undefined) {
      done(undefined, problemResponse(problemDetails(400, refusal)));
      return;
    }
    const method = request.method;
    let match = this.table.match(method, request.path);
    if (match === undefined && method === 'HEAD') match = this.table.match('GET', request.path);
    if (match === undefined) {
      done(undefined, this.unmatched(request));
      return;
    }
    request.pathParams = match.params;
    request.route = match.value.template;
    match.value.run(request, done);
  };

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
