import type { InferInput, ParamsShape } from '@fnapi/validation';
import type { Request } from '../http/request.js';
import type { DeclaredResponse, HandlerMetadata } from './endpoint.js';
import { DEPENDENCY, type Dependency, type Uses, type UsesValues } from './dependency-brand.js';

export { DEPENDENCY, type Dependency, type Uses, type UsesValues } from './dependency-brand.js';

/**
 * How long a dependency's value lives: `'app'` (made once, closed at shutdown), `'request'` (closed
 * after the answer and its deferred tasks) or `'call'` (closed when the handler returns).
 */
export type Lifetime = 'app' | 'request' | 'call';

const RANK: Record<Lifetime, number> = { call: 0, request: 1, app: 2 };

/** How a dependency's function gives its value. */
export type DependencyKind = 'plain' | 'generator' | 'asyncGenerator' | 'guard';

/** What `dependency()` records, read once by every plan that reaches it. */
export interface DependencyNode {
  readonly name: string;
  readonly fn: (input: Record<string, unknown>, context: unknown) => unknown;
  readonly kind: DependencyKind;
  readonly params: ParamsShape;
  readonly uses: readonly (readonly [string, Dependency])[];
  readonly lifetime: Lifetime;
  readonly cache: boolean;
  readonly responses: Readonly<Record<number, DeclaredResponse>> | undefined;
  /** A guard's documentation (security, statuses): auth functions. */
  readonly metadata: HandlerMetadata | undefined;
}

/** What a dependency function's result gives: a generator's yielded value, a promise's resolved one. */
export type DependencyValue<R> = R extends AsyncGenerator<infer Y, any, any> ? Y : R extends Generator<infer Y, any, any> ? Y : Awaited<R>;

export interface DependencyOptions<P extends ParamsShape = ParamsShape, U extends Uses = Uses> {
  /** Its own parameters, bound, validated and documented with the endpoint's. */
  params?: P;
  /** Dependencies whose values join its input under these names. */
  uses?: U;
  /** Default `'request'`. */
  lifetime?: Lifetime;
  /** Default true: one run per request however many dependants it has; false runs it for each use. */
  cache?: boolean;
  /** Statuses it answers, documented on every endpoint that reaches it. */
  responses?: Record<number, DeclaredResponse>;
  /** For errors and logs; default the function's name. */
  name?: string;
}

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** A dependency's input: its params' parsed values and the values of what it uses. */
export type DependencyInput<P, U> = Simplify<InferInput<'', P> & UsesValues<U>>;

/** The second argument of a dependency's function: the request; none for `'app'`. */
type ContextOf<L> = L extends 'app' ? undefined : Request;

export function isDependency(value: unknown): value is Dependency {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    (value as { [DEPENDENCY]?: unknown })[DEPENDENCY] !== undefined
  );
}

/** The description of a dependency. */
export function nodeOf(dependency: Dependency): DependencyNode {
  return dependency[DEPENDENCY] as DependencyNode;
}

const GeneratorFunction = Object.getPrototypeOf(function* () {}).constructor as unknown;
const AsyncGeneratorFunction = Object.getPrototypeOf(async function* () {}).constructor as unknown;

function kindOf(fn: (...args: never[]) => unknown): DependencyKind {
  const maker = Object.getPrototypeOf(fn)?.constructor as unknown;
  if (maker === GeneratorFunction) return 'generator';
  if (maker === AsyncGeneratorFunction) return 'asyncGenerator';
  return 'plain';
}

/**
 * A dependency: `fn(input, request)` returns its value, a promise of it, or is a generator that
 * yields it once (the code after `yield` is its teardown). `uses` is read here, once: the graph cannot
 * change later and has no cycles. Throws for an `'app'` dependency with `params` and for one that
 * uses a shorter-lived dependency (the error names the chain).
 */
export function dependency<const P extends ParamsShape = {}, const U extends Uses = {}, const L extends Lifetime = 'request', R = unknown>(
  options: DependencyOptions<P, U> & { lifetime?: L },
  fn: (input: DependencyInput<P, U>, request: ContextOf<L>) => R,
): Dependency<DependencyValue<R>>;
export function dependency(options: DependencyOptions, fn: (input: any, request: any) => unknown): Dependency {
  if (typeof options !== 'object' || options === null) throw new TypeError('dependency(options, fn): options is an object');
  if (typeof fn !== 'function') throw new TypeError('dependency(options, fn): fn is a function');
  const name = options.name ?? (fn.name || 'anonymous');
  const lifetime = options.lifetime ?? 'request';
  if (!(lifetime in RANK))
    throw new TypeError(`dependency ${name}: lifetime is 'app', 'request' or 'call', got ${JSON.stringify(lifetime)}`);
  if (options.cache !== undefined && typeof options.cache !== 'boolean') throw new TypeError(`dependency ${name}: cache is a boolean`);
  const params = options.params ?? {};
  if (lifetime === 'app' && Object.keys(params).length > 0) {
    throw new Error(`dependency ${name}: an 'app' dependency is made once for the app and cannot have params (it sees no request)`);
  }
  const uses = checkUses(options.uses, `dependency ${name}`);
  for (const [key, used] of uses) {
    if (Object.hasOwn(params, key))
      throw new Error(`dependency ${name}: "${key}" is both a parameter and a dependency it uses; rename one`);
    const inner = nodeOf(used);
    if (RANK[inner.lifetime] < RANK[lifetime]) {
      throw new Error(
        `dependency ${name} (lifetime '${lifetime}') uses ${inner.name} (lifetime '${inner.lifetime}'), which does not live as long: ` +
          `${name} → ${inner.name}. A dependency may use only dependencies that live at least as long`,
      );
    }
  }
  return makeDependency({
    name,
    fn,
    kind: kindOf(fn),
    params,
    uses,
    lifetime,
    cache: options.cache ?? true,
    responses: options.responses,
    metadata: undefined,
  });
}

/** `uses` checked: an object of dependencies, as entries in the order written. */
export function checkUses(uses: unknown, where: string): [string, Dependency][] {
  if (uses === undefined) return [];
  if (typeof uses !== 'object' || uses === null || Array.isArray(uses))
    throw new TypeError(`${where}: uses is an object of dependencies ({ name: dep })`);
  const entries = Object.entries(uses as Record<string, unknown>);
  for (const [key, value] of entries) {
    if (!isDependency(value)) throw new TypeError(`${where}: uses.${key} is not a dependency (make one with dependency(options, fn))`);
  }
  return entries as [string, Dependency][];
}

/** `dependencies` checked: an array of dependencies. */
export function checkDependencies(list: unknown, where: string): Dependency[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new TypeError(`${where}: dependencies is an array of dependencies`);
  for (const [i, value] of list.entries()) {
    if (!isDependency(value))
      throw new TypeError(`${where}: dependencies[${i}] is not a dependency (make one with dependency(options, fn))`);
  }
  return list as Dependency[];
}

export function makeDependency<T>(node: DependencyNode): Dependency<T> {
  return Object.freeze({ [DEPENDENCY]: Object.freeze(node) }) as Dependency<T>;
}

/**
 * Makes `target` (an auth function's wrapper) a guard dependency too: in `dependencies: [guard]` it
 * guards, in `uses: { auth: guard }` its value is `request.auth`. `check` authenticates the request
 * (setting `request.auth`) or throws; it runs before anything of the request is read.
 */
export function guardDependency<F extends object>(
  target: F,
  name: string,
  check: (request: Request) => unknown,
  metadata: HandlerMetadata,
): F {
  const node: DependencyNode = Object.freeze({
    name,
    fn: (_input: unknown, request: unknown) => check(request as Request),
    kind: 'guard',
    params: {},
    uses: [],
    lifetime: 'request',
    cache: true,
    responses: undefined,
    metadata,
  });
  Object.defineProperty(target, DEPENDENCY, { value: node });
  return target;
}

/** A replacement given to `override`: a dependency, or a function that keeps the replaced one's lifetime and cache. */
export function replacementNode(original: Dependency, replacement: unknown): DependencyNode {
  if (isDependency(replacement)) return nodeOf(replacement);
  if (typeof replacement !== 'function') throw new TypeError('override(dep, replacement): the replacement is a dependency or a function');
  const node = nodeOf(original);
  return Object.freeze({
    ...node,
    name: `${node.name} (override)`,
    fn: replacement as DependencyNode['fn'],
    kind: kindOf(replacement as () => unknown),
    params: {},
    uses: [],
    responses: undefined,
    metadata: undefined,
  });
}
