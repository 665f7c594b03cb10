import type { z } from 'zod';

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

/** True when the schema (through wrappers) is a `z.object`. */
export function isObjectSchema(schema: z.ZodType): boolean {
  return defOf(unwrap(schema)).type === 'object';
}

/** True when the schema (through wrappers) is a `z.array`. */
export function isArraySchema(schema: z.ZodType): boolean {
  return defOf(unwrap(schema)).type === 'array';
}

/** True when the schema's values are JSON arrays: a `z.array` or a `z.tuple` (through wrappers). */
export function isArrayLikeSchema(schema: z.ZodType): boolean {
  const type = defOf(unwrap(schema)).type;
  return type === 'array' || type === 'tuple';
}

/** True when a missing value is acceptable (optional, default, prefault, catch). */
export function isOptional(schema: z.ZodType): boolean {
  return (schema as unknown as { _zod: { optin?: string } })._zod.optin !== undefined;
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

/** The strict converter for one scalar target (arrays are handled by the caller per element). */
export function converterFor(schema: z.ZodType): Converter {
  const target = unwrap(schema);
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
      const byString = new Map<string, unknown>();
      let allStrings = true;
      for (const v of values) {
        if (typeof v !== 'string') allStrings = false;
        byString.set(String(v), v);
      }
      if (allStrings) return identity;
      return (raw) => (byString.has(raw) ? byString.get(raw) : FAIL);
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
export function expectation(schema: z.ZodType, depth = 0): string | undefined {
  // A recursive schema (z.json(), z.lazy) builds new schemas as it is walked: stop after a few levels.
  if (depth > 4) return undefined;
  const target = unwrap(schema);
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
