import { z } from 'zod';
import {
  converterFor,
  defOf,
  elementOf,
  isArraySchema,
  isObjectSchema,
  isOptional,
  lenient,
  objectFields,
  typeNameOf,
  unwrap,
} from './convert.js';
import { isParamSource, type ParamOptions, type ParamSource } from './sources.js';
import { isStandardSchema, isZodSchema, type Schema, standardJsonSchema } from './standard.js';

// Where each parameter of a route is read from, decided once from its plan (shared by the binder and
// the documentation).

/**
 * A parameter's declaration: a schema (zod, or any Standard Schema: valibot, arktype, …), or a schema
 * wrapped by `header()`, `cookie()`, `query()`, `body()`.
 */
export type ParamSpec = Schema | ParamSource;

/** The `params` option of an endpoint. */
export type ParamsShape = Record<string, ParamSpec>;

export interface BinderPlan {
  method: string;
  /** Names of the `{name}` segments of the route. */
  pathParams: readonly string[];
  params?: ParamsShape;
}

export type Convert = (raw: string) => unknown;

export interface QueryModelField {
  name: string;
  /** The key, header (lower-case) or cookie name it is read from. */
  wire: string;
  schema: Schema;
  array: boolean;
  convert: Convert;
}

export type Entry =
  | {
      kind: 'scalar';
      name: string;
      in: 'path' | 'query' | 'header' | 'cookie';
      wire: string;
      schema: Schema;
      array: boolean;
      convert: Convert;
      options?: ParamOptions;
    }
  | {
      /** An object schema spread over query keys, headers or cookies, one per field. */
      kind: 'queryModel';
      name: string;
      in: 'query' | 'header' | 'cookie';
      wire: string;
      schema: Schema;
      optional: boolean;
      fields: QueryModelField[];
      options?: ParamOptions;
      /** The model refuses unknown keys (`z.strictObject`): other keys of its location are handed to it. */
      strict: boolean;
      /** Keys of its location that other parameters read (never unknown to a strict model). */
      others: Set<string>;
    }
  | { kind: 'bodyField'; name: string; in: 'body'; wire: string; schema: Schema }
  | { kind: 'wholeBody'; name: string; in: 'body'; wire: string; schema: Schema };

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'QUERY']);
export const PLAIN_STRING = z.string();
/** Schema types a single path segment (one string) can never satisfy. */
const NOT_FROM_A_SEGMENT: ReadonlySet<string> = new Set([
  'object',
  'array',
  'tuple',
  'record',
  'map',
  'set',
  'file',
  'promise',
  'function',
]);

function scalarEntry(
  name: string,
  location: 'path' | 'query' | 'header' | 'cookie',
  wire: string,
  schema: Schema,
  options?: ParamOptions,
): Entry {
  // Path segments are single values: an array schema there simply gets the string (and zod rejects it).
  const array = location !== 'path' && isArraySchema(schema);
  const target = array ? elementOf(schema) : schema;
  return {
    kind: 'scalar',
    name,
    in: location,
    wire,
    schema,
    array,
    convert: lenient(converterFor(target)),
    ...(options ? { options } : {}),
  };
}

/** A header's name on the wire: the alias as written, else the parameter's with underscores as hyphens. */
function headerName(name: string, alias: string | undefined): string {
  return (alias ?? name.replace(/_/g, '-')).toLowerCase();
}

/** Whether an object schema refuses unknown keys (`z.strictObject`, `.strict()`). */
function isStrictObject(schema: Schema): boolean {
  if (!isZodSchema(schema)) return standardJsonSchema(schema, 'input')?.additionalProperties === false;
  const catchall = (defOf(unwrap(schema as z.ZodType)) as { catchall?: z.ZodType }).catchall;
  return catchall !== undefined && defOf(catchall).type === 'never';
}

/** A query, header or cookie parameter: a scalar, or an object schema spread over one key per field. */
function sourceEntry(name: string, location: 'query' | 'header' | 'cookie', schema: Schema, options?: ParamOptions): Entry {
  const wireOf = (field: string, alias?: string) => (location === 'header' ? headerName(field, alias) : (alias ?? field));
  if (!isObjectSchema(schema)) return scalarEntry(name, location, wireOf(name, options?.alias), schema, options);
  const fields: QueryModelField[] = objectFields(schema).map(([field, fieldSchema]) => {
    const array = isArraySchema(fieldSchema);
    const target = array ? elementOf(fieldSchema) : fieldSchema;
    return { name: field, wire: wireOf(field), schema: fieldSchema, array, convert: lenient(converterFor(target)) };
  });
  return {
    kind: 'queryModel',
    name,
    in: location,
    wire: name,
    schema,
    optional: isOptional(schema),
    fields,
    ...(options ? { options } : {}),
    // Headers carry whatever proxies and browsers add: only query and cookie models refuse unknown keys.
    strict: location !== 'header' && isStrictObject(schema),
    others: new Set(),
  };
}

function queryEntry(name: string, schema: Schema): Entry {
  return sourceEntry(name, 'query', schema);
}

/** Tells each strict model which keys of its location the route's other parameters read. */
function markOthers(entries: Entry[]): Entry[] {
  for (const e of entries) {
    if (e.kind !== 'queryModel' || !e.strict) continue;
    for (const other of entries) {
      if (other === e || other.in !== e.in) continue;
      if (other.kind === 'queryModel') for (const f of other.fields) e.others.add(f.wire);
      else e.others.add(other.wire);
    }
  }
  return entries;
}

function notASchema(name: string): string {
  return (
    `Parameter "${name}" must be a schema (zod, or any Standard Schema such as valibot or arktype) ` +
    'or a header()/cookie()/query()/body() wrapper'
  );
}

/**
 * Each params object's last analysis, for its method and path parameters: registration checks a
 * route's parameters and compiling it binds them, and both read the same entries (never changed
 * after they are made), so an app's cold start analyses each route once.
 */
const analyses = new WeakMap<object, { key: string; entries: Entry[] }>();

export function analyze(plan: BinderPlan): Entry[] {
  const params = plan.params;
  if (params === undefined) return analyzeNow(plan);
  const key = `${plan.method.toUpperCase()} ${plan.pathParams.join('/')}`;
  const known = analyses.get(params);
  if (known !== undefined && known.key === key) return known.entries;
  const entries = analyzeNow(plan);
  analyses.set(params, { key, entries });
  return entries;
}

function analyzeNow(plan: BinderPlan): Entry[] {
  const method = plan.method.toUpperCase();
  const params = plan.params ?? {};
  const pathNames = new Set(plan.pathParams);
  const entries: Entry[] = [];

  for (const name of plan.pathParams) {
    const spec = Object.hasOwn(params, name) ? params[name] : undefined;
    if (spec !== undefined && isParamSource(spec)) {
      throw new TypeError(`Parameter "${name}" is a path parameter of the route; it cannot also be read from ${spec.in} with ${spec.in}()`);
    }
    const schema = (spec as Schema | undefined) ?? PLAIN_STRING;
    if (!isStandardSchema(schema)) throw new TypeError(notASchema(name));
    const type = typeNameOf(schema);
    if (NOT_FROM_A_SEGMENT.has(type)) {
      throw new TypeError(
        `Path parameter "${name}" has ${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type} schema, which cannot be read from one path segment; ` +
          'use a scalar schema (z.string(), z.int(), z.number(), z.boolean(), z.enum([...])) or move it to the query or body',
      );
    }
    entries.push(scalarEntry(name, 'path', name, schema));
  }

  const implicit: [string, Schema][] = [];
  const explicitBody: [string, Schema][] = [];
  let wholeBody: [string, Schema] | undefined;
  for (const [name, spec] of Object.entries(params)) {
    if (pathNames.has(name)) continue;
    if (isParamSource(spec)) {
      const schema = spec.schema;
      if (!isStandardSchema(schema)) throw new TypeError(`Parameter "${name}": ${spec.in}() takes a zod schema or another Standard Schema`);
      switch (spec.in) {
        case 'header':
        case 'cookie':
        case 'query':
          entries.push(sourceEntry(name, spec.in, schema, spec.options));
          break;
        case 'body':
          if (spec.whole) {
            if (wholeBody) throw new TypeError(`Parameters "${wholeBody[0]}" and "${name}" cannot both receive the whole body`);
            wholeBody = [name, schema];
          } else explicitBody.push([name, schema]);
          break;
        default:
          throw new TypeError(`Parameter "${name}" has an unknown source "${String((spec as ParamSource).in)}"`);
      }
      continue;
    }
    if (!isStandardSchema(spec)) throw new TypeError(notASchema(name));
    implicit.push([name, spec]);
  }

  if (wholeBody) {
    const others = [...explicitBody, ...(BODY_METHODS.has(method) ? implicit : [])].map(([n]) => `"${n}"`);
    if (others.length > 0) {
      throw new TypeError(
        `Parameter "${wholeBody[0]}" receives the whole body (body(…, { whole: true })), so ${others.join(', ')} cannot also be read from it`,
      );
    }
    entries.push({ kind: 'wholeBody', name: wholeBody[0], in: 'body', wire: wholeBody[0], schema: wholeBody[1] });
    if (!BODY_METHODS.has(method)) for (const [name, schema] of implicit) entries.push(queryEntry(name, schema));
    return markOthers(entries);
  }
  if (BODY_METHODS.has(method)) {
    if (implicit.length === 1 && explicitBody.length === 0 && isObjectSchema(implicit[0][1])) {
      const [name, schema] = implicit[0];
      entries.push({ kind: 'wholeBody', name, in: 'body', wire: name, schema });
    } else {
      for (const [name, schema] of implicit) entries.push({ kind: 'bodyField', name, in: 'body', wire: name, schema });
    }
  } else {
    for (const [name, schema] of implicit) entries.push(queryEntry(name, schema));
  }
  for (const [name, schema] of explicitBody) entries.push({ kind: 'bodyField', name, in: 'body', wire: name, schema });
  return markOthers(entries);
}
