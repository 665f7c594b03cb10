import type { InferInput, ParamsShape, Schema } from '@fnapi/validation';
import type { DateOption } from '../http/deprecation.js';
import {
  type DeclaredResponse,
  decoratedEndpoints,
  defineEndpoint,
  type EndpointDefinition,
  type EndpointOptions,
  type Handler,
  isEndpointDefinition,
  type CheckUses,
  type HandlerFor,
  type InputFor,
  type ParamsOf,
  type RouteOptions,
} from '../serve/endpoint.js';
import { assertMiddleware, type Middleware } from '../serve/pipeline.js';
import { joinPath, pathParamNames } from '../serve/route-table.js';
import { attachMiddleware } from './extensions.js';
import type { RouteEntry as CompiledRouteEntry } from '../serve/compile.js';
import { checkDependencies, type Dependency, type Uses, type UsesValues } from '../serve/dependency.js';
import { defineWebSocket, type ReceivedMessage, type SentMessage, type WebSocketHandler, type WebSocketOptions } from '../ws/endpoint.js';

/** One endpoint as a group serves it, with the routers it sits in. */
export type RouteEntry = CompiledRouteEntry<RouteGroup>;

type Item = { kind: 'endpoint'; definition: EndpointDefinition } | { kind: 'router'; router: Router };

function unique(tags: string[]): string[] {
  return tags.length < 2 ? tags : [...new Set(tags)];
}

/**
 * What the app and routers share: endpoints, nested routers and middleware. Registration appends:
 * a new endpoint travels up to every group that includes this one (each adding its prefix and tags),
 * so the app checks and records just that endpoint, whenever it is added.
 */
export abstract class RouteGroup {
  readonly prefix: string;
  readonly tags: string[];
  /** Dependencies run for every endpoint of the group (guards, audits), before the endpoint's own. */
  readonly dependencies: readonly Dependency[];
  private readonly items: Item[] = [];
  private readonly ownMiddleware: Middleware[] = [];
  private readonly parents = new Set<RouteGroup>();

  constructor(prefix = '', tags: string[] = [], dependencies?: unknown) {
    if (prefix && !prefix.startsWith('/')) throw new Error(`A router prefix starts with "/": got "${prefix}"`);
    this.prefix = prefix.replace(/\/+$/, '');
    this.tags = tags;
    this.dependencies = checkDependencies(dependencies, prefix ? `Router ${prefix}` : 'API');
  }

  get middleware(): readonly Middleware[] {
    return this.ownMiddleware;
  }

  /** Registers an endpoint; returns `this` for chaining. */
  // One type parameter for the options (checked once against their interface) and one for the route
  // literal; the input is read from the options' own `params` through each schema's Standard Schema
  // types, so no schema is ever compared structurally with a library's classes.
  // Two signatures: without `uses` the input is the params' alone (what most endpoints are, at the
  // type-checking cost they always had); with `uses`, the values join it and names are checked.
  api<const R extends string, O extends EndpointOptions & { uses?: undefined }>(
    options: O & { route: R },
    handler: HandlerFor<O, InferInput<R, ParamsOf<O>>>,
  ): this;
  api<const R extends string, O extends EndpointOptions & { uses: Uses }>(
    options: O & { route: R } & CheckUses<R, O>,
    handler: HandlerFor<O, InputFor<R, O>>,
  ): this;
  api(options: EndpointOptions, handler: Handler): this {
    return this.include(defineEndpoint(options, handler));
  }

  get<const R extends string>(route: R, handler: Handler<InferInput<R, {}>>): this;
  get<const R extends string, O extends RouteOptions & { uses?: undefined }>(
    route: R,
    options: O,
    handler: HandlerFor<O, InferInput<R, ParamsOf<O>>>,
  ): this;
  get<const R extends string, O extends RouteOptions & { uses: Uses }>(
    route: R,
    options: O & CheckUses<R, O>,
    handler: HandlerFor<O, InputFor<R, O>>,
  ): this;
  get(...args: unknown[]): this {
    return this.shorthand('GET', args);
  }

  post<const R extends string>(route: R, handler: Handler<InferInput<R, {}>>): this;
  post<const R extends string, O extends RouteOptions & { uses?: undefined }>(
    route: R,
    options: O,
    handler: HandlerFor<O, InferInput<R, ParamsOf<O>>>,
  ): this;
  post<const R extends string, O extends RouteOptions & { uses: Uses }>(
    route: R,
    options: O & CheckUses<R, O>,
    handler: HandlerFor<O, InputFor<R, O>>,
  ): this;
  post(...args: unknown[]): this {
    return this.shorthand('POST', args);
  }

  put<const R extends string>(route: R, handler: Handler<InferInput<R, {}>>): this;
  put<const R extends string, O extends RouteOptions & { uses?: undefined }>(
    route: R,
    options: O,
    handler: HandlerFor<O, InferInput<R, ParamsOf<O>>>,
  ): this;
  put<const R extends string, O extends RouteOptions & { uses: Uses }>(
    route: R,
    options: O & CheckUses<R, O>,
    handler: HandlerFor<O, InputFor<R, O>>,
  ): this;
  put(...args: unknown[]): this {
    return this.shorthand('PUT', args);
  }

  patch<const R extends string>(route: R, handler: Handler<InferInput<R, {}>>): this;
  patch<const R extends string, O extends RouteOptions & { uses?: undefined }>(
    route: R,
    options: O,
    handler: HandlerFor<O, InferInput<R, ParamsOf<O>>>,
  ): this;
  patch<const R extends string, O extends RouteOptions & { uses: Uses }>(
    route: R,
    options: O & CheckUses<R, O>,
    handler: HandlerFor<O, InputFor<R, O>>,
  ): this;
  patch(...args: unknown[]): this {
    return this.shorthand('PATCH', args);
  }

  delete<const R extends string>(route: R, handler: Handler<InferInput<R, {}>>): this;
  delete<const R extends string, O extends RouteOptions & { uses?: undefined }>(
    route: R,
    options: O,
    handler: HandlerFor<O, InferInput<R, ParamsOf<O>>>,
  ): this;
  delete<const R extends string, O extends RouteOptions & { uses: Uses }>(
    route: R,
    options: O & CheckUses<R, O>,
    handler: HandlerFor<O, InputFor<R, O>>,
  ): this;
  delete(...args: unknown[]): this {
    return this.shorthand('DELETE', args);
  }

  /** `QUERY`: safe and idempotent with a body, bound like POST. */
  query<const R extends string>(route: R, handler: Handler<InferInput<R, {}>>): this;
  query<const R extends string, O extends RouteOptions & { uses?: undefined }>(
    route: R,
    options: O,
    handler: HandlerFor<O, InferInput<R, ParamsOf<O>>>,
  ): this;
  query<const R extends string, O extends RouteOptions & { uses: Uses }>(
    route: R,
    options: O & CheckUses<R, O>,
    handler: HandlerFor<O, InputFor<R, O>>,
  ): this;
  query(...args: unknown[]): this {
    return this.shorthand('QUERY', args);
  }

  /**
   * Registers a WebSocket endpoint: the upgrade request runs plugins, middleware, guards and
   * validation like a GET, then `handler(input, socket, request)` serves the connection.
   */
  ws<
    const R extends string,
    P extends ParamsShape = {},
    In extends Schema | undefined = undefined,
    Out extends Schema | undefined = undefined,
    U extends Uses = {},
  >(
    route: R,
    options: WebSocketOptions<P, In, Out> & { uses?: U },
    handler: WebSocketHandler<{} extends U ? InferInput<R, P> : InferInput<R, P> & UsesValues<U>, ReceivedMessage<In>, SentMessage<Out>>,
  ): this;
  ws(route: string, options: WebSocketOptions, handler: WebSocketHandler): this {
    return this.include(defineWebSocket({ ...options, route }, handler));
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
        this.addEndpoint(item);
      } else {
        const decorated = decoratedEndpoints(item);
        if (!decorated) throw new TypeError('include() takes endpoint definitions (api(options)(fn)) or objects with @api methods');
        for (const definition of decorated) this.addEndpoint(definition);
      }
    }
    return this;
  }

  /** Serves a router's endpoints under its prefix, including endpoints added to it later. */
  includeRouter(router: Router): this {
    if (!(router instanceof Router)) throw new TypeError('includeRouter() takes a Router');
    if (router === (this as unknown) || router.contains(this))
      throw new Error('A router cannot include itself or a router that includes it');
    const item: Item = { kind: 'router', router };
    this.items.push(item);
    try {
      this.announce(router.routeEntries().map((entry) => this.adopt(entry, router)));
    } catch (error) {
      this.items.splice(this.items.indexOf(item), 1);
      throw error;
    }
    router.parents.add(this);
    return this;
  }

  /** Appends a middleware: the first added runs first on the way in. */
  addMiddleware(middleware: Middleware): this {
    assertMiddleware(middleware);
    this.ownMiddleware.push(middleware);
    this.middlewareChanged();
    attachMiddleware(this, middleware);
    return this;
  }

  /** Every endpoint this group serves, with paths under this group, in registration order. */
  routeEntries(): RouteEntry[] {
    const out: RouteEntry[] = [];
    for (const item of this.items) {
      if (item.kind === 'endpoint') out.push(this.entryOf(item.definition));
      else for (const entry of item.router.routeEntries()) out.push(this.adopt(entry, item.router));
    }
    return out;
  }

  private addEndpoint(definition: EndpointDefinition): void {
    const entry = this.entryOf(definition);
    const item: Item = { kind: 'endpoint', definition };
    this.items.push(item);
    try {
      this.announce([entry]);
    } catch (error) {
      this.items.splice(this.items.indexOf(item), 1);
      throw error;
    }
  }

  private entryOf(definition: EndpointDefinition): RouteEntry {
    const { route, method, tags } = definition.options;
    if (typeof route !== 'string' || (route !== '' && !route.startsWith('/'))) {
      throw new Error(`Route "${String(route)}" must start with "/"`);
    }
    // The route's own syntax is checked where it is registered, router or app, so the error's stack
    // points at that line rather than at a later `includeRouter`.
    pathParamNames(route);
    return {
      method: (method ?? 'GET').toUpperCase(),
      path: joinPath(this.prefix, route),
      definition,
      tags: unique([...this.tags, ...(tags ?? [])]),
      routers: [],
    };
  }

  /** A child router's entry, seen from this group. */
  private adopt(entry: RouteEntry, child: Router): RouteEntry {
    return {
      ...entry,
      path: this.prefix ? joinPath(this.prefix, entry.path) : entry.path,
      tags: unique([...this.tags, ...entry.tags]),
      routers: [child, ...entry.routers],
    };
  }

  /** Offers new endpoints to this group (the app checks and records them), then to its parents. */
  private announce(entries: RouteEntry[]): void {
    if (entries.length === 0) return;
    this.endpointsAdded(entries);
    for (const parent of this.parents) parent.childAdded(this as unknown as Router, entries);
  }

  private childAdded(child: Router, entries: RouteEntry[]): void {
    this.announce(entries.map((entry) => this.adopt(entry, child)));
  }

  private middlewareChanged(): void {
    this.changed();
    for (const parent of this.parents) parent.middlewareChanged();
  }

  protected contains(group: RouteGroup): boolean {
    return this.items.some((i) => i.kind === 'router' && (i.router === group || i.router.contains(group)));
  }

  /** Hook for the app: check and record new endpoints (throwing refuses them all). */
  protected endpointsAdded(_entries: readonly RouteEntry[]): void {}

  /** Hook for the app: something served changed (router middleware); compile again before serving. */
  protected changed(): void {}
}

/** What a router sets for each of its endpoints unless the endpoint says otherwise. */
export interface RouterEndpointDefaults {
  /** Added to every endpoint's `responses`; an endpoint's own entry for the same status wins. */
  responses?: Record<number, DeclaredResponse>;
  /** Marks every endpoint deprecated (a date also sends `Deprecation`). */
  deprecated?: boolean | DateOption;
  /** The day every endpoint goes away (`Sunset`). */
  sunset?: DateOption;
  /** Sent as `Link: <url>; rel="deprecation"`. */
  deprecationLink?: string;
  /** false keeps every endpoint out of the OpenAPI document. */
  includeInSchema?: boolean;
}

export interface RouterOptions extends RouterEndpointDefaults {
  /** Path prefix of every endpoint, e.g. `/users`. */
  prefix?: string;
  /** Tags added to every endpoint's documentation. */
  tags?: string[];
  /**
   * Dependencies run for every endpoint of the router, for their effect (a guard, an audit): after the
   * app's and outer routers', before the endpoint's own.
   */
  dependencies?: readonly Dependency<any>[];
}

/** A group of endpoints under a prefix, with middleware that runs only for them. */
export class Router extends RouteGroup {
  /** What the router sets for each of its endpoints (`responses`, `deprecated`, …). */
  readonly endpointDefaults: Readonly<RouterEndpointDefaults>;
  constructor(options: RouterOptions = {}) {
    super(options.prefix ?? '', options.tags ?? [], options.dependencies);
    const { responses, deprecated, sunset, deprecationLink, includeInSchema } = options;
    this.endpointDefaults = { responses, deprecated, sunset, deprecationLink, includeInSchema };
  }
}
