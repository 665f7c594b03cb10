import { type EndpointDefinition, handlerMetadata } from './endpoint.js';
import { endpointMiddleware } from './endpoint-middleware.js';
import { compileInvoker } from './invoke.js';
import { activeMiddleware, composeActive, type MaybePromise, type Middleware, type Step, stepOf } from './pipeline.js';
import { RouteTable } from './route-table.js';
import { endpointBoundary } from './funnel.js';
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

/** An endpoint as the app recorded it at registration: checked, named, with its path parameters. */
export interface RegisteredEndpoint extends RouteEntry {
  operationId: string;
  pathParams: string[];
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
 * an endpoint's binder and invoker are compiled once for its lifetime.
 */
export function compile(input: CompileInput): AppRuntime {
  const table = new RouteTable<CompiledRoute>();
  const appMiddleware = activeMiddleware(input.middleware);
  for (const endpoint of input.endpoints) {
    // The endpoint's own middleware runs after its guards (it sees `request.auth`: a per-user limit),
    // with the endpoint's errors turned into responses for it as for any middleware.
    const own = activeMiddleware(endpointMiddleware(endpoint.definition.options));
    const afterGuards = own.length === 0 ? undefined : (next: Step) => composeActive(own, endpointBoundary(next));
    endpoint.invoker ??=
      endpoint.dependencyInput === undefined
        ? compileInvoker(endpoint.method, endpoint.path, endpoint.pathParams, endpoint.definition, afterGuards)
        : dependentInvoker(endpoint, endpoint.dependencyInput, input.scope, afterGuards);
    // Routers' middleware around the endpoint (guards included); none at all compiles to no chain.
    const middleware = activeMiddleware(endpoint.routers.flatMap((router) => router.middleware));
    // The boundary turns an endpoint's errors into responses for the middleware around it. With no
    // middleware anywhere on the route, the runtime's funnel does the same (the same report to
    // plugins, the same problem body), and a request saves the wrapping.
    const run =
      appMiddleware.length === 0 && middleware.length === 0 && own.length === 0
        ? endpoint.invoker
        : composeActive(middleware, endpointBoundary(endpoint.invoker));
    const servesWhileStarting = handlerMetadata(endpoint.definition.handler)?.servesWhileStarting === true;
    table.add(endpoint.method, endpoint.path, { template: endpoint.path, run, servesWhileStarting });
  }
  for (const builtin of input.builtins)
    table.add('GET', builtin.path, { template: builtin.path, run: stepOf(builtin.run), servesWhileStarting: false });
  return new AppRuntime({ ...input, middleware: appMiddleware, table });
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
