import { buildDocument, docsRoutes, type OperationDescription } from '@fnapi/openapi';
import { type ValidationIssue, validationProblem, type z } from '@fnapi/validation';
import { handlerMetadata } from './endpoint.js';
import { HTTPError, internalErrorProblem, type ProblemDetails, RequestValidationError } from './errors.js';
import { compileInvoker } from './invoke.js';
import { defaultLogger, type Logger, silentLogger } from './logger.js';
import { compose, type MaybePromise, type Step } from './pipeline.js';
import { PluginManager } from './plugins.js';
import type { Request } from './request.js';
import { problemResponse, Response } from './response.js';
import { RouteGroup, type RouteEntry } from './router.js';
import { pathParamNames, RouteTable } from './routing.js';
import { handleFetch } from './server/fetch.js';
import { inject, type InjectOptions, type InjectResponse } from './server/inject.js';
import { runNodeServer, type RunOptions, type RunningServer } from './server/node.js';
import type { EventName } from './plugins.js';
import type { Runtime, RuntimeLimits } from './transport.js';

export interface ValidationErrorFormat {
  /** Schema of the 422 body, documented in /openapi.json. */
  schema: z.ZodType;
  /** Builds the 422 body from the issues. */
  format(issues: readonly ValidationIssue[], request: Request): unknown;
}

export interface APIOptions {
  title?: string;
  description?: string;
  version?: string;
  /** Swagger UI page; default `/docs`; null turns it off. */
  docsUrl?: string | null;
  /** OpenAPI document; default `/openapi.json`; null turns it and both pages off. */
  openapiUrl?: string | null;
  /** ReDoc page; default `/redoc`; null turns it off. */
  redocUrl?: string | null;
  /** Load the docs pages' scripts and styles from this base URL instead of serving them. */
  docsCdn?: string;
  /** Detailed error bodies (exception name, message and stack) when true. */
  debug?: boolean;
  /** Largest accepted request body in bytes; default 1 MiB (413 past it). */
  bodyLimit?: number;
  /** A pino logger; `false` silences core's logging. */
  logger?: Logger | false;
  /** Replaces the 422 body everywhere, routers included. */
  validationError?: ValidationErrorFormat;
  /** Milliseconds to receive a request's headers; default 10 000. */
  headersTimeout?: number;
  /** Milliseconds to receive a whole request; default 30 000. */
  requestTimeout?: number;
  /** Milliseconds an idle keep-alive connection stays open; default 72 000. */
  keepAliveTimeout?: number;
  /** Milliseconds in-flight requests get to finish on shutdown; default 10 000. */
  shutdownTimeout?: number;
}

export interface RouteInfo {
  method: string;
  route: string;
  operationId: string;
}

interface CompiledRoute {
  template: string;
  run: Step;
}

type Lifecycle = () => unknown;

const NOT_FOUND_TITLE = 'Not Found';

/**
 * An API: endpoints, routers, middleware and plugins, served by `run()` (node:http), `fetch()` (Web
 * standard), `inject()` (in process) or a serverless adapter, all through the same `handle()`.
 */
export class API extends RouteGroup implements Runtime {
  readonly title: string;
  readonly description: string | undefined;
  readonly version: string;
  readonly docsUrl: string | null;
  readonly openapiUrl: string | null;
  readonly redocUrl: string | null;
  readonly debug: boolean;
  readonly bodyLimit: number;
  readonly options: Readonly<APIOptions>;
  readonly pluginManager: PluginManager;

  private loggerInstance: Logger | undefined;
  private readonly loggerOption: Logger | false | undefined;
  private table = new RouteTable<CompiledRoute>();
  private chain: Step;
  private routeList: RouteInfo[] = [];
  private readonly announced = new Set<string>();
  private readonly invokers = new WeakMap<object, Map<string, Step>>();
  private document: Record<string, unknown> | undefined;
  private operations: OperationDescription[] = [];
  private readonly startupCallbacks: Lifecycle[] = [];
  private readonly shutdownCallbacks: Lifecycle[] = [];
  private started: Promise<void> | undefined;
  private stopped: Promise<void> | undefined;
  private readonly validationFormat: ValidationErrorFormat | undefined;
  private readonly reportedErrors = new WeakSet<object>();

  constructor(options: APIOptions = {}) {
    super();
    this.options = options;
    this.title = options.title ?? 'fnapi';
    this.description = options.description;
    this.version = options.version ?? '0.1.0';
    this.openapiUrl = options.openapiUrl === undefined ? '/openapi.json' : options.openapiUrl;
    this.docsUrl = this.openapiUrl === null ? null : options.docsUrl === undefined ? '/docs' : options.docsUrl;
    this.redocUrl = this.openapiUrl === null ? null : options.redocUrl === undefined ? '/redoc' : options.redocUrl;
    this.debug = options.debug ?? false;
    this.bodyLimit = options.bodyLimit ?? 1024 * 1024;
    this.loggerOption = options.logger;
    this.validationFormat = options.validationError;
    this.pluginManager = new PluginManager(this, () => this.logger);
    this.chain = this.dispatch;
    this.rebuild();
  }

  /** The pino logger core logs through (also handed to plugins). */
  get logger(): Logger {
    if (this.loggerInstance === undefined) {
      this.loggerInstance =
        this.loggerOption === false ? silentLogger() : this.loggerOption ?? defaultLogger();
    }
    return this.loggerInstance;
  }

  /** The limits transports enforce, with defaults applied. */
  get limits(): RuntimeLimits {
    const o = this.options;
    return {
      bodyLimit: this.bodyLimit,
      headersTimeout: o.headersTimeout ?? 10_000,
      requestTimeout: o.requestTimeout ?? 30_000,
      keepAliveTimeout: o.keepAliveTimeout ?? 72_000,
      shutdownTimeout: o.shutdownTimeout ?? 10_000,
    };
  }

  /** Delivers an event to plugins. */
  emit(event: EventName, payload: Record<string, unknown>): void {
    this.pluginManager.emit(event, payload);
  }

  /** The endpoints served, in registration order. */
  get routes(): readonly RouteInfo[] {
    return this.routeList;
  }

  onStartup(callback: Lifecycle): this {
    this.startupCallbacks.push(callback);
    return this;
  }

  onShutdown(callback: Lifecycle): this {
    this.shutdownCallbacks.push(callback);
    return this;
  }

  /** Runs the startup callbacks once (servers and adapters call this before the first request). */
  startup(): Promise<void> {
    this.started ??= (async () => {
      this.stopped = undefined;
      for (const callback of this.startupCallbacks) await callback();
    })();
    return this.started;
  }

  /** Runs the shutdown callbacks once, in reverse order of registration. */
  shutdown(): Promise<void> {
    this.stopped ??= (async () => {
      this.started = undefined;
      for (const callback of [...this.shutdownCallbacks].reverse()) {
        try {
          await callback();
        } catch (error) {
          this.logger.error({ err: error }, 'shutdown callback failed');
        }
      }
    })();
    return this.stopped;
  }

  /** Starts a node:http server; resolves once listening. */
  run(options: RunOptions = {}): Promise<RunningServer> {
    return runNodeServer(this, options);
  }

  /** Web-standard handler: `Request` → `Promise<Response>`. */
  fetch = (request: globalThis.Request): Promise<globalThis.Response> => handleFetch(this, request);

  /** Runs one request through the whole stack without a socket. */
  inject(options: InjectOptions | string): Promise<InjectResponse> {
    return inject(this, typeof options === 'string' ? { url: options } : options);
  }

  /** The OpenAPI 3.1 document (built once, rebuilt after routes change). */
  openapi(): Record<string, unknown> {
    this.document ??= buildDocument(
      { title: this.title, version: this.version, description: this.description },
      this.operations,
      { validationErrorSchema: this.validationFormat?.schema },
    );
    return this.document;
  }

  /** Serves one request through plugins, middleware, routing and the endpoint. */
  handle(request: Request): Promise<Response> {
    const out = this.serve(request);
    return out instanceof Promise ? out : Promise.resolve(out);
  }

  /**
   * `handle` for servers: answers synchronously when nothing on the request's path is asynchronous
   * (no plugins, no middleware, no body to read, a sync handler), so such a request costs no promise.
   */
  serve(request: Request): MaybePromise<Response> {
    if (this.pluginManager.hasRequestHooks) return this.handleWithPlugins(request);
    let out: MaybePromise<Response>;
    try {
      out = this.chain(request);
    } catch (error) {
      return this.finalError(error, request);
    }
    return out instanceof Promise ? out.catch((error: unknown) => this.finalError(error, request)) : out;
  }

  private async handleWithPlugins(request: Request): Promise<Response> {
    const plugins = this.pluginManager;
    const started = performance.now();
    plugins.emit('request_received', { request });
    const current = await plugins.preRequest(request);
    let response: Response;
    try {
      response = await this.chain(current);
    } catch (error) {
      response = this.finalError(error, current);
    }
    response = await plugins.postResponse(response, current);
    plugins.emit('response_sent', { request: current, response, duration: performance.now() - started });
    return response;
  }

  /** Routing: the innermost step of the app's middleware chain. */
  private readonly dispatch = (request: Request): MaybePromise<Response> => {
    const method = request.method;
    let match = this.table.match(method, request.path);
    if (match === undefined && method === 'HEAD') match = this.table.match('GET', request.path);
    if (match === undefined) return this.notFound(request);
    request.pathParams = match.params;
    request.route = match.value.template;
    return match.value.run(request);
  };

  private notFound(request: Request): Response {
    return problemResponse({
      type: 'about:blank',
      title: NOT_FOUND_TITLE,
      status: 404,
      detail: `No endpoint for ${request.method} ${request.path}`,
    });
  }

  /** The problem response of an HTTPError (422 bodies come from the validation error format). */
  errorResponse(error: HTTPError, request: Request): Response {
    if (error instanceof RequestValidationError) {
      if (this.validationFormat) {
        const body = this.validationFormat.format(error.issues, request);
        return new Response(body, { statusCode: 422, mediaType: 'application/problem+json' });
      }
      return problemResponse(validationProblem([...error.issues]) as unknown as ProblemDetails);
    }
    return problemResponse(error.toProblem(), error.headers);
  }

  /** What an exception becomes once it has passed the outermost middleware. */
  private finalError(error: unknown, request: Request): Response {
    if (this.pluginManager.hasEventListeners && !(typeof error === 'object' && error && this.reportedErrors.has(error))) {
      this.pluginManager.emit('error_occurred', { error, request });
    }
    if (error instanceof HTTPError) return this.errorResponse(error, request);
    this.logger.error({ err: error, method: request.method, path: request.path }, 'unhandled error');
    return problemResponse(internalErrorProblem(error, this.debug, this.debug));
  }

  /** Wraps an endpoint: its errors are offered to plugins, and HTTP errors become responses here. */
  private endpointRunner(invoke: Step): Step {
    const failed = (error: unknown, request: Request): MaybePromise<Response> => {
      const plugins = this.pluginManager;
      if (plugins.hasEventListeners && typeof error === 'object' && error !== null) {
        this.reportedErrors.add(error);
        plugins.emit('error_occurred', { error, request });
      }
      if (plugins.hasErrorHooks) {
        return plugins.onError(error, request).then((answer) => {
          if (answer) return answer;
          if (error instanceof HTTPError) return this.errorResponse(error, request);
          throw error;
        });
      }
      if (error instanceof HTTPError) return this.errorResponse(error, request);
      throw error;
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

  protected override changed(): void {
    this.rebuild();
  }

  /**
   * Recompiles the route table and the middleware chain. Runs at registration time, so conflicts
   * are reported where the endpoint is added, and requests never pay for it.
   */
  private rebuild(): void {
    const entries = this.routeEntries();
    const table = new RouteTable<CompiledRoute>();
    const byOperationId = new Map<string, RouteEntry>();
    const operations: OperationDescription[] = [];
    const routes: RouteInfo[] = [];
    const fresh: RouteInfo[] = [];
    for (const entry of entries) {
      const pathParams = pathParamNames(entry.path);
      const { options, handler, name } = entry.definition;
      const operationId = options.operationId ?? (usableName(name) ? name : derivedOperationId(entry.method, entry.path));
      const clash = byOperationId.get(operationId);
      if (clash) {
        throw new Error(
          `operationId "${operationId}" is used by both ${clash.method} ${clash.path} and ${entry.method} ${entry.path}; ` +
            'give one of them an explicit operationId',
        );
      }
      byOperationId.set(operationId, entry);
      const routerMiddleware = entry.routers.slice(1).flatMap((group) => group.middleware);
      const run = compose(routerMiddleware, this.endpointRunner(this.invoker(entry, pathParams)));
      if (!table.add(entry.method, entry.path, { template: entry.path, run })) {
        throw new Error(`${entry.method} ${entry.path} is registered twice`);
      }
      const info = { method: entry.method, route: entry.path, operationId };
      routes.push(info);
      const key = `${entry.method} ${entry.path}`;
      if (!this.announced.has(key)) fresh.push(info);
      if (options.includeInSchema !== false) {
        const metadata = handlerMetadata(handler);
        const errorStatuses = [...(metadata?.errorStatuses ?? [])];
        if (options.timeout) errorStatuses.push(504);
        operations.push({
          method: entry.method,
          path: entry.path,
          operationId,
          summary: options.summary,
          description: options.description,
          tags: entry.tags.length ? entry.tags : undefined,
          deprecated: options.deprecated,
          plan: { method: entry.method, pathParams, params: options.params },
          response: options.response,
          statusCode: options.statusCode ?? 200,
          security: [...(options.security ?? []), ...(metadata?.security ?? [])],
          errorStatuses,
        });
      }
    }
    this.addDocsRoutes(table);
    this.table = table;
    this.routeList = routes;
    this.operations = operations;
    this.document = undefined;
    this.chain = compose(this.middleware, this.dispatch);
    for (const info of fresh) {
      this.announced.add(`${info.method} ${info.route}`);
      this.pluginManager.emit('endpoint_registered', { ...info });
    }
  }

  private invoker(entry: RouteEntry, pathParams: string[]): Step {
    let perPath = this.invokers.get(entry.definition);
    if (!perPath) this.invokers.set(entry.definition, (perPath = new Map()));
    const key = `${entry.method} ${entry.path}`;
    let invoker = perPath.get(key);
    if (!invoker) perPath.set(key, (invoker = compileInvoker(entry.method, entry.path, pathParams, entry.definition)));
    return invoker;
  }

  private addDocsRoutes(table: RouteTable<CompiledRoute>): void {
    const openapiUrl = this.openapiUrl;
    if (openapiUrl === null) return;
    const documentRoute = async () =>
      new Response(this.openapi(), { mediaType: 'application/json', headers: { 'cache-control': 'no-cache' } });
    table.add('GET', openapiUrl, { template: openapiUrl, run: documentRoute });
    const pages = docsRoutes({
      title: this.title,
      openapiUrl,
      docsUrl: this.docsUrl,
      redocUrl: this.redocUrl,
      cdn: this.options.docsCdn,
    });
    for (const page of pages) {
      const run = async () =>
        new Response(await page.body(), { mediaType: page.contentType, headers: page.headers });
      // A user endpoint on the same path wins.
      table.add('GET', page.path, { template: page.path, run });
    }
  }
}

function usableName(name: string): boolean {
  return name !== '' && name !== 'anonymous' && !name.startsWith('bound ');
}

function derivedOperationId(method: string, path: string): string {
  const slug = path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  return `${method.toLowerCase()}_${slug || 'root'}`;
}
