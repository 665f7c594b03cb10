import type { z } from 'zod';
import { acceptsUndefined, isZodSchema, type JsonSchema, jsonPart, partOptional, type Schema, standardJsonSchema } from './standard.js';

/**
 * Strict string conversion for values from the path, the query, headers and cookies.
 * Everything here runs at route compile time except the returned converter functions.
 */

/** Returned by a converter when the string does not fit the target type. */
export const FAIL: unique symbol = Symbol('fnapi.convert.fail');

/** Converts a raw string to the schema's input type, or returns `FAIL`. */
export type Converter = (raw: string) => unknown;

interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  getter?: () => z.ZodType;
  format?: string;
  checks?: { _zod: { def: { check?: string; format?: string } } }[];
  element?: z.ZodType;
  options?: readonly z.ZodType[];
  shape?: Record<string, z.ZodType>;
}

export function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'catch', 'readonly', 'nonoptional']);

/** Looks through optional/nullable/default/catch/readonly wrappers, pipes (their input side) and lazy schemas. */
export function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (let guard = 0; guard < 64; guard++) {
    const def = defOf(s);
    if (WRAPPERS.has(def.type) && def.innerType) s = def.innerType;
    else if (def.type === 'pipe' && def.in) s = def.in;
    else if (def.type === 'lazy' && def.getter) s = def.getter();
    else return s;
  }
  return s;
}

// Other Standard Schemas are read through their JSON Schema (draft 2020-12): its `type` chooses the
// string conversion, `properties` the fields of a model, `items` the element of an array.

/** The input JSON Schema of a non-zod schema; `{}` (anything) when it offers none. */
function jsonOf(schema: Schema): JsonSchema {
  return standardJsonSchema(schema, 'input') ?? {};
}

function jsonTypes(json: JsonSchema): string[] {
  const type = json.type;
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === 'string');
  if (typeof json.properties === 'object' && json.properties !== null) return ['object'];
  return [];
}

/** The single JSON type a schema (zod or not) reads from strings: `object`, `array`, `number`, … */
export function typeNameOf(schema: Schema): string {
  if (isZodSchema(schema)) return defOf(unwrap(schema as z.ZodType)).type;
  const types = jsonTypes(jsonOf(schema)).filter((t) => t !== 'null');
  return types.length === 1 ? types[0] : 'unknown';
}

/** True when the schema (through wrappers) is a `z.object`, or another schema of JSON type `object`. */
export function isObjectSchema(schema: Schema): boolean {
  if (!isZodSchema(schema)) return typeNameOf(schema) === 'object';
  return defOf(unwrap(schema as z.ZodType)).type === 'object';
}

/** True when the schema (through wrappers) is a `z.array`, or another schema of JSON type `array` with `items`. */
export function isArraySchema(schema: Schema): boolean {
  if (!isZodSchema(schema)) {
    const json = jsonOf(schema);
    return typeNameOf(schema) === 'array' && typeof json.items === 'object' && json.items !== null;
  }
  return defOf(unwrap(schema as z.ZodType)).type === 'array';
}

/** True when the schema's values are JSON arrays: a `z.array` or a `z.tuple` (through wrappers), or JSON type `array`. */
export function isArrayLikeSchema(schema: Schema): boolean {
  if (!isZodSchema(schema)) return typeNameOf(schema) === 'array';
  const type = defOf(unwrap(schema as z.ZodType)).type;
  return type === 'array' || type === 'tuple';
}

/** True when a missing value is acceptable (optional, default, prefault, catch; another schema: it accepts `undefined`). */
export function isOptional(schema: Schema): boolean {
  if (!isZodSchema(schema)) return partOptional(schema) ?? acceptsUndefined(schema);
  return (schema as unknown as { _zod: { optin?: string } })._zod.optin !== undefined;
}

/** The element schema of an array schema (`isArraySchema`). */
export function elementOf(schema: Schema): Schema {
  if (isZodSchema(schema)) return defOf(unwrap(schema as z.ZodType)).element as z.ZodType;
  return jsonPart(jsonOf(schema).items as JsonSchema, false);
}

/** The fields of an object schema (`isObjectSchema`), by name. */
export function objectFields(schema: Schema): [string, Schema][] {
  if (isZodSchema(schema)) return Object.entries(defOf(unwrap(schema as z.ZodType)).shape ?? {});
  const json = jsonOf(schema);
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(Array.isArray(json.required) ? (json.required as string[]) : []);
  return Object.entries(properties).map(([name, field]) => [name, jsonPart(field, !required.has(name))]);
}

const INT_FORMATS = new Set(['safeint', 'int32', 'uint32']);

function isIntegerSchema(def: Def): boolean {
  if (def.format !== undefined && INT_FORMATS.has(def.format)) return true;
  const checks = def.checks;
  if (checks) {
    for (const c of checks) {
      const cd = c._zod.def;
      if (cd.check === 'number_format' && cd.format !== undefined && INT_FORMATS.has(cd.format)) return true;
    }
  }
  return false;
}

const INT_RE = /^-?[0-9]+$/;
const NUMBER_RE = /^-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$/;

// Digits are read directly: cheaper than a regex test plus Number() on the per-request path.
const toInt: Converter = (raw) => {
  const length = raw.length;
  const negative = raw.charCodeAt(0) === 45; /* - */
  let i = negative ? 1 : 0;
  if (i === length) return FAIL;
  // Past 15 digits the sum may lose precision; Number() rounds the same way and zod judges safety.
  if (length - i > 15) return INT_RE.test(raw) ? Number(raw) : FAIL;
  let value = 0;
  for (; i < length; i++) {
    const digit = raw.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return FAIL;
    value = value * 10 + digit;
  }
  return negative ? -value : value;
};
const toNumber: Converter = (raw) => {
  if (!NUMBER_RE.test(raw)) return FAIL;
  const n = Number(raw);
  return Number.isFinite(n) ? n : FAIL;
};
const toBigInt: Converter = (raw) => (INT_RE.test(raw) ? BigInt(raw) : FAIL);
const toBoolean: Converter = (raw) => (raw === 'true' || raw === '1' ? true : raw === 'false' || raw === '0' ? false : FAIL);
const toDate: Converter = (raw) => {
  if (raw === '') return FAIL;
  const d = new Date(raw);
  return Number.isNaN(d.getTime()) ? FAIL : d;
};
const toNull: Converter = (raw) => (raw === 'null' ? null : FAIL);
const identity: Converter = (raw) => raw;

function enumConverter(values: Iterable<unknown>): Converter {
  const byString = new Map<string, unknown>();
  let allStrings = true;
  for (const v of values) {
    if (typeof v !== 'string') allStrings = false;
    byString.set(String(v), v);
  }
  if (allStrings) return identity;
  return (raw) => (byString.has(raw) ? byString.get(raw) : FAIL);
}

function unionConverter(options: Converter[]): Converter {
  if (options.length === 1) return options[0];
  if (options.every((c) => c === identity)) return identity;
  return (raw) => {
    for (const convert of options) {
      const v = convert(raw);
      if (v !== FAIL) return v;
    }
    return FAIL;
  };
}

const BY_JSON_TYPE: Record<string, Converter> = { integer: toInt, number: toNumber, boolean: toBoolean, null: toNull };

/** The strict converter chosen from a JSON Schema's `type` (`enum`/`const`, `anyOf`/`oneOf` through). */
function jsonConverter(json: JsonSchema, depth = 0): Converter {
  if (depth > 8) return identity;
  if (Array.isArray(json.enum)) return enumConverter(json.enum);
  if ('const' in json) return enumConverter([json.const]);
  const options = (json.anyOf ?? json.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(options)) return unionConverter(options.map((o) => jsonConverter(o, depth + 1)));
  if (Array.isArray(json.allOf) && json.allOf.length === 1) return jsonConverter(json.allOf[0] as JsonSchema, depth + 1);
  const types = jsonTypes(json);
  if (types.length === 0) return identity;
  return unionConverter(types.map((t) => BY_JSON_TYPE[t] ?? identity));
}

const JSON_EXPECTED: Record<string, string> = {
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean (true, false, 1 or 0)',
  null: 'null',
};

function jsonExpectation(json: JsonSchema, depth = 0): string | undefined {
  if (depth > 4) return undefined;
  const values = Array.isArray(json.enum) ? json.enum : 'const' in json ? [json.const] : undefined;
  if (values !== undefined) {
    if (values.every((v) => typeof v === 'string')) return undefined;
    return `${values.length === 1 ? '' : 'one of '}${values.map((v) => JSON.stringify(v)).join(', ')}`;
  }
  const options = (json.anyOf ?? json.oneOf) as JsonSchema[] | undefined;
  let parts: (string | undefined)[];
  if (Array.isArray(options)) parts = options.map((o) => jsonExpectation(o, depth + 1));
  else {
    const types = jsonTypes(json);
    // A string accepts any raw value: nothing to expect.
    if (types.includes('string')) return undefined;
    if (types.length === 1 && types[0] === 'array' && typeof json.items === 'object' && json.items !== null) {
      return jsonExpectation(json.items as JsonSchema, depth + 1);
    }
    parts = types.map((t) => JSON_EXPECTED[t]);
  }
  const known = parts.filter((e): e is string => e !== undefined);
  return known.length ? known.join(' or ') : undefined;
}

/** The strict converter for one scalar target (arrays are handled by the caller per element). */
export function converterFor(schema: Schema): Converter {
  if (!isZodSchema(schema)) return jsonConverter(jsonOf(schema));
  const target = unwrap(schema as z.ZodType);
  const def = defOf(target);
  switch (def.type) {
    case 'number':
      return isIntegerSchema(def) ? toInt : toNumber;
    case 'bigint':
      return toBigInt;
    case 'boolean':
      return toBoolean;
    case 'date':
      return toDate;
    case 'null':
      return toNull;
    case 'enum':
    case 'literal': {
      const values = (target as unknown as { _zod: { values?: Set<unknown> } })._zod.values;
      if (!values) return identity;
      return enumConverter(values);
    }
    case 'union': {
      const options = (def.options ?? []).map(converterFor);
      return (raw) => {
        for (const convert of options) {
          const v = convert(raw);
          if (v !== FAIL) return v;
        }
        return FAIL;
      };
    }
    default:
      // strings, string formats, template literals, any/unknown: the raw string as given
      return identity;
  }
}

/**
 * What a string from the path, query, a header or a cookie must look like for this schema, for
 * messages such as `Expected an integer, got "abc"`; undefined for strings (anything goes).
 */
export function expectation(schema: Schema, depth = 0): string | undefined {
  if (!isZodSchema(schema)) return jsonExpectation(jsonOf(schema));
  // A recursive schema (z.json(), z.lazy) builds new schemas as it is walked: stop after a few levels.
  if (depth > 4) return undefined;
  const target = unwrap(schema as z.ZodType);
  const def = defOf(target);
  switch (def.type) {
    case 'number':
      return isIntegerSchema(def) ? 'an integer' : 'a number';
    case 'bigint':
      return 'an integer';
    case 'boolean':
      return 'a boolean (true, false, 1 or 0)';
    case 'date':
      return 'a date';
    case 'null':
      return 'null';
    case 'array':
      return def.element ? expectation(def.element, depth + 1) : undefined;
    case 'enum':
    case 'literal': {
      const values = (target as unknown as { _zod: { values?: Set<unknown> } })._zod.values;
      return values ? `${values.size === 1 ? '' : 'one of '}${[...values].map((v) => JSON.stringify(v)).join(', ')}` : undefined;
    }
    case 'union': {
      const options = (def.options ?? []).map((option) => expectation(option, depth + 1)).filter((e): e is string => e !== undefined);
      return options.length ? options.join(' or ') : undefined;
    }
    default:
      return undefined;
  }
}

/** Wraps a converter so a failed conversion hands the raw string to zod (which reports its usual issue). */
export function lenient(convert: Converter): (raw: string) => unknown {
  if (convert === identity) return identity;
  return (raw) => {
    const v = convert(raw);
    return v === FAIL ? raw : v;
  };
}
