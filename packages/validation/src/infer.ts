import type { ParamSource } from './sources.js';

// Input types are read from each schema's Standard Schema types (`~standard.types`), for zod and any
// other library alike: one indexed access per parameter, no structural comparison with a library's
// classes (which is what makes type-checking an endpoint cheap).

/** The names of the `{name}` segments of a route literal: `'/users/{id}'` → `'id'`, `'/files/{p:path}'` → `'p'`. */
export type PathParamNames<R extends string> = R extends `${string}{${infer Name}}${infer Rest}`
  ? (Name extends `${infer Bare}:${string}` ? Bare : Name) | PathParamNames<Rest>
  : never;

/** A schema's parsed type: `StandardSchemaV1.InferOutput`. */
export type SchemaOutput<S> = S extends { readonly '~standard': { readonly types?: infer T } }
  ? NonNullable<T> extends { readonly output: infer O }
    ? O
    : unknown
  : unknown;

/** What a schema accepts: `StandardSchemaV1.InferInput`. */
export type SchemaInput<S> = S extends { readonly '~standard': { readonly types?: infer T } }
  ? NonNullable<T> extends { readonly input: infer I }
    ? I
    : unknown
  : unknown;

/** The parsed type of one `params` entry (a schema, or a schema in a source wrapper). */
type ParamOutput<P> = P extends ParamSource<infer S, infer _L> ? SchemaOutput<S> : SchemaOutput<P>;

type Outputs<P> = { [K in keyof P]: ParamOutput<P[K]> };

/** Keys whose parsed value may be `undefined`: optional in the input. */
type OptionalKeys<T> = { [K in keyof T]-?: undefined extends T[K] ? K : never }[keyof T];

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type ObjectOf<T> = { [K in Exclude<keyof T, OptionalKeys<T>>]: T[K] } & { [K in OptionalKeys<T>]?: T[K] };

/**
 * The handler's input: the parsed output of `params` (wrappers unwrapped, optional keys optional),
 * plus every path parameter of the route without a schema, as a string.
 */
export type InferInput<R extends string, P> = Simplify<ObjectOf<Outputs<P>> & { [K in Exclude<PathParamNames<R>, keyof P>]: string }>;
