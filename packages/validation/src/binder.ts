import { z } from 'zod';
import { compiledParser } from './compiled.js';
import { expectation } from './convert.js';
import {
  describeType,
  type Expectations,
  FROM_STRINGS,
  type IssueTarget,
  mapIssues,
  PARSE,
  readable,
  toPathItem,
  type ValidationIssue,
} from './issues.js';
import { analyze, type BinderPlan, PLAIN_STRING } from './plan.js';
import { objectFactory, type RawInput, readerFor } from './readers.js';

// One route's binding compiled to a function: reads the raw parts, converts, validates with one parse.

export type BindResult = { ok: true; value: Record<string, unknown> } | { ok: false; issues: ValidationIssue[] };

export interface Binder {
  (raw: RawInput): BindResult;
  /** The route reads the JSON body. */
  readonly usesBody: boolean;
  /** The route reads cookies. */
  readonly usesCookies: boolean;
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
