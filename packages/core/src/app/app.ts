import { type DocsUi, type DocumentInfo, type OpenAPIVersion, requireDocsUi, type SchemaProblem } from '@fnapi/openapi';
import { checkParams, type Duration, durationMs, durationSeconds, HOUR } from '@fnapi/validation';
import { DEFAULT_BODY_LIMIT } from '../http/body.js';
import { compile, type RegisteredEndpoint } from '../serve/compile.js';
import { type DocumentSettings, describeApp, docsBuiltins } from '../document/openapi.js';
import { type EdgeSettings, edgeSettings, type TrustProxy } from '../platform/proxy-trust.js';
import { defaultLogger, type Logger, silentLogger } from '../platform/logger.js';
import { type EventName, PluginManager } from '../serve/plugins.js';
import type { Request } from '../http/request.js';
import type { Deliver } from '../serve/runtime-contract.js';
import { RouteGroup, type RouteEntry, Router } from './route-group.js';
import { checkStreamOptions } from '../serve/streams.js';
import { pathParamNames, RouteTable } from '../serve/route-table.js';
import type { AppRuntime } from '../serve/runtime.js';
import type { ErrorPolicy, ValidationErrorFormat } from '../serve/funnel.js';
import { drain, warnAbandoned } from '../http/deferred.js';
import { handleFetch } from '../server/fetch.js';
import { inject, type InjectOptions, type InjectResponse } from '../server/inject.js';
import { runClusterPrimary, shouldRunCluster } from '../server/cluster.js';
import { type RunOptions, type RunningServer, runNodeServer } from '../server/node.js';
import { chooseOperationId } from './operation-ids.js';
import { endpointTerms } from './endpoint-terms.js';
import { SchemeNames } from './scheme-names.js';
import { type Extension, EXTENSIONS, Extensions } from './extensions.js';
import { RUNTIME, type Runtime, type RuntimeLimits, type Servable } from '../serve/runtime-contract.js';
import { DEFAULT_MAX_FILES, DEFAULT_UPLOAD_LIMIT } from '../uploads/limits.js';
import { undocumentedSchemas } from '../document/schema-warnings.js';
import { ServingState } from '../serve/serving-state.js';
import { asyncapiBuiltins, describeWebSockets, withServers } from '../document/asyncapi.js';
import { webSocketOf } from '../ws/endpoint.js';
import { bunWebSocketHandler, type BunWebSocketHandler } from '../ws/fetch.js';
import { checkDependencies, checkUses, type Dependency, type DependencyNode, nodeOf, replacementNode } from '../serve/dependency.js';
import {
  AppScope,
  buildPlan,
  type DependencyRunner,
  dependencyRunner as runnerOf,
  type Overrides,
  type PlanInput,
} from '../serve/resolve.js';
import { CLIENT_OVERRIDES, type ClientOverridesHandle, countClient, type Replacement } from '../serve/overrides.js';

export type { Replacement };
import { handlerMetadata } from '../serve/endpoint.js';

/** What `app.override` returns: `restore()` puts the replaced dependency back (also `using`). */
export interface OverrideHandle {
  restore(): void;
  [Symbol.dispose](): void;
}

/**
 * The one resolver for runs that are not HTTP requests (job runs, tool calls): `uses` resolved with
 * the app's `'app'` values and overrides; `run(context)` gives the values and their teardown.
 */
export function dependencyRunner(app: API, uses: Record<string, Dependency<any>>, where: string): DependencyRunner {
  return runnerOf(app[APP_SCOPE], checkUses(uses, where), where);
}

/** The key of an app's scope of 'app' values (for `dependencyRunner`). */
const APP_SCOPE: unique symbol = Symbol('fnapi.appScope');

export type { ValidationErrorFormat };

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
  /**
   * Where the app serves Swagger UI's and ReDoc's files itself (a path or URL prefix), by their package
   * file names (`swagger-ui.css`, `swagger-ui-bundle.js`, `favicon-32x32.png`, `redoc.standalone.js`):
   * the pages link there rather than to the installed copies or, where there is no file system
   * (Workers), the CDN.
   */
  docsAssetsUrl?: string;
  /** Where the API is served, for the document's `servers` (and Swagger UI's server list). */
  servers?: DocumentInfo['servers'];
  /** The document's `info.contact`. */
  contact?: DocumentInfo['contact'];
  /** The document's `info.license`: a name, and an SPDX `identifier` or a `url`. */
  license?: DocumentInfo['license'];
  /** The document's `info.termsOfService` (a URL). */
  termsOfService?: string;
  /** Descriptions of the tags endpoints use, in the order the docs pages show them. */
  tags?: DocumentInfo['tags'];
  /** Detailed error bodies (exception name, message and stack) when true. */
  debug?: boolean;
  /** Largest accepted request body in bytes; default 1 MiB (413 past it). */
  bodyLimit?: number;
  /** A pino logger; `false` silences core's logging. */
  logger?: Logger | false;
  /** Replaces the 422 body everywhere, routers included. */
  validationError?: ValidationErrorFormat;
  /** Answer a path that differs from a route only by a trailing slash with 308 to it; default true. */
  redirectSlashes?: boolean;
  /** Seconds (or a string with a unit, `'10s'`) to receive a request's headers; default 10. A number over an hour is refused. */
  headersTimeout?: Duration;
  /** Seconds (or `'30s'`) to receive a whole request; default 30. A number over an hour is refused. */
  requestTimeout?: Duration;
  /** Seconds (or `'72s'`) an idle keep-alive connection stays open; default 72. A number over an hour is refused. */
  keepAliveTimeout?: Duration;
  /**
   * Seconds (or `'10s'`) in-flight requests get to finish on shutdown, counted from the end of
   * `shutdownDelay`; default 10. A number over an hour is refused.
   */
  shutdownTimeout?: Duration;
  /**
   * Seconds (or `'5s'`) a server goes on serving after SIGTERM, while readiness (`app.serving.ready`, `/readyz`)
   * already fails, before it drains: the time a load balancer needs to stop sending; default 0. A
   * number over an hour is refused.
   */
  shutdownDelay?: Duration;
  /** Header the incoming request id is taken from; default `'x-request-id'`; `false` always generates one. */
  requestIdHeader?: string | false;
  /**
   * Which proxies' `X-Forwarded-For`/`-Proto`/`-Host` are believed (for `request.ip`, `request.url`):
   * `false` none (default), `true` every hop, a number of hops, or addresses and CIDR ranges.
   */
  trustProxy?: TrustProxy;
  /** The OpenAPI version of the document: `'3.1.0'` (default) or `'3.2.0'` (stream items as `itemSchema`). */
  openapiVersion?: OpenAPIVersion;
  /** Largest accepted multipart body (uploads) in bytes; default 100 MiB (413 past it). */
  uploadLimit?: number;
  /** Most files accepted in one multipart request; default 10 (413 past it). */
  maxFiles?: number;
  /**
   * Seconds (or `'10m'`) an upload endpoint's body may take, in place of `requestTimeout` (default 600):
   * an upload that keeps sending is not cut off, and one is answered 408 only when no byte has arrived
   * for `headersTimeout`. A number over an hour is refused.
   */
  uploadTimeout?: Duration;
  /**
   * Browser origins (`https://app.example`) allowed to open the app's WebSockets besides a request's
   * own; any other `Origin` is refused with 403 before the upgrade.
   */
  wsOrigins?: readonly string[];
  /** AsyncAPI 3.0 document of the WebSocket endpoints; default `/asyncapi.json` when there are any; null turns it off. */
  asyncapiUrl?: string | null;
  /**
   * Dependencies run for every endpoint, for their effect (a guard, an audit), first. A guard here
   * leaves the document, the docs pages and the health probes open.
   */
  dependencies?: readonly Dependency<any>[];
  /**
   * Documents of parts of the API (versions are routers), each served with its docs pages at
   * `/<key>/openapi.json`, `/<key>/docs` and `/<key>/redoc` beside the whole document:
   * `{ v1: { routers: [v1] }, v2: { routers: [v2] } }`.
   */
  documents?: Record<string, DocumentOptions>;
  /** The page at `docsUrl`: Swagger UI (default) or Scalar's API reference (`@scalar/api-reference` installed). */
  docsUi?: DocsUi;
}

/** One of `documents`: the routers whose endpoints it describes (nested routers' included), and its `info`. */
export interface DocumentOptions {
  routers: readonly Router[];
  /** Default: the app's `title`. */
  title?: string;
  /** Default: the app's `version`. */
  version?: string;
  /** Default: the app's `description`. */
  description?: string;
}

export interface RouteInfo {
  method: string;
  route: string;
  operationId: string;
  /** Its dependencies, in the order they run (`fnapi routes --deps`); absent when it has none. */
  dependencies?: DependencyInfo[];
}

/** One dependency of an endpoint as `app.routes` describes it, with what it uses below it. */
export interface DependencyInfo {
  name: string;
  lifetime: 'app' | 'request' | 'call';
  guard: boolean;
  cache: boolean;
  /** The name its value is used under (`uses`); absent for one run for its effect. */
  as?: string;
  /** Where it was given: the app's, a router's or the endpoint's `dependencies`, or a `uses`. */
  from: 'app' | 'router' | 'endpoint' | 'uses';
  uses: DependencyInfo[];
}

function dependencyInfo(dependency: Dependency, from: DependencyInfo['from'], as?: string): DependencyInfo {
  const node = nodeOf(dependency);
  return {
    name: node.name,
    lifetime: node.lifetime,
    guard: node.kind === 'guard',
    cache: node.cache,
    ...(as === undefined ? {} : { as }),
    from,
    uses: node.uses.map(([name, used]) => dependencyInfo(used, 'uses', name)),
  };
}

type Lifecycle = () => unknown;

/**
 * An API: endpoints, routers, middleware and plugins. Registration only records and checks; the
 * route table and chains are compiled before the first request (and again after a later change).
 * `run()` (node:http), `fetch()` (Web standard), `inject()` (in process) and the serverless adapters
 * serve it through its `Runtime`, kept behind one symbol (`runtimeOf(app)` in `@fnapi/core/transport`).
 */
export class API extends RouteGroup implements Servable {
  readonly title: string;
  readonly description: string | undefined;
  readonly version: string;
  readonly docsUrl: string | null;
  readonly openapiUrl: string | null;
  readonly redocUrl: string | null;
  readonly debug: boolean;
  readonly bodyLimit: number;
  readonly limits: Readonly<RuntimeLimits>;
  readonly options: Readonly<APIOptions>;
  readonly pluginManager: PluginManager;
  /** Starting, ready, stopping or stopped (what a readiness probe asks). */
  readonly serving = new ServingState();

  private loggerInstance: Logger | undefined;
  /** Every endpoint, by `METHOD path`, in registration order. */
  private readonly registry = new Map<string, RegisteredEndpoint>();
  private readonly operationIds = new Map<string, RegisteredEndpoint>();
  private readonly schemeNames = new SchemeNames();
  /** The shapes of registered routes, for conflicts found at registration (`{id}` vs `{user_id}`). */
  private shapes = new RouteTable<true>();
  private runtime: AppRuntime | undefined;
  private document: Record<string, unknown> | undefined;
  /** The documents of `documents`, by key, built on first use. */
  private readonly partDocuments = new Map<string, Record<string, unknown>>();
  /** `GET` paths the documents of `documents` and their pages are served at, with what each is. */
  private readonly documentPaths = new Map<string, string>();
  /** Endpoints whose schemas were checked for a JSON Schema (see `warnUndocumented`). */
  private readonly schemasChecked = new WeakSet<object>();
  private asyncapiDocument: Record<string, unknown> | undefined;
  private readonly errorPolicy: ErrorPolicy;
  private readonly edge: EdgeSettings;
  private readonly startupCallbacks: Lifecycle[] = [];
  private readonly shutdownCallbacks: Lifecycle[] = [];
  private started: Promise<void> | undefined;
  /** Startup has been asked for at least once: the app no longer takes extensions. */
  private startupBegun = false;
  private stopped: Promise<void> | undefined;
  private readonly served = new AppServing(this, () => this.runtime ?? this.compiled());
  /** @internal What transports serve the app through (`runtimeOf(app)`). */
  readonly [RUNTIME]: Runtime = this.served;
  /** @internal The extensions attached and the capabilities they left (`@fnapi/core/extend`). */
  readonly [EXTENSIONS] = new Extensions({ endpoints: () => this.registry.values(), changed: () => this.changed() });
  /** Replacements from `app.override`, by the dependency they replace. */
  private overrideMap: Overrides = new Map();
  /** The values of `'app'` dependencies. */
  private readonly scope = new AppScope(
    () => this.overrideMap,
    () => this.logger,
  );
  /** @internal */
  get [APP_SCOPE](): AppScope {
    return this.scope;
  }

  constructor(options: APIOptions = {}) {
    super('', [], options.dependencies);
    this.options = options;
    this.title = options.title ?? 'fnapi';
    this.description = options.description;
    this.version = options.version ?? '0.1.0';
    this.openapiUrl = options.openapiUrl === undefined ? '/openapi.json' : options.openapiUrl;
    this.docsUrl = this.openapiUrl === null ? null : options.docsUrl === undefined ? '/docs' : options.docsUrl;
    this.redocUrl = this.openapiUrl === null ? null : options.redocUrl === undefined ? '/redoc' : options.redocUrl;
    if (options.openapiVersion !== undefined && options.openapiVersion !== '3.1.0' && options.openapiVersion !== '3.2.0') {
      throw new Error(`openapiVersion is '3.1.0' or '3.2.0', got ${JSON.stringify(options.openapiVersion)}`);
    }
    if (options.docsUi !== undefined) requireDocsUi(options.docsUi, { cdn: options.docsCdn, assetsUrl: options.docsAssetsUrl });
    this.checkDocuments(options.documents);
    this.debug = options.debug ?? false;
    this.bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
    this.limits = Object.freeze({
      bodyLimit: this.bodyLimit,
      headersTimeout: timeoutMs('headersTimeout', options.headersTimeout, 10),
      requestTimeout: timeoutMs('requestTimeout', options.requestTimeout, 30),
      keepAliveTimeout: timeoutMs('keepAliveTimeout', options.keepAliveTimeout, 72),
      shutdownTimeout: timeoutMs('shutdownTimeout', options.shutdownTimeout, 10),
      uploadLimit: options.uploadLimit ?? DEFAULT_UPLOAD_LIMIT,
      maxFiles: options.maxFiles ?? DEFAULT_MAX_FILES,
      uploadTimeout: timeoutMs('uploadTimeout', options.uploadTimeout, 600, false),
      shutdownDelay: timeoutMs('shutdownDelay', options.shutdownDelay, 0),
    });
    this.edge = edgeSettings(options.requestIdHeader, options.trustProxy);
    this.pluginManager = new PluginManager(this, () => this.logger);
    const app = this;
    this.errorPolicy = {
      plugins: this.pluginManager,
      get logger() {
        return app.logger;
      },
      debug: this.debug,
      validationError: options.validationError,
    };
  }

  /** The pino logger core logs through (also handed to plugins). */
  get logger(): Logger {
    const option = this.options.logger;
    return (this.loggerInstance ??= option === false ? silentLogger() : (option ?? defaultLogger()));
  }

  /** The endpoints served, in registration order. */
  get routes(): readonly RouteInfo[] {
    this.compiled();
    return [...this.registry.values()].map(({ method, path, operationId, dependencyInput, routers }) => {
      if (dependencyInput === undefined) return { method, route: path, operationId };
      const fromRouters = new Set((routers as unknown as readonly RouteGroup[]).flatMap((router) => router.dependencies));
      return {
        method,
        route: path,
        operationId,
        dependencies: [
          ...dependencyInput.outer.map((d) => dependencyInfo(d, fromRouters.has(d) && !this.dependencies.includes(d) ? 'router' : 'app')),
          ...dependencyInput.own.map((d) => dependencyInfo(d, 'endpoint')),
          ...dependencyInput.uses.map(([name, d]) => dependencyInfo(d, 'uses', name)),
        ],
      };
    });
  }

  /**
   * Adds an extension (`mcp(…)`, a `Jobs`): calls its `attach(app)` once. The same extension twice is
   * an error, and so is extending an app that has started.
   */
  extend(extension: Extension<this>): this {
    if (this.startupBegun) throw new Error('app.extend() after startup: extend the app before it serves');
    if (!this[EXTENSIONS].add(extension)) throw new Error('app.extend(): this extension is attached already');
    extension.attach(this);
    return this;
  }

  onStartup(callback: Lifecycle): this {
    this.startupCallbacks.push(callback);
    return this;
  }

  onShutdown(callback: Lifecycle): this {
    this.shutdownCallbacks.push(callback);
    return this;
  }

  /**
   * Runs the startup callbacks once (every transport calls this before the first request); callers
   * that arrive meanwhile share the run. A failed run rejects, and the next call tries again.
   */
  startup(): Promise<void> {
    // Set before the callbacks run: an extension added by the first one is refused too.
    this.startupBegun = true;
    this.started ??= (async () => {
      this.stopped = undefined;
      this.compiled();
      this.serving.to('starting');
      for (const callback of this.startupCallbacks) await callback();
      // 'app' dependencies the endpoints reach: after the callbacks, before the app reports ready.
      // (No await without any: an app without them is ready in the same turn, as it always was.)
      const appDependencies = this.appDependencies();
      if (appDependencies.length > 0) await this.scope.makeAll(appDependencies);
      this.served.ready = true;
      this.serving.to('ready');
    })().catch((error: unknown) => {
      this.started = undefined;
      throw error;
    });
    return this.started;
  }

  /**
   * Runs the shutdown callbacks once, in reverse order of registration. `deadline` (a
   * `performance.now()` instant) is set by a server whose own drain of in-flight requests already
   * used part of the one `shutdownTimeout`: the deferred work gets what is left, not a second one.
   */
  shutdown(deadline?: number): Promise<void> {
    this.stopped ??= (async () => {
      this.started = undefined;
      this.served.ready = false;
      this.serving.to('stopping');
      // Work deferred by answered requests (`request.defer`) and work handed to `request.waitUntil`
      // with no platform to take it finish before anything closes, within one `shutdownTimeout`.
      const limit = deadline === undefined ? this.limits.shutdownTimeout : Math.max(0, deadline - performance.now());
      warnAbandoned(this.logger, await drain(this[RUNTIME], limit));
      await this.scope.close();
      for (const callback of [...this.shutdownCallbacks].reverse()) {
        try {
          await callback();
        } catch (error) {
          this.logger.error({ err: error }, 'shutdown callback failed');
        }
      }
      this.serving.to('stopped');
    })();
    return this.stopped;
  }

  /**
   * Starts a node:http server; resolves once listening. With `workers` > 1 this process becomes the
   * primary of a `node:cluster` whose workers each run this same entry and serve the shared port.
   */
  async run(options: RunOptions = {}): Promise<RunningServer> {
    // Imported statically: a dynamic import() would make single-file bundlers (esbuild) wrap every
    // module it reaches, zod included, in lazy initializers that all run at start — several times
    // what loading these two modules costs. They take node:http and node:cluster only when called.
    if (shouldRunCluster(options.workers)) {
      return runClusterPrimary(this[RUNTIME], { workers: options.workers!, handleSignals: options.handleSignals });
    }
    return runNodeServer(this[RUNTIME], options);
  }

  /**
   * Web-standard handler: `Request` → `Promise<Response>`, for Bun, Deno, Cloudflare Workers and any
   * server of Web requests; `export default app` serves where a runtime takes a default export with
   * `fetch`. Workers pass their bindings (`env`) and execution context (`ctx`): `request.platform`.
   * Under Bun the second argument is the server (WebSocket upgrades use it).
   */
  fetch = (request: globalThis.Request, env?: unknown, ctx?: unknown): Promise<globalThis.Response> =>
    handleFetch(this[RUNTIME], request, env, ctx);

  /** Whether any WebSocket endpoint is registered. */
  get hasWebSockets(): boolean {
    for (const endpoint of this.registry.values()) if (webSocketOf(endpoint.definition)) return true;
    return false;
  }

  /** The WebSocket handler object `Bun.serve({ fetch: app.fetch, websocket: app.websocket })` takes. */
  get websocket(): BunWebSocketHandler {
    return bunWebSocketHandler(this[RUNTIME]);
  }

  /**
   * The AsyncAPI 3.0 document of the WebSocket endpoints; its `servers` are the API's `servers` (a
   * relative one on `origin`), else `origin` (`/asyncapi.json` passes the request's).
   */
  asyncapi(origin?: string): Record<string, unknown> {
    this.compiled();
    const document = (this.asyncapiDocument ??= describeWebSockets(this.documentSettings(), this.registry.values()));
    return withServers(document, this.options.servers, origin);
  }

  /** Runs one request through the whole stack without a socket. */
  inject(options: InjectOptions | string): Promise<InjectResponse> {
    return inject(this[RUNTIME], typeof options === 'string' ? { url: options } : options);
  }

  /**
   * The OpenAPI document, 3.1 or as `openapiVersion` says (built on first use, again after routes
   * change); with a key of `documents`, that document.
   */
  openapi(key?: string): Record<string, unknown> {
    this.compiled();
    if (key !== undefined) return this.documentOf(key);
    return (this.document ??= describeApp(this.documentSettings(), this.registry.values(), this.schemaProblem));
  }

  /** One of `documents`: the endpoints under its routers, with its own `info`. */
  private documentOf(key: string): Record<string, unknown> {
    const spec = this.options.documents?.[key];
    if (spec === undefined || !Object.hasOwn(this.options.documents!, key)) {
      const keys = Object.keys(this.options.documents ?? {});
      throw new Error(
        `No document "${key}": ${keys.length ? `the app's documents are ${keys.map((k) => `"${k}"`).join(', ')}` : 'the app has no documents option'}`,
      );
    }
    let document = this.partDocuments.get(key);
    if (document === undefined) {
      const routers = new Set<unknown>(spec.routers);
      const endpoints = [...this.registry.values()].filter((endpoint) => endpoint.routers.some((router) => routers.has(router)));
      const settings = this.documentSettings();
      document = describeApp(
        {
          ...settings,
          title: spec.title ?? settings.title,
          version: spec.version ?? settings.version,
          description: spec.description ?? settings.description,
        },
        endpoints,
        this.schemaProblem,
      );
      this.partDocuments.set(key, document);
    }
    return document;
  }

  /** Checks `documents` and records the paths of each document and its pages. */
  private checkDocuments(documents: APIOptions['documents']): void {
    if (documents === undefined) return;
    if (this.openapiUrl === null) throw new Error('documents: openapiUrl is null, so no document is served; remove one of them');
    for (const [key, spec] of Object.entries(documents)) {
      if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(key)) {
        throw new Error(
          `documents: a key is one path segment of letters, digits, ".", "_" or "-" (it names /<key>/openapi.json), got "${key}"`,
        );
      }
      if (!Array.isArray(spec?.routers) || spec.routers.length === 0 || !spec.routers.every((r) => r instanceof Router)) {
        throw new Error(`documents.${key}: routers is a list of the Routers the document describes, e.g. { routers: [v1] }`);
      }
      for (const url of [this.openapiUrl, this.docsUrl, this.redocUrl]) {
        if (url !== null)
          this.documentPaths.set(`/${key}${url}`, `the ${url === this.openapiUrl ? 'document' : 'docs page'} of document "${key}"`);
      }
    }
  }

  private readonly schemaProblem = (problem: SchemaProblem): void =>
    this.logger.error(
      { err: problem.error, method: problem.method, path: problem.path, operationId: problem.operationId, parameter: problem.parameter },
      `OpenAPI: ${problem.parameter} of ${problem.method} ${problem.path} cannot be documented; ` +
        (problem.parameter === 'parameters' ? 'the operation is left out of the document' : 'shown as an open schema'),
    );
  /**
   * Replaces a dependency for every request from now on (tests), until `restore()` on what is
   * returned (or the end of its `using` block). A function replacement keeps the dependency's
   * lifetime and cache. The document does not change.
   */
  override<T>(dependency: Dependency<T>, replacement: Replacement<NoInfer<T>>): OverrideHandle {
    const node = replacementNode(dependency, replacement);
    const hadBefore = this.overrideMap.has(dependency);
    const before = this.overrideMap.get(dependency);
    this.setOverrides(new Map(this.overrideMap).set(dependency, node));
    let restored = false;
    const restore = () => {
      if (restored) return;
      restored = true;
      const next = new Map(this.overrideMap);
      if (hadBefore) next.set(dependency, before!);
      else next.delete(dependency);
      this.setOverrides(next);
    };
    return { restore, [Symbol.dispose]: restore };
  }

  /** @internal A test client's overrides: its own scope of 'app' values over the app's. */
  [CLIENT_OVERRIDES](pairs: readonly (readonly [Dependency, unknown])[]): ClientOverridesHandle {
    const map = new Map<Dependency, DependencyNode>(this.overrideMap);
    for (const pair of pairs) {
      if (!Array.isArray(pair) || pair.length !== 2) throw new TypeError('overrides is a list of [dependency, replacement] pairs');
      checkUses({ dependency: pair[0] }, 'overrides');
      map.set(pair[0], replacementNode(pair[0], pair[1]));
    }
    const scope = new AppScope(
      () => map,
      () => this.logger,
      this.scope,
    );
    const uncount = countClient();
    return {
      scope,
      close: async () => {
        uncount();
        await scope.close();
      },
    };
  }

  private setOverrides(next: Overrides): void {
    this.overrideMap = next;
    for (const endpoint of this.registry.values()) if (endpoint.dependencyInput !== undefined) endpoint.invoker = undefined;
    this.changed();
  }

  /** The 'app' dependencies reached by the registered endpoints, in order. */
  private appDependencies(): Dependency[] {
    const found = new Set<Dependency>();
    for (const endpoint of this.registry.values()) {
      if (endpoint.dependencyInput === undefined) continue;
      const plan = this.overrideMap.size === 0 ? endpoint.plan : buildPlan(endpoint.dependencyInput, this.scope);
      for (const dependency of plan?.appDependencies ?? []) found.add(dependency);
    }
    return [...found];
  }

  /** What an endpoint's dependencies are made of: the app's, its routers', its own and what it uses. */
  private dependencyInput(entry: RouteEntry, pathParams: string[], where: string): PlanInput | undefined {
    const { options, handler } = entry.definition;
    // Health probes answer before the app's 'app' values exist and are never behind the app's guards;
    // an extension's endpoints with a guard of their own (`/mcp`) say so too.
    const metadata = handlerMetadata(handler);
    const app = metadata?.servesWhileStarting === true || metadata?.outsideAppDependencies === true ? [] : this.dependencies;
    const outer = [...app, ...entry.routers.flatMap((router) => router.dependencies)];
    const own = checkDependencies(options.dependencies, where);
    const uses = checkUses(options.uses, where);
    if (outer.length === 0 && own.length === 0 && uses.length === 0) return undefined;
    return { where, pathParams, params: options.params, outer, own, uses };
  }

  /** The compiled runtime, built before the first request and again after a change. */
  private compiled(): AppRuntime {
    const current = this.runtime;
    if (current !== undefined) return current;
    this.warnUndocumented();
    return (this.runtime = compile({
      endpoints: this.registry.values(),
      builtins: [
        ...docsBuiltins(this.documentSettings(), [
          { prefix: '', document: () => this.openapi() },
          ...Object.keys(this.options.documents ?? {}).map((key) => ({ prefix: `/${key}`, document: () => this.openapi(key) })),
        ]),
        ...asyncapiBuiltins(this.options.asyncapiUrl, this.hasWebSockets, (origin) => this.asyncapi(origin)),
      ],
      middleware: [...this.middleware],
      policy: this.errorPolicy,
      plugins: this.pluginManager,
      lifecycle: this.served,
      redirectSlashes: this.options.redirectSlashes ?? true,
      edge: this.edge,
      limits: this.limits,
      wsOrigins: this.options.wsOrigins ?? [],
      transports: this[EXTENSIONS].transports,
      scope: this.scope,
    }));
  }

  /** Names, in one warning, the schemas (of endpoints not yet checked) that the document can only show as `{}`. */
  private warnUndocumented(): void {
    const found: string[] = [];
    for (const endpoint of this.registry.values()) {
      if (this.schemasChecked.has(endpoint)) continue;
      this.schemasChecked.add(endpoint);
      found.push(...undocumentedSchemas(endpoint));
    }
    if (found.length > 0) {
      this.logger.warn(
        { schemas: found },
        `OpenAPI: ${found.length === 1 ? 'a schema offers' : `${found.length} schemas offer`} no JSON Schema (no ~standard.jsonSchema) and ${found.length === 1 ? 'is' : 'are'} documented as {}: ${found.join('; ')}`,
      );
    }
  }

  private documentSettings(): DocumentSettings {
    return {
      title: this.title,
      version: this.version,
      description: this.description,
      openapiUrl: this.openapiUrl,
      docsUrl: this.docsUrl,
      redocUrl: this.redocUrl,
      docsCdn: this.options.docsCdn,
      docsAssetsUrl: this.options.docsAssetsUrl,
      docsUi: this.options.docsUi ?? 'swagger',
      validationError: this.options.validationError,
      middleware: this.middleware,
      // `fnapi openapi --openapi-version 3.2.0` asks for the other version of an app that names none.
      openapiVersion: this.options.openapiVersion ?? versionFromEnvironment(),
      maxFiles: this.options.maxFiles ?? DEFAULT_MAX_FILES,
      info: {
        servers: this.options.servers,
        contact: this.options.contact,
        license: this.options.license,
        termsOfService: this.options.termsOfService,
        tags: this.options.tags,
      },
    };
  }

  /**
   * Registration: each new endpoint is checked on the spot, in time that does not depend on how
   * many are registered (route syntax, parameters, duplicates, operationId clashes, conflicting
   * parameter names), then recorded. Nothing is compiled here.
   */
  protected override endpointsAdded(entries: readonly RouteEntry[]): void {
    const staged = new Map<string, RegisteredEndpoint>();
    const stagedIds = new Map<string, RegisteredEndpoint>();
    for (const entry of entries) {
      const where = `${entry.method} ${entry.path}`;
      const pathParams = pathParamNames(entry.path);
      const { options, name } = entry.definition;
      checkStreamOptions(options, where);
      if (options.timeout !== undefined) durationSeconds(`${where}: timeout`, options.timeout, { maxNumber: HOUR });
      const dependencyInput = this.dependencyInput(entry, pathParams, where);
      const plan = dependencyInput === undefined ? undefined : buildPlan(dependencyInput, this.scope, new Map());
      try {
        checkParams({ method: entry.method, pathParams, params: plan?.params ?? options.params });
      } catch (error) {
        throw new Error(`${where}: ${(error as Error).message}`, { cause: error });
      }
      const page = (entry.method === 'GET' || entry.method === 'HEAD') && this.documentPaths.get(entry.path);
      if (page) throw new Error(`${where} collides with ${page}: choose another route or another document key`);
      if (this.registry.has(where) || staged.has(where)) {
        throw new Error(`${where} is registered twice: a method and route can have one endpoint`);
      }
      const operationId = chooseOperationId(
        options.operationId,
        name,
        entry.method,
        entry.path,
        (id) => this.operationIds.get(id) ?? stagedIds.get(id),
      );
      const endpoint: RegisteredEndpoint = { ...entry, operationId, pathParams, terms: endpointTerms(entry, where), dependencyInput, plan };
      staged.set(where, endpoint);
      stagedIds.set(operationId, endpoint);
    }
    const recordSchemeNames = this.schemeNames.check(entries);
    // Extensions (MCP's tools) check what they take of each endpoint before it is recorded.
    this[EXTENSIONS].endpointsAdded([...staged.values()]);
    try {
      for (const endpoint of staged.values()) this.shapes.add(endpoint.method, endpoint.path, true);
    } catch (error) {
      // Rare: put the table back as it was, from what is registered.
      this.shapes = new RouteTable<true>();
      for (const endpoint of this.registry.values()) this.shapes.add(endpoint.method, endpoint.path, true);
      throw error;
    }
    for (const [key, endpoint] of staged) {
      this.registry.set(key, endpoint);
      this.operationIds.set(endpoint.operationId, endpoint);
    }
    recordSchemeNames();
    this.changed();
    if (this.pluginManager.listens('endpoint_registered')) {
      for (const { method, path, operationId } of staged.values()) {
        this.pluginManager.emit('endpoint_registered', { method, route: path, operationId });
      }
    }
  }

  protected override changed(): void {
    this.runtime = undefined;
    this.document = undefined;
    this.partDocuments.clear();
    this.asyncapiDocument = undefined;
  }
}

/**
 * The app as its transports see it (`runtimeOf(app)`): serving, the lifecycle, the limits. Kept off the
 * `API` so that app authors see what they write, and a transport needs nothing else.
 */
class AppServing implements Runtime {
  /** Startup has completed and no shutdown has run since: the app sets it, each request reads it. */
  ready = false;
  constructor(
    private readonly app: API,
    /** The app's compiled runtime, compiled first when a change has dropped it. */
    private readonly current: () => AppRuntime,
  ) {}
  serve<C>(request: Request, deliver: Deliver<C>, context: C): void {
    this.current().serve(request, deliver, context);
  }
  startup(): Promise<void> {
    return this.app.startup();
  }
  shutdown(deadline?: number): Promise<void> {
    return this.app.shutdown(deadline);
  }
  get logger() {
    return this.app.logger;
  }
  emit(event: EventName, payload: Record<string, unknown>): void {
    this.app.pluginManager.emit(event, payload);
  }
  get limits() {
    return this.app.limits;
  }
  get debug() {
    return this.app.debug;
  }
  get serving() {
    return this.app.serving;
  }
  get hasWebSockets() {
    return this.app.hasWebSockets;
  }
}

/** A server limit in milliseconds, from seconds or a string with its unit (a number over an hour refused). */
function timeoutMs(name: string, value: Duration | undefined, defaultSeconds: number, zero = true): number {
  return value === undefined ? defaultSeconds * 1000 : durationMs(name, value, { maxNumber: HOUR, zero });
}

/** `FNAPI_OPENAPI_VERSION` (set by `fnapi openapi --openapi-version`), when it names a version fnapi writes. */
function versionFromEnvironment(): OpenAPIVersion | undefined {
  const value = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.FNAPI_OPENAPI_VERSION;
  return value === '3.1.0' || value === '3.2.0' ? value : undefined;
}
