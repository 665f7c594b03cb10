import type { Schema } from './standard.js';

/** Where a bound value comes from. */
export type ParamLocation = 'path' | 'query' | 'header' | 'cookie' | 'body';

/** The locations an explicit source wrapper can name. */
export type ExplicitLocation = 'query' | 'header' | 'cookie' | 'body';

const BRAND: unique symbol = Symbol.for('fnapi.ParamSource') as never;

/**
 * A schema pinned to an explicit request location, overriding the default binding rules.
 * Built with `header()`, `cookie()`, `query()` or `body()`.
 */
export class ParamSource<S extends Schema = Schema, L extends ExplicitLocation = ExplicitLocation> {
  readonly in: L;
  readonly schema: S;
  /** For `body(schema, { whole: true })`: the parameter receives the whole JSON body. */
  readonly whole: boolean;
  /** @internal */
  readonly [BRAND] = true;

  constructor(location: L, schema: S, whole = false) {
    this.in = location;
    this.schema = schema;
    this.whole = whole;
  }
}

/** True for a `ParamSource`, also across duplicated copies of this package. */
export function isParamSource(value: unknown): value is ParamSource {
  return value instanceof ParamSource || (typeof value === 'object' && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true);
}

/** Reads the request header named after the parameter, underscores as hyphens (`x_request_id` → `X-Request-Id`). */
export function header<S extends Schema>(schema: S): ParamSource<S, 'header'> {
  return new ParamSource('header', schema);
}

/** Reads the cookie of the parameter's name. */
export function cookie<S extends Schema>(schema: S): ParamSource<S, 'cookie'> {
  return new ParamSource('cookie', schema);
}

/** Reads the query parameter of the parameter's name, whatever the method. */
export function query<S extends Schema>(schema: S): ParamSource<S, 'query'> {
  return new ParamSource('query', schema);
}

/**
 * Reads the JSON body field of the parameter's name, whatever the method; with `{ whole: true }` the
 * parameter receives the whole JSON body, whatever its schema (`body(z.json(), { whole: true })`
 * accepts any JSON value, as FastAPI's single `Body()` parameter does).
 */
export function body<S extends Schema>(schema: S, options?: { whole?: boolean }): ParamSource<S, 'body'> {
  return new ParamSource('body', schema, options?.whole ?? false);
}
