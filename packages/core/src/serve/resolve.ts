import { generateFunction, type ParamsShape } from '@fnapi/validation';
import type { Logger } from '../platform/logger.js';
import { type Dependency, type DependencyNode, type Lifetime, nodeOf } from './dependency.js';
import type { DeclaredResponse, HandlerMetadata } from './endpoint.js';
import { isPromiseLike } from './pipeline.js';

// The one resolver of dependencies: a plan is made once per endpoint (per set of overrides), and runs
// the same way for an HTTP request, a WebSocket's upgrade, a job run and a tool call.

/** Replacements by the dependency they replace (`app.override`, a test client's `overrides`). */
export type Overrides = ReadonlyMap<Dependency, DependencyNode>;

export const NO_OVERRIDES: Overrides = new Map();

/** One run of a dependency in a plan: where its inputs come from. */
export interface Slot {
  readonly node: DependencyNode;
  /** The dependency as the graph names it (what overrides and caching key on). */
  readonly dependency: Dependency;
  /** Values of what it uses: name → slot index. */
  readonly inputs: readonly (readonly [string, number])[];
  /** Its params' names (read from the bound input). */
  readonly params: readonly string[];
  /** Where each param's value is in the bound input, when not under its own name (a second schema of a shared name). */
  readonly keys?: readonly string[];
  /** Its input built by code made for its keys (one shape, V8's fast path); undefined where no code is generated. */
  readonly input?: InputMaker;
}

/** Builds an input object from the slots' values and the bound parameters. */
type InputMaker = (values: readonly unknown[], bound: Record<string, unknown>) => Record<string, unknown>;

/**
 * Code made once per slot (or handler) that builds its input as one object literal: `{ p: b.p, dep: v[2] }`.
 * Undefined where the runtime makes no code (then the generic loop runs).
 */
function inputMaker(
  fromBound: readonly (readonly [string, string])[],
  fromValues: readonly (readonly [string, number])[],
): InputMaker | undefined {
  const fields = [
    ...fromBound.map(([name, key]) => `${JSON.stringify(name)}: b[${JSON.stringify(key)}]`),
    ...fromValues.map(([name, index]) => `${JSON.stringify(name)}: v[${index}]`),
  ];
  if ([...fromBound, ...fromValues].some(([name]) => name === '__proto__')) return undefined;
  return generateFunction<InputMaker>([], [], `return function input(v, b) { return { ${fields.join(', ')} }; };`);
}

/** Code that adds the used values to the bound input (the handler's input when no dependency has params). */
function valuesAdder(fromValues: readonly (readonly [string, number])[]): InputMaker | undefined {
  if (fromValues.some(([name]) => name === '__proto__')) return undefined;
  const stores = fromValues.map(([name, index]) => `b[${JSON.stringify(name)}] = v[${index}];`).join(' ');
  return generateFunction<InputMaker>([], [], `return function input(v, b) { ${stores} return b; };`);
}

/** What a plan documents: every reached dependency's `responses` and guards' security. */
export interface PlanDocumentation {
  readonly responses: readonly Readonly<Record<number, DeclaredResponse>>[];
  readonly guards: readonly HandlerMetadata[];
}

/** An endpoint's dependencies, flattened once: what runs, in which order, reading which parameters. */
export interface DependencyPlan {
  readonly slots: readonly Slot[];
  /** Guard slots run before anything is read: the app's and routers' first ... */
  readonly outerGuards: readonly number[];
  /** ... then the endpoint's (after the guards an auth wrapper put on its handler). */
  readonly innerGuards: readonly number[];
  /** The other slots, each after what it uses, run after binding. */
  readonly steps: readonly number[];
  /** The endpoint's params and every reached dependency's, bound in one pass. */
  readonly params: ParamsShape;
  /**
   * Params that an earlier declarer also reads, with their own schema: bound by binders of their own
   * (one per repeat), each value stored in the bound input under a key of its own, issues joined.
   */
  readonly repeats: readonly ParamsShape[];
  /** Whether a dependency declares params (then the handler's input is picked out of the bound one). */
  readonly dependencyParams: boolean;
  /** The endpoint's own parameter names (path parameters included). */
  readonly ownParams: readonly string[];
  /** The handler's input built by code made for its keys, where code is made. */
  readonly handlerInput: InputMaker | undefined;
  /** The endpoint's `uses`: name → slot index. */
  readonly uses: readonly (readonly [string, number])[];
  /** `'app'` dependencies reached (made at startup). */
  readonly appDependencies: readonly Dependency[];
  readonly documentation: PlanDocumentation;
  /** Where the plan's `'app'` values live. */
  readonly scope: AppScope;
}

export interface PlanInput {
  /** What the error messages call the endpoint (`GET /orders`). */
  where: string;
  pathParams: readonly string[];
  params: ParamsShape | undefined;
  /** The app's and routers' `dependencies`, outermost first. */
  outer: readonly Dependency[];
  /** The endpoint's `dependencies`. */
  own: readonly Dependency[];
  /** The endpoint's `uses`, in the order written. */
  uses: readonly (readonly [string, Dependency])[];
}

/**
 * Flattens an endpoint's dependency graph: one slot per dependency object (per use when `cache` is
 * false), guards apart. Undefined when the endpoint reaches none: it then runs as it always has.
 * Throws for a `uses` name that is also a parameter.
 */
export function buildPlan(input: PlanInput, scope: AppScope, overrides: Overrides = scope.overrides): DependencyPlan | undefined {
  if (input.outer.length === 0 && input.own.length === 0 && input.uses.length === 0) return undefined;
  const own = input.params ?? {};
  for (const [name] of input.uses) {
    if (Object.hasOwn(own, name) || input.pathParams.includes(name)) {
      throw new Error(`${input.where}: "${name}" is both a parameter and a dependency in uses; rename one`);
    }
  }
  const slots: Slot[] = [];
  const cached = new Map<Dependency, number>();
  const outerGuards: number[] = [];
  const innerGuards: number[] = [];
  const steps: number[] = [];
  const params: Record<string, ParamsShape[string]> = { ...own };
  const repeats: Record<string, ParamsShape[string]>[] = [];
  const appDependencies: Dependency[] = [];
  const responses: Readonly<Record<number, DeclaredResponse>>[] = [];
  const guards: HandlerMetadata[] = [];
  let dependencyParams = false;
  let guardList = outerGuards;

  // `uses` is read when a dependency is made, so the graph has no cycles.
  const visit = (dependency: Dependency): number => {
    const node = overrides.get(dependency) ?? nodeOf(dependency);
    if (node.cache || node.lifetime === 'app') {
      const known = cached.get(dependency);
      if (known !== undefined) return known;
    }
    if (node.responses) responses.push(node.responses);
    let slot: Slot;
    if (node.lifetime === 'app') {
      // Its own uses are made by the app's scope; the plan only reads its value.
      slot = { node, dependency, inputs: [], params: [] };
      appDependencies.push(dependency);
    } else {
      const inputs = node.uses.map(([name, used]) => [name, visit(used)] as const);
      const keys: string[] = [];
      let repeated = false;
      for (const [name, spec] of Object.entries(node.params)) {
        dependencyParams = true;
        if (!Object.hasOwn(params, name) || params[name] === spec) {
          params[name] = spec;
          keys.push(name);
          continue;
        }
        // Another declarer reads this name with its own schema: both schemas apply, each value to its reader.
        let level = 0;
        while (level < repeats.length && Object.hasOwn(repeats[level]!, name) && repeats[level]![name] !== spec) level++;
        repeats[level] ??= {};
        repeats[level]![name] = spec;
        keys.push(repeatKey(name, level));
        repeated = true;
      }
      const paramNames = Object.keys(node.params);
      const input = inputMaker(
        paramNames.map((name, i) => [name, keys[i]!] as const),
        inputs,
      );
      slot = { node, dependency, inputs, params: paramNames, ...(repeated ? { keys } : {}), ...(input ? { input } : {}) };
    }
    const index = slots.push(slot) - 1;
    if (node.kind === 'guard') {
      guardList.push(index);
      if (node.metadata) guards.push(node.metadata);
    } else steps.push(index);
    if (node.cache || node.lifetime === 'app') cached.set(dependency, index);
    return index;
  };

  for (const dependency of input.outer) visit(dependency);
  guardList = innerGuards;
  for (const dependency of input.own) visit(dependency);
  const uses = input.uses.map(([name, dependency]) => [name, visit(dependency)] as const);
  const ownParams = [...input.pathParams.filter((name) => !Object.hasOwn(own, name)), ...Object.keys(own)];
  const handlerMaker = dependencyParams
    ? inputMaker(
        ownParams.map((name) => [name, name] as const),
        uses,
      )
    : valuesAdder(uses);
  return {
    handlerInput: handlerMaker,
    slots,
    outerGuards,
    innerGuards,
    steps,
    params,
    repeats,
    dependencyParams,
    ownParams,
    uses,
    appDependencies,
    documentation: { responses, guards },
    scope,
  };
}

/** Where the value of a repeated parameter's `level`-th other schema is kept in the bound input. */
export function repeatKey(name: string, level: number): string {
  return `\u0000${level}:${name}`;
}

type AnyGenerator = Generator<unknown, unknown, unknown> | AsyncGenerator<unknown, unknown, unknown>;

/** A generator waiting at its `yield`: its teardown. */
interface Open {
  readonly generator: AnyGenerator;
  readonly node: DependencyNode;
}

/** One request's (or run's) resolution: each slot's value, and what awaits teardown. */
export class Resolution {
  readonly values: unknown[];
  open: Open[] | undefined = undefined;
  constructor(size: number) {
    this.values = new Array(size);
  }
}

type Settled = (error: unknown) => void;

/** Runs one guard slot: its value is what it returns, else `request.auth`. */
export function runGuardSlots(
  plan: DependencyPlan,
  list: readonly number[],
  resolution: Resolution,
  request: { auth?: unknown },
): Promise<void> | undefined {
  if (list.length === 0) return undefined;
  return (async () => {
    for (const index of list) {
      const out = await plan.slots[index]!.node.fn({}, request);
      resolution.values[index] = out === undefined ? request.auth : out;
    }
  })();
}

/**
 * Resolves the plan's non-guard slots from `from` on, synchronously while every value is at hand,
 * then calls `settled` (with the error of the first that throws; what was set up stays in
 * `resolution.open` for teardown).
 */
export function resolveSteps(
  plan: DependencyPlan,
  resolution: Resolution,
  from: number,
  bound: Record<string, unknown>,
  context: unknown,
  settled: Settled,
): void {
  const steps = plan.steps;
  for (let i = from; i < steps.length; i++) {
    const index = steps[i]!;
    const slot = plan.slots[index]!;
    let out: unknown;
    try {
      out = produce(slot, plan, resolution, bound, context);
    } catch (error) {
      settled(error);
      return;
    }
    if (isPromiseLike(out)) {
      out.then(
        (value) => {
          resolution.values[index] = value;
          resolveSteps(plan, resolution, i + 1, bound, context, settled);
        },
        (error: unknown) => settled(error),
      );
      return;
    }
    resolution.values[index] = out;
  }
  settled(undefined);
}

/** One slot's value (or a promise of it); a generator stays open in `resolution.open`. */
function produce(slot: Slot, plan: DependencyPlan, resolution: Resolution, bound: Record<string, unknown>, context: unknown): unknown {
  const node = slot.node;
  if (node.lifetime === 'app') return plan.scope.value(slot.dependency);
  const made = slot.input;
  const result = node.fn(made === undefined ? slotInput(slot, resolution, bound) : made(resolution.values, bound), context);
  if (node.kind === 'plain') return result;
  return opened(node, result, resolution);
}

/** A slot's input by the generic loop (where no code is made). */
function slotInput(slot: Slot, resolution: Resolution, bound: Record<string, unknown>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  const params = slot.params;
  const keys = slot.keys ?? params;
  for (let i = 0; i < params.length; i++) {
    const value = bound[keys[i]!];
    if (value !== undefined) input[params[i]!] = value;
  }
  for (const [name, index] of slot.inputs) input[name] = resolution.values[index];
  return input;
}

/** A generator's first value; the generator stays open for its teardown. */
function opened(node: DependencyNode, result: unknown, resolution: Resolution): unknown {
  if (node.kind === 'generator') {
    const generator = result as Generator<unknown, unknown, unknown>;
    const step = generator.next();
    if (step.done) throw new Error(`dependency ${node.name} returned without yielding its value`);
    (resolution.open ??= []).push({ generator, node });
    return step.value;
  }
  if (node.kind === 'asyncGenerator') {
    const generator = result as AsyncGenerator<unknown, unknown, unknown>;
    return generator.next().then((step) => {
      if (step.done) throw new Error(`dependency ${node.name} returned without yielding its value`);
      (resolution.open ??= []).push({ generator, node });
      return step.value;
    });
  }
  return result;
}

/** The handler's input: its own parameters and the values of what it uses. */
export function handlerInput(plan: DependencyPlan, bound: Record<string, unknown>, resolution: Resolution): Record<string, unknown> {
  const made = plan.handlerInput;
  if (made !== undefined) return made(resolution.values, bound);
  let input = bound;
  if (plan.dependencyParams) {
    input = {};
    for (const name of plan.ownParams) {
      const value = bound[name];
      if (value !== undefined) input[name] = value;
    }
  }
  for (const [name, index] of plan.uses) input[name] = resolution.values[index];
  return input;
}

/**
 * Closes the open generators in reverse order of setup with `error` thrown into each at its `yield`:
 * one that throws replaces the error (a translation); one that swallows it cannot make a success —
 * the error stands, and a warning names it. Resolves to the error that answers.
 */
export async function throwInto(open: readonly Open[], error: unknown, logger: () => Logger): Promise<unknown> {
  let current = error;
  for (let i = open.length - 1; i >= 0; i--) {
    const { generator, node } = open[i]!;
    try {
      const step = await generator.throw(current);
      if (!step.done) await generator.return(undefined);
      logger().warn(
        { dependency: node.name, err: current },
        `dependency ${node.name} swallowed an error thrown into it; the error answers anyway (rethrow it, or throw another to translate it)`,
      );
    } catch (thrown) {
      current = thrown;
    }
  }
  return current;
}

/**
 * Closes open generators normally (the code after `yield`), in reverse order; when one throws, the
 * ones before it get that error thrown in. Resolves to undefined, or the error.
 */
export async function closeAll(open: readonly Open[], logger: () => Logger): Promise<unknown> {
  for (let i = open.length - 1; i >= 0; i--) {
    const { generator } = open[i]!;
    try {
      await generator.next();
    } catch (error) {
      return throwInto(open.slice(0, i), error, logger);
    }
  }
  return undefined;
}

/** Splits what is open into what closes before the answer (`'call'`) and after it (`'request'`). */
export function byLifetime(open: readonly Open[], lifetime: Lifetime): Open[] {
  return open.filter((entry) => entry.node.lifetime === lifetime);
}

/**
 * The values of `'app'` dependencies: each made once (after the app's startup callbacks for those
 * the endpoints reach), closed at shutdown in reverse order. A child scope (a test client's
 * overrides) makes what its overrides touch and asks its parent for the rest.
 */
export class AppScope {
  private made = new Map<DependencyNode, unknown>();
  private open: Open[] = [];
  constructor(
    private readonly currentOverrides: () => Overrides,
    private readonly logger: () => Logger,
    private readonly parent?: AppScope,
  ) {}

  get overrides(): Overrides {
    return this.currentOverrides();
  }

  /** Where teardown failures and warnings are logged. */
  get logging(): () => Logger {
    return this.logger;
  }

  /** The value (or a promise of it, the first time) of an `'app'` dependency. */
  value(dependency: Dependency): unknown {
    if (this.parent !== undefined && !this.touches(dependency)) return this.parent.value(dependency);
    const node = this.overrides.get(dependency) ?? nodeOf(dependency);
    if (this.made.has(node)) return this.made.get(node);
    const making = this.make(node).then(
      (value) => {
        this.made.set(node, value);
        return value;
      },
      (error: unknown) => {
        this.made.delete(node);
        throw error;
      },
    );
    this.made.set(node, making);
    return making;
  }

  /** Makes every dependency of the list (in order) that is not made yet. */
  async makeAll(dependencies: Iterable<Dependency>): Promise<void> {
    for (const dependency of dependencies) await this.value(dependency);
  }

  /** Closes what was made, in reverse order; errors are logged. */
  async close(): Promise<void> {
    const open = this.open;
    this.open = [];
    this.made = new Map();
    for (let i = open.length - 1; i >= 0; i--) {
      const { generator, node } = open[i]!;
      try {
        await generator.next();
      } catch (error) {
        this.logger().error({ err: error, dependency: node.name }, `closing app dependency ${node.name} failed`);
      }
    }
  }

  private touches(dependency: Dependency): boolean {
    if (this.overrides.has(dependency)) return true;
    return nodeOf(dependency).uses.some(([, used]) => this.touches(used));
  }

  private async make(node: DependencyNode): Promise<unknown> {
    const input: Record<string, unknown> = {};
    for (const [name, used] of node.uses) input[name] = await this.value(used);
    const result = node.fn(input, undefined);
    if (node.kind === 'generator' || node.kind === 'asyncGenerator') {
      const generator = result as AnyGenerator;
      const step = await generator.next();
      if (step.done) throw new Error(`dependency ${node.name} returned without yielding its value`);
      this.open.push({ generator, node });
      return step.value;
    }
    return result;
  }
}

/** One run of dependencies outside an HTTP request (a job run, a tool call): their values, and their teardown. */
export interface DependencyRun {
  /** The values, by the names they are used under. */
  readonly values: Record<string, unknown>;
  /**
   * Closes what the run opened, in reverse order; with `error` (the handler's), it is thrown into each
   * generator first. Resolves to the error that stands (undefined on a clean close).
   */
  close(error?: unknown): Promise<unknown>;
}

/** Resolves `uses` for runs that are not HTTP requests; `context` is what the functions get as their second argument. */
export interface DependencyRunner {
  run(context: unknown): Promise<DependencyRun>;
}

/**
 * The resolver for runs that are not HTTP requests (jobs, tool calls): the same plan and steps as an
 * endpoint's, without params or guards (there is no request to read).
 */
export function dependencyRunner(scope: AppScope, uses: readonly (readonly [string, Dependency])[], where: string): DependencyRunner {
  let plan: DependencyPlan | undefined;
  let planned: Overrides | undefined;
  const current = (): DependencyPlan | undefined => {
    if (plan === undefined || planned !== scope.overrides) {
      planned = scope.overrides;
      plan = buildPlan({ where, pathParams: [], params: undefined, outer: [], own: [], uses }, scope);
      if (plan !== undefined) {
        for (const slot of plan.slots) {
          if (slot.params.length > 0)
            throw new Error(`${where}: dependency ${slot.node.name} has params, and a run here has no request to read them from`);
          if (slot.node.kind === 'guard') throw new Error(`${where}: ${slot.node.name} is a guard, and a run here has no request to check`);
        }
      }
    }
    return plan;
  };
  return {
    async run(context) {
      const plan = current();
      if (plan === undefined) return { values: {}, close: async (error?: unknown) => error };
      const resolution = new Resolution(plan.slots.length);
      const logger = scope.logging;
      const failure = await new Promise<unknown>((resolve) => resolveSteps(plan, resolution, 0, {}, context, resolve));
      if (failure !== undefined) throw resolution.open === undefined ? failure : await throwInto(resolution.open, failure, logger);
      const values = handlerInput(plan, {}, resolution);
      let closed = false;
      return {
        values,
        async close(error?: unknown) {
          if (closed) return error;
          closed = true;
          const open = resolution.open;
          if (open === undefined) return error;
          return error === undefined ? closeAll(open, logger) : throwInto(open, error, logger);
        },
      };
    },
  };
}
