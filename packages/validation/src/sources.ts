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
  /** The wrapper's options: the name on the wire, and how the parameter is documented. */
  readonly options: ParamOptions;
  /** @internal */
  readonly [BRAND] = true;

  constructor(location: L, schema: S, whole = false, options: ParamOptions = {}) {
    this.in = location;
    this.schema = schema;
    this.whole = whole;
    this.options = options;
  }
}

/** Options of the `query()`, `header()` and `cookie()` wrappers. */
export interface ParamOptions {
  /**
   * The name on the wire when it differs from the parameter's: a query key such as `item-query`, a
   * header written with underscores (`x_legacy_token`), a cookie name.
   */
  alias?: string;
  /** Marks the parameter deprecated in the document. */
  deprecated?: boolean;
  /** Default true; false keeps the parameter out of the document (it is still read). */
  includeInSchema?: boolean;
}

/** True for a `ParamSource`, also across duplicated copies of this package. */
export function isParamSource(value: unknown): value is ParamSource {
  return value instanceof ParamSource || (typeof value === 'object' && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true);
}

/**
 * Reads the request header named after the parameter, underscores as hyphens (`x_request_id` →
 * `X-Request-Id`), or the one `alias` names (as written: `{ alias: 'x_legacy' }` reads `x_legacy`).
 * With an object schema, each field is a header of its own.
 */
export function header<S extends Schema>(schema: S, options?: ParamOptions): ParamSource<S, 'header'> {
  return new ParamSource('header', schema, false, options);
}

/** Reads the cookie of the parameter's name (or `alias`); with an object schema, each field is a cookie. */
export function cookie<S extends Schema>(schema: S, options?: ParamOptions): ParamSource<S, 'cookie'> {
  return new ParamSource('cookie', schema, false, options);
}

/** Reads the query parameter of the parameter's name (or `alias`), whatever the method; an object schema is a query model. */
export function query<S extends Schema>(schema: S, options?: ParamOptions): ParamSource<S, 'query'> {
  return new ParamSource('query', schema, false, options);
}

/**
 * Reads the JSON body field of the parameter's name, whatever the method; with `{ whole: true }` the
 * parameter receives the whole JSON body, whatever its schema (`body(z.json(), { whole: true })`
 * accepts any JSON value, as FastAPI's single `Body()` parameter does).
 */
export function body<S extends Schema>(schema: S, options?: { whole?: boolean }): ParamSource<S, 'body'> {
  return new ParamSource('body', schema, options?.whole ?? false);
}
