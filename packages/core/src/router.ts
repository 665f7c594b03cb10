import type { InferInput, ParamsShape } from '@fnapi/validation';
import {
  decoratedEndpoints,
  defineEndpoint,
  type EndpointDefinition,
  type EndpointOptions,
  type Handler,
  isEndpointDefinition,
  type RouteOptions,
} from './endpoint.js';
import { assertMiddleware, type Middleware } from './pipeline.js';
import { joinPath } from './routing.js';

/** One endpoint as served: its full path and the routers (outermost first) it sits in. */
export interface RouteEntry {
  method: string;
  path: string;
  definition: EndpointDefinition;
  tags: string[];
  routers: RouteGroup[];
}

type Entry = { kind: 'endpoint'; definition: EndpointDefinition } | { kind: 'router'; router: Router };

/**
 * What the app and routers share: endpoints, nested routers and middleware. Changes are reported
 * upward, so a router included before its endpoints were added still serves them.
 */
export abstract class RouteGroup {
  readonly prefix: string;
  readonly tags: string[];
  protected readonly entries: Entry[] = [];
  protected readonly ownMiddleware: Middleware[] = [];
  private readonly listeners = new Set<() => void>();

  constructor(prefix = '', tags: string[] = []) {
    if (prefix && !prefix.startsWith('/')) throw new Error(`A router prefix starts with "/": got "${prefix}"`);
    this.prefix = prefix.replace(/\/+$/, '');
    this.tags = tags;
  }

  get middleware(): readonly Middleware[] {
    return this.ownMiddleware;
  }

  /** Registers an endpoint; returns `this` for chaining. */
  api<const R extends string, P extends ParamsShape = {}>(options: EndpointOptions<R, P>, handler: Handler<InferInput<R, P>>): this {
    return this.include(defineEndpoint(options, handler as Handler));
  }

  get<const R extends string, P extends ParamsShape = {}>(route: R, handler: Handler<InferInput<R, P>>): this;
  get<const R extends string, P extends ParamsShape = {}>(route: R, options: RouteOptions<P>, handler: Handler<InferInput<R, P>>): this;
  get(...args: unknown[]): this {
    return this.shorthand('GET', args);
  }

  post<const R extends string, P extends ParamsShape = {}>(route: R, handler: Handler<InferInput<R, P>>): this;
  post<const R extends string, P extends ParamsShape = {}>(route: R, options: RouteOptions<P>, handler: Handler<InferInput<R, P>>): this;
  post(...args: unknown[]): this {
    return this.shorthand('POST', args);
  }

  put<const R extends string, P extends ParamsShape = {}>(route: R, handler: Handler<InferInput<R, P>>): this;
  put<const R extends string, P extends ParamsShape = {}>(route: R, options: RouteOptions<P>, handler: Handler<InferInput<R, P>>): this;
  put(...args: unknown[]): this {
    return this.shorthand('PUT', args);
  }

  patch<const R extends string, P extends ParamsShape = {}>(route: R, handler: Handler<InferInput<R, P>>): this;
  patch<const R extends string, P extends ParamsShape = {}>(route: R, options: RouteOptions<P>, handler: Handler<InferInput<R, P>>): this;
  patch(...args: unknown[]): this {
    return this.shorthand('PATCH', args);
  }

  delete<const R extends string, P extends ParamsShape = {}>(route: R, handler: Handler<InferInput<R, P>>): this;
  delete<const R extends string, P extends ParamsShape = {}>(route: R, options: RouteOptions<P>, handler: Handler<InferInput<R, P>>): this;
  delete(...args: unknown[]): this {
    return this.shorthand('DELETE', args);
  }

  private shorthand(method: string, args: unknown[]): this {
    const [route, second, third] = args as [string, RouteOptions | Handler, Handler | undefined];
    const options = typeof second === 'function' ? {} : second;
    const handler = typeof second === 'function' ? second : third;
    if (typeof handler !== 'function') throw new TypeError(`${method} ${route}: the handler must be a function`);
    return this.include(defineEndpoint({ ...options, route, method }, handler));
  }

  /**
   * Registers endpoint definitions (`api(options)(fn)`), objects whose methods carry `@api`, or
   * arrays of either.
   */
  include(...items: unknown[]): this {
    for (const item of items) {
      if (Array.isArray(item)) {
        this.include(...item);
      } else if (isEndpointDefinition(item)) {
        this.addEntry({ kind: 'endpoint', definition: item });
      } else {
        const decorated = decoratedEndpoints(item);
        if (!decorated) throw new TypeError('include() takes endpoint definitions (api(options)(fn)) or objects with @api methods');
        for (const definition of decorated) this.addEntry({ kind: 'endpoint', definition });
      }
    }
    return this;
  }

  /** Serves a router's endpoints under its prefix, including endpoints added to it later. */
  includeRouter(router: Router): this {
    if (!(router instanceof Router)) throw new TypeError('includeRouter() takes a Router');
    if (router === (this as unknown) || router.contains(this)) throw new Error('A router cannot include itself or a router that includes it');
    this.addEntry({ kind: 'router', router });
    router.listeners.add(this.childChanged);
    return this;
  }

  /** Appends a middleware: the first added runs first on the way in. */
  addMiddleware(middleware: Middleware): this {
    assertMiddleware(middleware);
    this.ownMiddleware.push(middleware);
    this.notify();
    return this;
  }

  /** Every endpoint this group serves, with full paths. */
  routeEntries(): RouteEntry[] {
    const out: RouteEntry[] = [];
    this.collect('', [], [], out);
    return out;
  }

  private collect(prefix: string, tags: string[], routers: RouteGroup[], out: RouteEntry[]): void {
    const base = this.prefix ? joinPath(prefix, this.prefix) : prefix;
    const groupTags = [...tags, ...this.tags];
    const chain = [...routers, this];
    for (const entry of this.entries) {
      if (entry.kind === 'router') {
        entry.router.collect(base, groupTags, chain, out);
        continue;
      }
      const { definition } = entry;
      const { route, method } = definition.options;
      if (typeof route !== 'string' || (route !== '' && !route.startsWith('/'))) {
        throw new Error(`Route "${String(route)}" must start with "/"`);
      }
      out.push({
        method: (method ?? 'GET').toUpperCase(),
        path: joinPath(base, route),
        definition,
        tags: [...new Set([...groupTags, ...(definition.options.tags ?? [])])],
        routers: chain,
      });
    }
  }

  protected contains(group: RouteGroup): boolean {
    return this.entries.some((e) => e.kind === 'router' && (e.router === group || e.router.contains(group)));
  }

  private addEntry(entry: Entry): void {
    this.entries.push(entry);
    try {
      this.notify();
    } catch (error) {
      this.entries.splice(this.entries.indexOf(entry), 1);
      if (entry.kind === 'router') entry.router.listeners.delete(this.childChanged);
      throw error;
    }
  }

  private readonly childChanged = (): void => this.notify();

  /** Tells whoever includes this group that its routes or middleware changed. */
  protected notify(): void {
    this.changed();
    for (const listener of this.listeners) listener();
  }

  /** Hook for the app: validate and recompile. */
  protected changed(): void {}
}

export interface RouterOptions {
  /** Path prefix of every endpoint, e.g. `/users`. */
  prefix?: string;
  /** Tags added to every endpoint's documentation. */
  tags?: string[];
}

/** A group of endpoints under a prefix, with middleware that runs only for them. */
export class Router extends RouteGroup {
  constructor(options: RouterOptions = {}) {
    super(options.prefix ?? '', options.tags ?? []);
  }
}
