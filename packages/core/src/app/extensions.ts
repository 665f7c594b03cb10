/**
 * The extension point: `app.extend(extension)` calls `extension.attach(app)` once, and an extension
 * may leave a capability on the app under a named key (`provide`), for a tool or another package to
 * find (`provided`) without knowing which package left it — `fnapi worker` finds the job runtime this
 * way. Keys are strings, so two copies of a package agree on them.
 */

import type { RegisteredEndpoint } from '../serve/compile.js';
import type { TransportRoute } from '../serve/runtime.js';

export type { TransportRoute };

/** Where an app keeps its `Extensions`. */
export const EXTENSIONS: unique symbol = Symbol.for('fnapi.extensions') as never;

/** An app, as the extension point sees it. */
export interface Extensible {
  readonly [EXTENSIONS]: Extensions;
}

/** Leaves a capability on the app under `key`, for a tool or another package to find. */
export function provide<T>(app: Extensible, key: ExtensionKey<T>, value: T): void {
  app[EXTENSIONS].provide(key, value);
}

/** What an extension left on the app under `key`, if any. */
export function provided<T>(app: Extensible, key: ExtensionKey<T>): T | undefined {
  return (app as Partial<Extensible>)[EXTENSIONS]?.provided(key);
}

/**
 * A middleware that is also an extension (it has `attach(app)`, as `MetricsMiddleware` does, to leave
 * its registry on the app): added to an app with `app.addMiddleware`, it is attached once, as
 * `app.extend` would. Added to a router, it is not: a router is no app.
 */
export function attachMiddleware(group: object, middleware: unknown): void {
  const extensions = (group as Partial<Extensible>)[EXTENSIONS];
  if (extensions === undefined || typeof (middleware as Partial<Extension> | null)?.attach !== 'function') return;
  if (extensions.add(middleware as Extension)) (middleware as Extension).attach(group);
}

/** Anything `app.extend` takes: an object that attaches itself to an app through the app's public hooks. */
export interface Extension<App = unknown> {
  attach(app: App): unknown;
}

/** A named capability and the type of what is left under it. */
export interface ExtensionKey<T> {
  readonly name: string;
  /** Never set: carries `T` for `provide` and `provided`. */
  readonly type?: T;
}

/** A key for a capability; the same name gives the same key in any copy of the package. */
export function extensionKey<T>(name: string): ExtensionKey<T> {
  return { name };
}

/** Called with the endpoints registered so far, then with each later batch before it is recorded: throwing refuses the batch. */
export type EndpointWatcher = (endpoints: readonly RegisteredEndpoint[]) => void;

/** Serves `route.path` as a transport of the app (see `TransportRoute`); one per path. */
export function addTransportRoute(app: Extensible, route: TransportRoute): void {
  app[EXTENSIONS].addTransport(route);
}

/** Lets an extension see every endpoint of the app, now and as it is registered (and refuse it by throwing). */
export function watchEndpoints(app: Extensible, watcher: EndpointWatcher): void {
  app[EXTENSIONS].watch(watcher);
}

/** What an app tells its `Extensions`: its endpoints so far, and that its compiled runtime is out of date. */
export interface ExtensionHost {
  endpoints(): Iterable<RegisteredEndpoint>;
  changed(): void;
}

/** What an app keeps of its extensions: the ones attached, and the capabilities they left. */
export class Extensions {
  private readonly attached = new Set<object>();
  private readonly capabilities = new Map<string, unknown>();
  private readonly watchers: EndpointWatcher[] = [];
  /** Transport routes by path; undefined while there are none (the runtime then checks nothing). */
  transports: Map<string, TransportRoute> | undefined;

  constructor(private readonly host?: ExtensionHost) {}

  addTransport(route: TransportRoute): void {
    this.transports ??= new Map();
    if (this.transports.has(route.path)) throw new Error(`${route.path} is served by another extension already`);
    this.transports.set(route.path, route);
    this.host?.changed();
  }

  watch(watcher: EndpointWatcher): void {
    watcher([...(this.host?.endpoints() ?? [])]);
    this.watchers.push(watcher);
  }

  /** Hands a batch of new endpoints to the watchers, before the app records it. */
  endpointsAdded(endpoints: readonly RegisteredEndpoint[]): void {
    for (const watcher of this.watchers) watcher(endpoints);
  }

  /** Records an extension; false when it was attached already. */
  add(extension: object): boolean {
    if (this.attached.has(extension)) return false;
    this.attached.add(extension);
    return true;
  }

  provide<T>(key: ExtensionKey<T>, value: T): void {
    this.capabilities.set(key.name, value);
  }

  provided<T>(key: ExtensionKey<T>): T | undefined {
    return this.capabilities.get(key.name) as T | undefined;
  }
}

/** What `fnapi worker` runs: the job workers of an app, without serving HTTP, until a signal stops them. */
export interface WorkerRuntime {
  /** `metrics`: serve the worker process's Prometheus metrics at `http://host:port/metrics`. */
  run(options: { handleSignals: boolean; metrics?: { port: number; host?: string | undefined } | undefined }): Promise<unknown>;
}

/** The one key under which a job runtime (`@fnapi/jobs`) offers `fnapi worker` its workers. */
export const WORKER_RUNTIME: ExtensionKey<WorkerRuntime> = extensionKey('fnapi.worker-runtime');

/**
 * What `@fnapi/mcp` leaves on an app for the `fnapi` command: where it serves Streamable HTTP, the tool
 * and resource catalogue as the protocol's lists give it, and a server for one stdio connection.
 */
export interface McpRuntime {
  readonly path: string;
  catalogue(): Promise<{ tools: unknown[]; resourceTemplates: unknown[] }>;
  server(context?: unknown): unknown;
}

/** The one key under which `mcp(…)` offers the `fnapi` command its tools. */
export const MCP_RUNTIME: ExtensionKey<McpRuntime> = extensionKey('fnapi.mcp');

/** The one key under which a metrics middleware offers its prom-client registry to other packages (jobs' metrics). */
export const METRICS_REGISTRY: ExtensionKey<unknown> = extensionKey('fnapi.metrics-registry');
