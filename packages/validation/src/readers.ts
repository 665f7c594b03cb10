import type { Entry } from './plan.js';
import { allOf, lastOf } from './query-values.js';

/** What the binder reads from a request. */
export interface RawInput {
  /** Path parameters, already percent-decoded. */
  path: Record<string, string>;
  /** Query values by name: a string, or an array when the key repeats (see `queryValues`). */
  query: Readonly<Record<string, string | string[] | undefined>>;
  /**
   * The query string as sent (percent-encoded, without `?`), where `query` is parsed from it: a route
   * whose query parameters are all scalars then picks its keys from the string, and reads `query`
   * only for a string with percent-escapes.
   */
  queryString?: () => string;
  /** Header lookup; `name` is lower-case. */
  headers: { get(name: string): string | null | undefined };
  /** Parsed cookies; called only when the route has a cookie parameter. */
  cookies: () => Record<string, string | undefined>;
  /** The parsed JSON body, or `undefined` when there is none. */
  body: unknown;
}

// Each parameter's raw value read from the request parts (strings converted, not yet validated).

export type Reader = (
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
export function objectFactory(keys: readonly string[]): () => Record<string, unknown> {
  return keys.some((k) => k in Object.prototype) ? () => Object.create(null) as Record<string, unknown> : () => ({});
}
const COMMA = /\s*,\s*/;

export function readerFor(e: Entry): Reader {
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
      // Where each field's raw value (a string, or every value of a repeated key) comes from.
      const source: (
        raw: RawInput,
        cookies: Record<string, string | undefined> | undefined,
      ) => (wire: string) => string | string[] | undefined =
        e.in === 'query'
          ? (raw) => (wire) => raw.query[wire]
          : e.in === 'cookie'
            ? (_raw, cookies) => (wire) => cookies![wire]
            : (raw) => (wire) => {
                const v = raw.headers.get(wire);
                return v === null ? undefined : v;
              };
      const { strict, others } = e;
      const known = new Set(fields.map((f) => f.wire));
      return (raw, cookies) => {
        const read = source(raw, cookies);
        const out = newObject();
        let present = false;
        for (let i = 0; i < fields.length; i++) {
          const f = fields[i];
          const all = read(f.wire);
          if (all === undefined) continue;
          present = true;
          if (f.array && e.in === 'header') {
            const v = lastOf(all)!.trim();
            out[f.name] = (v === '' ? [] : v.split(COMMA)).map(f.convert);
          } else out[f.name] = f.array ? allOf(all).map(f.convert) : f.convert(lastOf(all)!);
        }
        if (strict) {
          // Keys no parameter reads are handed to the model, which refuses them (unrecognized_keys).
          const keys = e.in === 'query' ? Object.keys(raw.query) : Object.keys(cookies!);
          for (const key of keys) {
            if (known.has(key) || others.has(key)) continue;
            present = true;
            out[key] = e.in === 'query' ? lastOf(raw.query[key]) : cookies![key];
          }
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
