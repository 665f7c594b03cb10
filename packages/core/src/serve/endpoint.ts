import type { Duration, InferInput, ParamsShape, PathParamNames, Schema, SchemaInput, z } from '@fnapi/validation';
import type { SecurityRequirement } from '@fnapi/openapi';
import { endpointMiddleware } from './endpoint-middleware.js';
import type { Middleware } from './pipeline.js';
import type { DateOption } from '../http/deprecation.js';
import type { Request } from '../http/request.js';
import type { Response } from '../http/response.js';
import type { EventItem, EventsOption, NamedEventItem, StreamResult } from './streams.js';
import type { Dependency, Uses, UsesValues } from './dependency-brand.js';

export type HTTPMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'QUERY' | 'HEAD' | 'OPTIONS' | (string & {});

/**
 * Options of the shorthands (`app.get(route, options, handler)`): everything but `route` and `method`.
 * A schema is any Standard Schema v1: zod, valibot, arktype, …
 */
export interface RouteOptions<P extends ParamsShape = ParamsShape, S extends Schema = Schema> {
  /** The handler's parameters by name (see the binding rules). */
  params?: P;
  /** Response model: documents the response, filters the returned value through it and types it. */
  response?: S;
  /** Success status; default 200 (204 when the handler returns nothing and this is unset). */
  statusCode?: number;
  /**
   * Default false; true leaves out of the answer every field the handler's value did not set, even
   * where the `response` model has a default (partial-update answers).
   */
  responseExcludeUnset?: boolean;
  tags?: string[];
  summary?: string;
  description?: string;
  /**
   * Marks the operation deprecated; a date (`'2026-12-01'`, midnight UTC, or a `Date`) also sends
   * `Deprecation: @<unix time>` (RFC 9745) on every answer.
   */
  deprecated?: boolean | DateOption;
  /** The day the endpoint goes away: every answer carries `Sunset` (RFC 8594); fnapi keeps serving after it. */
  sunset?: DateOption;
  /** Sent as `Link: <url>; rel="deprecation"` on every answer. */
  deprecationLink?: string;
  /** Default true; false keeps the endpoint out of the OpenAPI document. */
  includeInSchema?: boolean;
  /** Default: the handler's name, else method and path. */
  operationId?: string;
  /**
   * Seconds (or a string with a unit, `'500ms'`) the handler may take; past it the request gets 504 and
   * `request.signal` is aborted. A number over an hour is refused at registration.
   */
  timeout?: Duration;
  /** Security requirements documented for this operation (auth functions add theirs). */
  security?: SecurityRequirement[];
  /**
   * Runs for this endpoint only, after the app's and its routers' middleware (cache one list,
   * rate-limit one login); the first listed runs first on the way in.
   */
  middleware?: readonly Middleware[] | undefined;
  /**
   * Statuses the handler itself answers besides success, e.g. `{ 404: 'No such user' }`; a thrown
   * `HTTPError` of such a status is documented with the problem body unless `schema` is given.
   */
  responses?: Record<number, DeclaredResponse>;
  /**
   * The handler yields these, sent as server-sent events (`text/event-stream`); with an object of
   * names (`{ welcome: Welcome, message: Message }`) each item is `sseEvent({ event: name, data })`.
   */
  events?: EventsOption;
  /** The handler yields these, sent as JSON Lines (`application/jsonl`). */
  lines?: Schema;
  /** Seconds (or `'15s'`) without an event before an event stream sends `: ping`; default 15, 0 turns it off. */
  ping?: Duration;
  /** Dependencies whose values join the handler's input under these names (see `dependency`). */
  uses?: Uses;
  /** Dependencies run for their effect (guards, audits), after the app's and routers'. */
  dependencies?: readonly Dependency<any>[];
  /** Offers the endpoint as a Model Context Protocol tool (`@fnapi/mcp`); `false` always keeps it out. */
  mcp?: boolean | McpToolOptions;
}

/** The endpoint option `mcp` (read by `@fnapi/mcp`): how the endpoint is offered as a tool. */
export interface McpToolOptions {
  /** The tool's name (`[A-Za-z0-9_.-]{1,64}`); default the operationId made to fit. */
  name?: string;
  title?: string;
  /** Default the endpoint's `description`, else its `summary`. */
  description?: string;
  /** Merged over the hints the method gives (`readOnlyHint`, `idempotentHint`, `destructiveHint`, …). */
  annotations?: Record<string, unknown>;
  /** A URI template (`users://{id}`) under which a GET endpoint is also a resource template. */
  resource?: string;
}

/** Options of `api()`, `app.api()` and `router.api()`. Only `route` is required. */
export interface EndpointOptions<R extends string = string, P extends ParamsShape = ParamsShape, S extends Schema = Schema>
  extends RouteOptions<P, S> {
  route: R;
  /** HTTP method; default `GET`. */
  method?: HTTPMethod;
}

/** One declared answer: its description, or the description with a body schema and headers. */
export type DeclaredResponse =
  | string
  | {
      /** Default: the status's reason phrase (`OK`, `Conflict`). */
      description?: string;
      /** The body's schema (sent as JSON); default the problem body of that status. */
      schema?: Schema;
      /** Response headers: a description, a schema, or a description, a schema and whether it is always sent. */
      headers?: Record<string, string | z.ZodType | { description?: string; schema?: z.ZodType; required?: boolean }>;
    };

export type Handler<I = any, O = unknown> = (input: I, request: Request) => O;

/**
 * What a handler may return under the `response` model `S`: what the model accepts (alone or as a
 * tuple's body) or a `Response`, sync or async. Without a model, anything.
 */
// The model's input type (what it parses: `StandardSchemaV1.InferInput`), for zod and any other library.
export type HandlerResult<S> = ReturnedBody<SchemaInput<S>> | Promise<ReturnedBody<SchemaInput<S>>>;
// A row with keys the model lacks passes (they are dropped at run time); only a fresh object literal
// with unknown keys is refused, as in any assignment.
type ReturnedBody<T> = T | readonly [T, number] | Response | globalThis.Response;

/** The handler of an `events`/`lines` endpoint: it returns (or is) an iterable of items of type `T`. */
export type StreamHandler<I, T> = (input: I, request: Request) => StreamResult<T>;

/** The handler an endpoint's options call for: with `events`/`lines`, one whose items are checked. */
export type HandlerFor<O, I> = O extends { events: infer S }
  ? S extends { readonly '~standard': unknown }
    ? StreamHandler<I, EventItem<S>>
    : S extends Record<string, Schema>
      ? StreamHandler<I, NamedEventItem<S>>
      : StreamHandler<I, unknown>
  : O extends { lines: infer S }
    ? StreamHandler<I, SchemaInput<S>>
    : O extends { response: infer S }
      ? Handler<I, HandlerResult<S>>
      : Handler<I>;

/** The `params` of an endpoint's options (none: `{}`). */
export type ParamsOf<O> = O extends { params: infer P } ? P : {};

/** The handler's input: the params' types and, with `uses`, each dependency's value under its name. */
export type InputFor<R extends string, O> = O extends { uses: infer U }
  ? Simplify<InferInput<R, ParamsOf<O>> & UsesValues<U>>
  : InferInput<R, ParamsOf<O>>;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** A `uses` name that is also a parameter: a compile error naming it (and an error at registration). */
export type CheckUses<R extends string, O> = O extends { uses: infer U }
  ? [Extract<keyof U, keyof ParamsOf<O> | PathParamNames<R>>] extends [never]
    ? unknown
    : { uses: { [K in Extract<keyof U, keyof ParamsOf<O> | PathParamNames<R>>]: `"${K & string}" is also a parameter: rename one` } }
  : unknown;

/**
 * Runs before the request's body is read and its parameters bound (the auth functions are guards):
 * throwing an `HTTPError` answers the request without the handler.
 */
export type Guard = (request: Request) => void | Promise<void>;

/**
 * What wrappers such as the auth functions attach to a handler: guards that run before binding,
 * and what core documents — security schemes and the extra error statuses it may answer with.
 */
export interface HandlerMetadata {
  /** Security schemes that all apply. */
  security?: SecurityRequirement[];
  /**
   * Alternatives, any one of which is enough (`anyOf`); each is a list of schemes that all apply.
   * Annotating twice requires one alternative of each (their combinations are documented).
   */
  securityAlternatives?: SecurityRequirement[][];
  errorStatuses?: number[];
  /**
   * Answered at once while the app's startup runs, instead of waiting for it (health probes: a
   * readiness probe says `starting`).
   */
  servesWhileStarting?: boolean;
  /** Run in order before binding; each may throw an `HTTPError`. */
  guards?: Guard[];
  /**
   * Outside the app's `dependencies` (its guards): endpoints an extension serves with a guard of its
   * own (`/mcp`). Health probes (`servesWhileStarting`) are outside them too.
   */
  outsideAppDependencies?: boolean;
}

/** The guards an auth wrapper put on the endpoint's handler. */
export function handlerGuards(route: { readonly definition: { readonly handler: unknown } }): readonly Guard[] {
  return handlerMetadata(route.definition.handler)?.guards ?? [];
}

export const HANDLER_METADATA: unique symbol = Symbol.for('fnapi.handlerMetadata') as never;

/** Attaches documentation metadata to a (wrapped) handler; later calls merge into earlier ones. */
export function annotateHandler<F extends (...args: any[]) => unknown>(handler: F, metadata: HandlerMetadata): F {
  const target = handler as F & { [HANDLER_METADATA]?: HandlerMetadata };
  const current = target[HANDLER_METADATA];
  target[HANDLER_METADATA] = {
    security: [...(current?.security ?? []), ...(metadata.security ?? [])],
    securityAlternatives: combineAlternatives(current?.securityAlternatives, metadata.securityAlternatives),
    errorStatuses: [...new Set([...(current?.errorStatuses ?? []), ...(metadata.errorStatuses ?? [])])],
    guards: [...(current?.guards ?? []), ...(metadata.guards ?? [])],
    servesWhileStarting: current?.servesWhileStarting === true || metadata.servesWhileStarting === true,
    ...(current?.outsideAppDependencies === true || metadata.outsideAppDependencies === true ? { outsideAppDependencies: true } : {}),
  };
  return handler;
}

/** Both sets of alternatives must hold: one alternative of each, so every combination is one. */
function combineAlternatives(
  a: SecurityRequirement[][] | undefined,
  b: SecurityRequirement[][] | undefined,
): SecurityRequirement[][] | undefined {
  if (!a?.length) return b?.length ? b : undefined;
  if (!b?.length) return a;
  return a.flatMap((left) => b.map((right) => [...left, ...right]));
}

export function handlerMetadata(handler: unknown): HandlerMetadata | undefined {
  return (handler as { [HANDLER_METADATA]?: HandlerMetadata } | undefined)?.[HANDLER_METADATA];
}

const DEFINITION: unique symbol = Symbol.for('fnapi.endpointDefinition') as never;
const DECORATED: unique symbol = Symbol.for('fnapi.decoratedEndpoints') as never;

/** A registered-later endpoint: `api(options)(handler)`, included with `app.include` or `router.include`. */
export interface EndpointDefinition<R extends string = string, P extends ParamsShape = ParamsShape> {
  readonly [DEFINITION]: true;
  readonly options: EndpointOptions<R, P, any>;
  readonly handler: Handler;
  /** The name operationIds derive from. */
  readonly name: string;
}

export function isEndpointDefinition(value: unknown): value is EndpointDefinition {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[DEFINITION] === true;
}

export function defineEndpoint(options: EndpointOptions<any, any>, handler: Handler, name?: string): EndpointDefinition {
  if (typeof handler !== 'function') throw new TypeError(`Endpoint ${options.route}: the handler must be a function`);
  endpointMiddleware(options);
  return { [DEFINITION]: true, options, handler, name: name ?? handler.name };
}

/** Endpoint definitions collected from an object's decorated methods. */
export function decoratedEndpoints(instance: unknown): EndpointDefinition[] | undefined {
  if (typeof instance !== 'object' || instance === null) return undefined;
  return (instance as { [DECORATED]?: EndpointDefinition[] })[DECORATED];
}

export interface EndpointFactory<R extends string, P extends ParamsShape, S extends Schema = Schema> {
  // The decorator signature comes first and accepts any method and context: TypeScript resolves
  // overloads by subtype first, where a method with typed parameters is no subtype of one taking
  // `any`, so the definition signature below would claim the decorator and its return type fail.
  /** `@api(options)` on a class method. */
  (method: (this: any, ...args: never) => unknown, context: ClassMethodDecoratorContext<any, any>): void;
  /** `api(options)(handler)`: an endpoint definition to include later. */
  (handler: Handler<InferInput<R, P>, HandlerResult<S>>): EndpointDefinition<R, P>;
}

/**
 * Under TypeScript's `experimentalDecorators` a method decorator is called as `(prototype, name,
 * descriptor)`; fnapi's decorators are the standard ones, so say how to switch instead of failing
 * obscurely.
 */
export function assertStandardDecorator(context: unknown, name: string): asserts context is DecoratorContext {
  if (typeof context === 'object' && context !== null && 'kind' in context) return;
  throw new TypeError(
    `${name} is a standard (TC39) decorator, but it was called as a legacy one: remove "experimentalDecorators" ` +
      'from tsconfig.json (TypeScript 5 compiles standard decorators by default)',
  );
}

/**
 * `api(options)` works two ways: called on a function it returns an endpoint definition; used as a
 * standard method decorator it registers the method, with `this` bound, for `app.include(instance)`.
 */
export function api<const R extends string, P extends ParamsShape = {}, S extends Schema = Schema>(
  options: EndpointOptions<R, P, S>,
): EndpointFactory<R, P, S> {
  return ((target: Handler, context?: ClassMethodDecoratorContext) => {
    if (context === undefined) return defineEndpoint(options, target);
    assertStandardDecorator(context, '@api');
    if (context.kind !== 'method') throw new TypeError('@api decorates class methods');
    if (context.static) throw new TypeError('@api decorates instance methods; register static functions with api(options)(fn)');
    context.addInitializer(function (this: unknown) {
      const instance = this as { [DECORATED]?: EndpointDefinition[]; constructor: { name: string } };
      const list = Object.hasOwn(instance, DECORATED)
        ? instance[DECORATED]!
        : (Object.defineProperty(instance, DECORATED, { value: [], enumerable: false })[DECORATED] as EndpointDefinition[]);
      const bound = target.bind(instance) as Handler;
      const metadata = handlerMetadata(target);
      if (metadata) annotateHandler(bound, metadata);
      list.push(defineEndpoint(options, bound, `${instance.constructor.name}_${String(context.name)}`));
    });
  }) as EndpointFactory<R, P, S>;
}
