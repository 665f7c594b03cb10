import { z } from 'zod';
import { compiledParser } from './compiled.js';
import { converterFor, defOf, expectation, isArraySchema, isObjectSchema, isOptional, lenient, unwrap } from './convert.js';
import { isParamSource, type ParamLocation, type ParamSource } from './sources.js';
import { compileForm } from './uploads.js';

/** A parameter's declaration: a zod schema, or a schema wrapped by `header()`, `cookie()`, `query()`, `body()`. */
export type ParamSpec = z.ZodType | ParamSource;

/** The `params` option of an endpoint. */
export type ParamsShape = Record<string, ParamSpec>;

/** One validation problem, located in the request. */
export interface ValidationIssue {
  in: ParamLocation;
  /** Location inside the part named by `in`. */
  path: (string | number)[];
  message: string;
  code: string;
}

/** What the binder reads from a request. */
export interface RawInput {
  /** Path parameters, already percent-decoded. */
  path: Record<string, string>;
  /** Query values by name: a string, or an array when the key repeats (see `queryValues`). */
  query: Readonly<Record<string, string | string[] | undefined>>;
  /** Header lookup; `name` is lower-case. */
  headers: { get(name: string): string | null | undefined };
  /** Parsed cookies; called only when the route has a cookie parameter. */
  cookies: () => Record<string, string | undefined>;
  /** The parsed JSON body, or `undefined` when there is none. */
  body: unknown;
}

export interface BinderPlan {
  method: string;
  /** Names of the `{name}` segments of the route. */
  pathParams: readonly string[];
  params?: ParamsShape;
}

export type BindResult = { ok: true; value: Record<string, unknown> } | { ok: false; issues: ValidationIssue[] };

export interface Binder {
  (raw: RawInput): BindResult;
  /** The route reads the JSON body. */
  readonly usesBody: boolean;
  /** The route reads cookies. */
  readonly usesCookies: boolean;
}

export interface ParamDescriptor {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  /** The name on the wire: the header name (lower-case, hyphenated), query key, cookie name or path segment. */
  wireName: string;
  schema: z.ZodType;
  required: boolean;
}

export type BodyDescriptor =
  | { kind: 'none' }
  | { kind: 'fields'; schema: z.ZodObject; mediaTypes?: readonly string[] }
  | { kind: 'whole'; name: string; schema: z.ZodType; mediaTypes?: readonly string[] };

// ---------------------------------------------------------------------------------------------
// Analysis (shared by compileBinder and describeParams)
// ---------------------------------------------------------------------------------------------

type Convert = (raw: string) => unknown;

interface QueryModelField {
  name: string;
  schema: z.ZodType;
  array: boolean;
  convert: Convert;
}

type Entry =
  | {
      kind: 'scalar';
      name: string;
      in: 'path' | 'query' | 'header' | 'cookie';
      wire: string;
      schema: z.ZodType;
      array: boolean;
      convert: Convert;
    }
  | { kind: 'queryModel'; name: string; in: 'query'; wire: string; schema: z.ZodType; optional: boolean; fields: QueryModelField[] }
  | { kind: 'bodyField'; name: string; in: 'body'; wire: string; schema: z.ZodType }
  | { kind: 'wholeBody'; name: string; in: 'body'; wire: string; schema: z.ZodType };

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const PLAIN_STRING = z.string();
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

function objectShape(schema: z.ZodType): Record<string, z.ZodType> {
  return defOf(unwrap(schema)).shape ?? {};
}

function scalarEntry(name: string, location: 'path' | 'query' | 'header' | 'cookie', wire: string, schema: z.ZodType): Entry {
  // Path segments are single values: an array schema there simply gets the string (and zod rejects it).
  const array = location !== 'path' && isArraySchema(schema);
  const target = array ? (defOf(unwrap(schema)).element as z.ZodType) : schema;
  return { kind: 'scalar', name, in: location, wire, schema, array, convert: lenient(converterFor(target)) };
}

function queryEntry(name: string, schema: z.ZodType): Entry {
  if (!isObjectSchema(schema)) return scalarEntry(name, 'query', name, schema);
  const fields: QueryModelField[] = Object.entries(objectShape(schema)).map(([field, fieldSchema]) => {
    const array = isArraySchema(fieldSchema);
    const target = array ? (defOf(unwrap(fieldSchema)).element as z.ZodType) : fieldSchema;
    return { name: field, schema: fieldSchema, array, convert: lenient(converterFor(target)) };
  });
  return { kind: 'queryModel', name, in: 'query', wire: name, schema, optional: isOptional(schema), fields };
}

function analyze(plan: BinderPlan): Entry[] {
  const method = plan.method.toUpperCase();
  const params = plan.params ?? {};
  const pathNames = new Set(plan.pathParams);
  const entries: Entry[] = [];

  for (const name of plan.pathParams) {
    const spec = Object.hasOwn(params, name) ? params[name] : undefined;
    if (spec !== undefined && isParamSource(spec)) {
      throw new TypeError(`Parameter "${name}" is a path parameter of the route; it cannot also be read from ${spec.in} with ${spec.in}()`);
    }
    const schema = (spec as z.ZodType | undefined) ?? PLAIN_STRING;
    const type = defOf(unwrap(schema)).type;
    if (NOT_FROM_A_SEGMENT.has(type)) {
      throw new TypeError(
        `Path parameter "${name}" has ${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type} schema, which cannot be read from one path segment; ` +
          'use a scalar schema (z.string(), z.int(), z.number(), z.boolean(), z.enum([...])) or move it to the query or body',
      );
    }
    entries.push(scalarEntry(name, 'path', name, schema));
  }

  const implicit: [string, z.ZodType][] = [];
  const explicitBody: [string, z.ZodType][] = [];
  let wholeBody: [string, z.ZodType] | undefined;
  for (const [name, spec] of Object.entries(params)) {
    if (pathNames.has(name)) continue;
    if (isParamSource(spec)) {
      const schema = spec.schema;
      switch (spec.in) {
        case 'header':
          entries.push(scalarEntry(name, 'header', name.replace(/_/g, '-').toLowerCase(), schema));
          break;
        case 'cookie':
          entries.push(scalarEntry(name, 'cookie', name, schema));
          break;
        case 'query':
          entries.push(queryEntry(name, schema));
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
    if (spec === null || typeof spec !== 'object' || !('_zod' in spec)) {
      throw new TypeError(`Parameter "${name}" must be a zod schema or a header()/cookie()/query()/body() wrapper`);
    }
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
    return entries;
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
  return entries;
}

/** The binding rules, described for documentation (OpenAPI): parameters by location and the request body. */
export function describeParams(plan: BinderPlan): { params: ParamDescriptor[]; body: BodyDescriptor } {
  const params: ParamDescriptor[] = [];
  const bodyFields: Record<string, z.ZodType> = {};
  let body: BodyDescriptor = { kind: 'none' };
  for (const e of analyze(plan)) {
    switch (e.kind) {
      case 'scalar':
        params.push({
          name: e.name,
          in: e.in,
          wireName: e.wire,
          schema: e.schema,
          required: e.in === 'path' || !isOptional(e.schema),
        });
        break;
      case 'queryModel':
        for (const f of e.fields) {
          params.push({ name: f.name, in: 'query', wireName: f.name, schema: f.schema, required: !e.optional && !isOptional(f.schema) });
        }
        break;
      case 'bodyField':
        bodyFields[e.name] = e.schema;
        break;
      case 'wholeBody':
        body = { kind: 'whole', name: e.name, schema: e.schema };
        break;
    }
  }
  if (Object.keys(bodyFields).length > 0) body = { kind: 'fields', schema: z.object(bodyFields) };
  // Forms and uploads are described with their own media types rather than JSON.
  const form = compileForm(plan.method, plan.params, plan.pathParams);
  if (form !== undefined && body.kind !== 'none') body = { ...body, mediaTypes: form.mediaTypes };
  return { params, body };
}

// ---------------------------------------------------------------------------------------------
// The binder
// ---------------------------------------------------------------------------------------------

type Reader = (
  raw: RawInput,
  cookies: Record<string, string | undefined> | undefined,
  body: Record<string, unknown> | undefined,
) => unknown;

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * Zod reads object fields with plain property access, so a key named like an `Object.prototype` member
 * (`toString`, `constructor`) would see the inherited value. Such inputs are built without a prototype;
 * all others stay ordinary (faster) objects.
 */
function objectFactory(keys: readonly string[]): () => Record<string, unknown> {
  return keys.some((k) => k in Object.prototype) ? () => Object.create(null) as Record<string, unknown> : () => ({});
}
const COMMA = /\s*,\s*/;

/** The last value of a query key (`?a=1&a=2` reads 2 as a scalar), or undefined when absent. */
function lastOf(value: string | string[] | undefined): string | undefined {
  return value === undefined || typeof value === 'string' ? value : value[value.length - 1];
}

/** Every value of a query key, in order. */
function allOf(value: string | string[]): string[] {
  return typeof value === 'string' ? [value] : value;
}

/**
 * A query record from `URLSearchParams`, in the shape `RawInput.query` takes (null prototype, so a
 * key such as `__proto__` is an ordinary key).
 */
export function queryValues(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null);
  for (const [key, value] of params) {
    const current = out[key];
    out[key] = current === undefined ? value : typeof current === 'string' ? [current, value] : [...current, value];
  }
  return out;
}

function readerFor(e: Entry): Reader {
  switch (e.kind) {
    case 'scalar': {
      const { wire, convert } = e;
      switch (e.in) {
        case 'path':
          return (raw) => {
            const v = raw.path[wire];
            return v === undefined ? undefined : convert(v);
          };
        case 'query':
          if (e.array) {
            return (raw) => {
              const all = raw.query[wire];
              return all === undefined ? undefined : allOf(all).map(convert);
            };
          }
          return (raw) => {
            const v = lastOf(raw.query[wire]);
            return v === undefined ? undefined : convert(v);
          };
        case 'header':
          if (e.array) {
            return (raw) => {
              const v = raw.headers.get(wire);
              if (v === null || v === undefined) return undefined;
              const parts = v.trim() === '' ? [] : v.trim().split(COMMA);
              return parts.map(convert);
            };
          }
          return (raw) => {
            const v = raw.headers.get(wire);
            return v === null || v === undefined ? undefined : convert(v);
          };
        case 'cookie':
          return (_raw, cookies) => {
            const v = cookies![wire];
            return v === undefined ? undefined : convert(v);
          };
      }
      break;
    }
    case 'queryModel': {
      const fields = e.fields;
      const optional = e.optional;
      const newObject = objectFactory(fields.map((f) => f.name));
      return (raw) => {
        const q = raw.query;
        const out = newObject();
        let present = false;
        for (let i = 0; i < fields.length; i++) {
          const f = fields[i];
          const all = q[f.name];
          if (all === undefined) continue;
          present = true;
          out[f.name] = f.array ? allOf(all).map(f.convert) : f.convert(lastOf(all)!);
        }
        return optional && !present ? undefined : out;
      };
    }
    case 'bodyField': {
      const name = e.name;
      return (_raw, _cookies, body) => (body !== undefined && hasOwn.call(body, name) ? body[name] : undefined);
    }
    case 'wholeBody':
      return (raw) => raw.body;
  }
  throw new TypeError('unreachable');
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

interface IssueTarget {
  in: ParamLocation;
  /** Replaces the parameter name at the head of zod's path; `null` drops it (models). */
  head: string | null;
}

function toPathItem(p: PropertyKey): string | number {
  return typeof p === 'symbol' ? String(p) : p;
}

/** Expected shapes of string-borne values, by parameter name (and `name.field` for query models). */
type Expectations = Map<string, string>;

const FROM_STRINGS: ReadonlySet<ParamLocation> = new Set(['path', 'query', 'header', 'cookie']);

/**
 * An issue as the person who sent the request reads it: a missing value is `missing` / "Field
 * required"; a path, query, header or cookie string that could not be converted says what was
 * expected and repeats what it got; other issues keep zod's code and message.
 */
function readable(issue: z.core.$ZodIssue, location: ParamLocation, expected: string | undefined): { message: string; code: string } {
  const input = (issue as { input?: unknown }).input;
  // `custom` too: a `file()` (or any custom check) given nothing is a missing field.
  if ((issue.code === 'invalid_type' || issue.code === 'invalid_union' || issue.code === 'custom') && input === undefined) {
    return { message: 'Field required', code: 'missing' };
  }
  if (
    expected !== undefined &&
    FROM_STRINGS.has(location) &&
    typeof input === 'string' &&
    (issue.code === 'invalid_type' || issue.code === 'invalid_value')
  ) {
    return { message: `Expected ${expected}, got ${JSON.stringify(input)}`, code: issue.code };
  }
  return { message: issue.message, code: issue.code };
}

/** Parse options: zod keeps each issue's input, which the messages repeat. */
const PARSE = { reportInput: true } as const;

function mapIssues(
  issues: readonly z.core.$ZodIssue[],
  targets: Map<string, IssueTarget>,
  out: ValidationIssue[],
  expectations?: Expectations,
): void {
  for (const issue of issues) {
    const [first, ...rest] = issue.path;
    const target = targets.get(first as string);
    let path: (string | number)[];
    let location: ParamLocation;
    if (target === undefined) {
      location = 'body';
      path = issue.path.map(toPathItem);
    } else {
      location = target.in;
      path = target.head === null ? rest.map(toPathItem) : [target.head, ...rest.map(toPathItem)];
    }
    const key = target === undefined ? undefined : target.head === null ? `${String(first)}.${String(rest[0])}` : String(first);
    out.push({ in: location, path, ...readable(issue, location, key === undefined ? undefined : expectations?.get(key)) });
  }
}

function makeBinder(fn: (raw: RawInput) => BindResult, usesBody: boolean, usesCookies: boolean): Binder {
  return Object.defineProperties(fn, {
    usesBody: { value: usesBody, enumerable: true },
    usesCookies: { value: usesCookies, enumerable: true },
  }) as Binder;
}

/**
 * Compiles the binding of one route: all schema analysis happens here, once. The returned function reads
 * the raw request parts, converts strings strictly and validates everything with one zod parse.
 */
export function compileBinder(plan: BinderPlan): Binder {
  const entries = analyze(plan);

  if (entries.length === 0) {
    return makeBinder(() => ({ ok: true, value: {} }), false, false);
  }

  // Only schema-less path parameters: plain strings, no zod needed.
  if (entries.every((e) => e.kind === 'scalar' && e.in === 'path' && e.schema === PLAIN_STRING)) {
    const names = entries.map((e) => e.name);
    return makeBinder(
      (raw) => {
        const value: Record<string, unknown> = {};
        for (let i = 0; i < names.length; i++) value[names[i]] = raw.path[names[i]];
        return { ok: true, value };
      },
      false,
      false,
    );
  }

  // Only a whole-body model: parse it directly, without an enclosing object to build and walk.
  if (entries.length === 1 && entries[0].kind === 'wholeBody') {
    const { name } = entries[0];
    const model = compiledParser(entries[0].schema);
    const newInput = objectFactory([name]);
    return makeBinder(
      (raw) => {
        const result = model.safeParse(raw.body, PARSE);
        if (!result.success) {
          const issues: ValidationIssue[] = result.error.issues.map((issue) => ({
            in: 'body',
            path: issue.path.map(toPathItem),
            ...readable(issue, 'body', undefined),
          }));
          return { ok: false, issues };
        }
        const value = newInput();
        value[name] = result.data;
        return { ok: true, value };
      },
      true,
      false,
    );
  }

  const keys = entries.map((e) => e.name);
  const readers = entries.map(readerFor);
  const isBodyField = entries.map((e) => e.kind === 'bodyField');
  const shape: Record<string, z.ZodType> = {};
  const targets = new Map<string, IssueTarget>();
  for (const e of entries) {
    shape[e.name] = e.schema;
    const dropHead = e.kind === 'queryModel' || e.kind === 'wholeBody';
    targets.set(e.name, { in: e.in, head: dropHead ? null : e.wire });
  }
  const schema = compiledParser(z.object(shape));
  const expectations: Expectations = new Map();
  for (const e of entries) {
    if (e.kind === 'queryModel') {
      for (const field of e.fields) {
        const expected = expectation(field.schema);
        if (expected !== undefined) expectations.set(`${e.name}.${field.name}`, expected);
      }
    } else if (FROM_STRINGS.has(e.in)) {
      const expected = expectation(e.schema);
      if (expected !== undefined) expectations.set(e.name, expected);
    }
  }

  const usesBody = entries.some((e) => e.in === 'body');
  const usesCookies = entries.some((e) => e.in === 'cookie');
  const hasBodyFields = isBodyField.some(Boolean);
  const n = entries.length;
  const newInput = objectFactory(keys);

  // Used only when a by-name body is not an object: validates the other parameters alone.
  let withoutBodyFields: z.ZodObject | undefined;
  const validateWithoutBodyFields = (raw: RawInput, cookies: Record<string, string | undefined> | undefined): ValidationIssue[] => {
    if (withoutBodyFields === undefined) {
      const s: Record<string, z.ZodType> = {};
      for (const e of entries) if (e.kind !== 'bodyField') s[e.name] = e.schema;
      withoutBodyFields = z.object(s);
    }
    const input = newInput();
    for (let i = 0; i < n; i++) {
      if (isBodyField[i]) continue;
      const v = readers[i](raw, cookies, undefined);
      if (v !== undefined) input[keys[i]] = v;
    }
    const result = withoutBodyFields.safeParse(input, PARSE);
    const out: ValidationIssue[] = [];
    if (!result.success) mapIssues(result.error.issues, targets, out, expectations);
    return out;
  };

  return makeBinder(
    (raw) => {
      const cookies = usesCookies ? raw.cookies() : undefined;
      let bodyObject: Record<string, unknown> | undefined;
      if (hasBodyFields) {
        const b = raw.body;
        if (b !== undefined) {
          if (typeof b !== 'object' || b === null || Array.isArray(b)) {
            const bodyIssue: ValidationIssue = {
              in: 'body',
              path: [],
              message: `Invalid input: expected object, received ${describeType(b)}`,
              code: 'invalid_type',
            };
            return { ok: false, issues: [bodyIssue, ...validateWithoutBodyFields(raw, cookies)] };
          }
          bodyObject = b as Record<string, unknown>;
        }
      }
      const input = newInput();
      for (let i = 0; i < n; i++) {
        const v = readers[i](raw, cookies, bodyObject);
        if (v !== undefined) input[keys[i]] = v;
      }
      const result = schema.safeParse(input, PARSE);
      if (result.success) return { ok: true, value: result.data as Record<string, unknown> };
      const issues: ValidationIssue[] = [];
      mapIssues(result.error.issues, targets, issues, expectations);
      return { ok: false, issues };
    },
    usesBody,
    usesCookies,
  );
}
