// A dependency as other modules see it: an opaque value with its value's type. Kept apart from
// `dependency.ts` so that endpoint options can name it without importing what makes one.

/** The key of a dependency's description: a symbol, so a dependency is an opaque value to apps. */
export const DEPENDENCY: unique symbol = Symbol.for('fnapi.dependency') as never;
/** Type-only: the value a dependency gives (`Dependency<T>`). */
export declare const DEPENDENCY_VALUE: unique symbol;

/**
 * A dependency (FastAPI's `Depends`): made with `dependency(options, fn)`; an endpoint receives its
 * value under the name it `uses` it by. `T` is the value's type.
 */
export interface Dependency<T = unknown> {
  readonly [DEPENDENCY]: object;
  /** Type-only. */
  readonly [DEPENDENCY_VALUE]?: T;
}

/** `{ name: dependency }`: what an endpoint, a dependency or a job kind uses. */
export type Uses = Record<string, Dependency<any>>;

/** The values of what is used, by name. */
export type UsesValues<U> = { [K in keyof U]: U[K] extends Dependency<infer T> ? T : never };
