import type { z } from 'zod';
import type { ParamsShape } from './plan.js';
import type { ParamSource } from './sources.js';

/** The names of the `{name}` segments of a route literal: `'/users/{id}'` → `'id'`, `'/files/{p:path}'` → `'p'`. */
export type PathParamNames<R extends string> = R extends `${string}{${infer Name}}${infer Rest}`
  ? (Name extends `${infer Bare}:${string}` ? Bare : Name) | PathParamNames<Rest>
  : never;

type SchemaOf<P> = P extends ParamSource<infer S, infer _L> ? S : P extends z.ZodType ? P : never;

type SchemasOf<P extends ParamsShape> = { [K in keyof P]: SchemaOf<P[K]> };

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/**
 * The handler's input: the parsed output of `params` (wrappers unwrapped, optional keys optional),
 * plus every path parameter of the route without a schema, as a string.
 */
export type InferInput<R extends string, P extends ParamsShape> = Simplify<
  z.output<z.ZodObject<SchemasOf<P>>> & { [K in Exclude<PathParamNames<R>, keyof P>]: string }
>;
