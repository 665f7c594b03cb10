import { type DeclaredResponse, type EndpointDefinition, handlerMetadata } from './endpoint.js';
import type { DeprecationTerms } from '../http/deprecation.js';
import { endpointMiddleware } from './endpoint-middleware.js';
import { compileInvoker } from './invoke.js';
import { activeMiddleware, composeActive, type MaybePromise, type Middleware, type Step, stepOf } from './pipeline.js';
import { RouteTable } from './route-table.js';
import { answerError, endpointBoundary } from './funnel.js';
import { AppRuntime, type CompiledRoute, type RuntimeOptions } from './runtime.js';
import type { Request } from '../http/request.js';
import type { Response } from '../http/response.js';
import { type AppScope, buildPlan, type DependencyPlan, type Overrides, type PlanInput } from './resolve.js';
import { type ClientOverrides, clientOverridesOf } from './overrides.js';

/** What compiling needs of a group (an app or a router) an endpoint sits in: its middleware. */
export interface MiddlewareGroup {
  readonly middleware: readonly Middleware[];
}

/**
 * One endpoint as a group serves it: its path under the group (the group's prefix included), its
 * tags, and the groups it sits in, outermost first (the app itself is not one of them).
 */
export interface RouteEntry<Group extends MiddlewareGroup = MiddlewareGroup> {
  method: string;
  path: string;
  definition: EndpointDefinition;
  tags: string[];
  routers: Group[];
}

/**
 * The endpoint's own terms merged with its routers' (the endpoint's own, then the innermost router's,
 * win): what is documented and the deprecation headers every answer carries.
 */
export interface EndpointTerms extends DeprecationTerms {
  includeInSchema: boolean;
  responses: Readonly<Record<number, DeclaredResponse>> | undefined;
}

/** An endpoint as the app recorded it at registration: checked, named, with its path parameters. */
export interface RegisteredEndpoint extends RouteEntry {
  operationId: string;
  pathParams: string[];
  /** Computed at registration; absent: the endpoint's own options alone, no deprecation headers. */
  terms?: EndpointTerms;
  /** The endpoint compiled to `request → Response`, kept across recompilations. */
  invoker?: Step;
  /** What its dependencies are made of (undefined: it has none). */
  dependencyInput?: PlanInput;
  /** Its dependencies as registered (what the document describes), undefined when it has none. */
  plan?: DependencyPlan;
}

/** A built-in GET route (the document and the docs pages); a user endpoint on the same path wins. */
export interface BuiltinRoute {
  path: string;
  run: (request: Request) => MaybePromise<Response>;
}

export interface CompileInput extends Omit<RuntimeOptions, 'table'> {
  endpoints: Iterable<RegisteredEndpoint>;
  builtins: readonly BuiltinRoute[];
  /** The app's `'app'` values and its overrides (`app.override`). */
  scope: AppScope;
}

/**
 * Entries → one runtime: the route table, each route's runner (router middleware, then the
 * endpoint's own, around the endpoint) and the app's chain. Runs once before the first request and again only after a change;
 * a route's runner is made on its first request, and an endpoint's binder and invoker once for its lifetime.
 */
export function compile(input: CompileInput): AppRuntime {
  const table = new RouteTable<CompiledRoute>();
  const appMiddleware = activeMiddleware(input.middleware);
  for (const endpoint of input.endpoints) {
    const servesWhileStarting = handlerMetadata(endpoint.definition.handler)?.servesWhileStarting === true;
    const route: CompiledRoute = { template: endpoint.path, run: undefined as unknown as Step, servesWhileStarting };
    // A route is compiled on its first request (its checks ran at registration): a cold start
    // compiles the route it answers, not all of them. The compiled runner then replaces this one.
    const firstRun: Step = (request, done) => {
      if (route.run === firstRun) {
        try {
          route.run = routeRunner(endpoint, input.scope, appMiddleware);
        } catch (error) {
          done(error, undefined);
          return;
        }
      }
      route.run(request, done);
    };
    route.run = endpoint.invoker === undefined ? firstRun : routeRunner(endpoint, input.scope, appMiddleware);
    table.add(endpoint.method, endpoint.path, route);
  }
  for (const builtin of input.builtins)
    table.add('GET', builtin.path, { template: builtin.path, run: stepOf(builtin.run), servesWhileStarting: false });
  return new AppRuntime({ ...input, middleware: appMiddleware, table });
}

/** One route's runner: router middleware, then the endpoint's own, around the endpoint. */
function routeRunner(endpoint: RegisteredEndpoint, scope: AppScope, appMiddleware: readonly Middleware[]): Step {
  // The endpoint's own middleware runs after its guards (it sees `request.auth`: a per-user limit),
  // with the endpoint's errors turned into responses for it as for any middleware.
  const own = activeMiddleware(endpointMiddleware(endpoint.definition.options));
  const afterGuards = own.length === 0 ? undefined : (next: Step) => composeActive(own, endpointBoundary(next));
  endpoint.invoker ??=
    endpoint.dependencyInput === undefined
      ? compileInvoker(endpoint.method, endpoint.path, endpoint.pathParams, endpoint.definition, afterGuards)
      : dependentInvoker(endpoint, endpoint.dependencyInput, scope, afterGuards);
  // Routers' middleware around the endpoint (guards included); none at all compiles to no chain.
  const middleware = activeMiddleware(endpoint.routers.flatMap((router) => router.middleware));
  // The boundary turns an endpoint's errors into responses for the middleware around it. With no
  // middleware anywhere on the route, the runtime's funnel does the same (the same report to
  // plugins, the same problem body), and a request saves the wrapping.
  const inner =
    appMiddleware.length === 0 && middleware.length === 0 && own.length === 0
      ? endpoint.invoker
      : composeActive(middleware, endpointBoundary(endpoint.invoker));
  const headers = endpoint.terms?.headers;
  return headers !== undefined && headers.length > 0 ? withHeaders(inner, headers) : inner;
}

/**
 * Adds headers (an endpoint's `Deprecation`, `Sunset`, `Link`) to every answer of a route, its errors
 * too: a failure is answered here, through the funnel, so that its answer carries them.
 */
function withHeaders(run: Step, headers: readonly (readonly [string, string])[]): Step {
  const stamp = (response: Response): void => {
    for (const [name, value] of headers) {
      if (name === 'link') response.headers.append(name, value);
      else response.headers.set(name, value);
    }
  };
  return (request, done) =>
    run(request, (error, response) => {
      if (response !== undefined) {
        stamp(response);
        done(undefined, response);
      } else
        answerError(error, request, (failure, answer) => {
          if (answer !== undefined) stamp(answer);
          done(failure, answer);
        });
    });
}

/**
 * An endpoint with dependencies: compiled with the app's overrides, and again (once) for each test
 * client that brings its own, whose requests it serves.
 */
function dependentInvoker(
  endpoint: RegisteredEndpoint,
  input: PlanInput,
  scope: AppScope,
  afterGuards: ((next: Step) => Step) | undefined,
): Step {
  const make = (plan: DependencyPlan | undefined) =>
    compileInvoker(endpoint.method, endpoint.path, endpoint.pathParams, endpoint.definition, afterGuards, plan);
  const overrides: Overrides = scope.overrides;
  const base = make(overrides.size === 0 && endpoint.plan !== undefined ? endpoint.plan : buildPlan(input, scope));
  const perClient = new WeakMap<ClientOverrides, Step>();
  return (request, done) => {
    const client = clientOverridesOf(request);
    if (client === undefined) {
      base(request, done);
      return;
    }
    let step = perClient.get(client);
    if (step === undefined) {
      step = make(buildPlan(input, client.scope, client.scope.overrides));
      perClient.set(client, step);
    }
    step(request, done);
  };
}
