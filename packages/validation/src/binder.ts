import { z } from 'zod';
import { boundedStandardIssues, boundedZodIssues, MAX_ISSUES } from './bounded.js';
import { compiledParser } from './compiled.js';
import { generateFunction } from './generate.js';
import { expectation } from './convert.js';
import {
  describeType,
  type Expectations,
  FROM_STRINGS,
  type IssueTarget,
  mapIssues,
  PARSE,
  readable,
  readableStandard,
  toPathItem,
  type ValidationIssue,
} from './issues.js';
import { analyze, type BinderPlan, type Convert, type Entry, PLAIN_STRING } from './plan.js';
import { pickQuery } from './query-values.js';
import { objectFactory, type RawInput, type Reader, readerFor } from './readers.js';
import { isZodSchema, validateSync } from './standard.js';

// One route's binding compiled to a function: reads the raw parts, converts, validates with one parse.

/**
 * A failed bind lists at most `MAX_ISSUES` issues; `truncated` says more were found and validation
 * stopped there.
 */
export type BindResult = { ok: true; value: Record<string, unknown> } | { ok: false; issues: ValidationIssue[]; truncated?: boolean };

/** The failure of a bind with `issues`, capped at `MAX_ISSUES` (`truncated` past them). */
function failed(issues: ValidationIssue[], truncated = false): BindResult {
  if (issues.length > MAX_ISSUES) return { ok: false, issues: issues.slice(0, MAX_ISSUES), truncated: true };
  return truncated ? { ok: false, issues, truncated } : { ok: false, issues };
}

export interface Binder {
  (raw: RawInput): BindResult;
  /** The route reads the JSON body. */
  readonly usesBody: boolean;
  /** The route reads cookies. */
  readonly usesCookies: boolean;
}

type Bind = (raw: RawInput) => BindResult;

function makeBinder(fn: Bind, usesBody: boolean, usesCookies: boolean): Binder {
  const binder = fn as Bind & { usesBody: boolean; usesCookies: boolean };
  binder.usesBody = usesBody;
  binder.usesCookies = usesCookies;
  return binder;
}

/**
 * A binder whose schema and generated code are made on its first call: compiling an app then costs
 * little per route, and a process that serves a few of many routes (a serverless cold start) builds
 * only theirs. What the route reads is known at once.
 */
function deferredBinder(build: () => Bind, usesBody: boolean, usesCookies: boolean): Binder {
  let bind: Bind | undefined;
  return makeBinder((raw) => (bind ??= build())(raw), usesBody, usesCookies);
}

/**
 * Compiles the binding of one route: the parameters are analysed here (once per route, shared with the
 * registration check); a zod route's schema and generated code are made on its first bind. The returned
 * function reads the raw request parts, converts strings strictly and validates everything with one zod parse.
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

  // Any schema other than zod's (valibot, arktype, …): each parameter validated by its own schema.
  if (!entries.every((e) => isZodSchema(e.schema))) return perParameterBinder(entries);

  // Only a whole-body model: parse it directly, without an enclosing object to build and walk.
  if (entries.length === 1 && entries[0].kind === 'wholeBody') {
    const { name, schema } = entries[0];
    return deferredBinder(() => wholeBodyBind(name, schema as z.ZodType), true, false);
  }

  const usesCookies = entries.some((e) => e.in === 'cookie');
  return deferredBinder(
    () => zodBind(entries, usesCookies),
    entries.some((e) => e.in === 'body'),
    usesCookies,
  );
}

function wholeBodyBind(name: string, schema: z.ZodType): Bind {
  const model = compiledParser(schema);
  const newInput = objectFactory([name]);
  const located = (issues: readonly z.core.$ZodIssue[]): ValidationIssue[] =>
    issues.map((issue) => ({ in: 'body', path: issue.path.map(toPathItem), ...readable(issue, 'body', undefined) }));
  return (raw) => {
    const bounded = boundedZodIssues(schema, raw.body);
    if (bounded !== undefined) return failed(located(bounded), true);
    const result = model.safeParse(raw.body, PARSE);
    if (!result.success) return failed(located(result.error.issues as z.core.$ZodIssue[]));
    const value = newInput();
    value[name] = result.data;
    return { ok: true, value };
  };
}

/** Every parameter read into one object and validated by one zod parse. */
function zodBind(entries: readonly Entry[], usesCookies: boolean): Bind {
  const keys = entries.map((e) => e.name);
  const readers = entries.map(readerFor);
  const isBodyField = entries.map((e) => e.kind === 'bodyField');
  const shape: Record<string, Entry['schema']> = {};
  const targets = new Map<string, IssueTarget>();
  for (const e of entries) {
    shape[e.name] = e.schema;
    const dropHead = e.kind === 'queryModel' || e.kind === 'wholeBody';
    targets.set(e.name, { in: e.in, head: dropHead ? null : e.wire });
  }
  const whole = z.object(shape as Record<string, z.ZodType>);
  const schema = compiledParser(whole);
  const expectations = expectationsOf(entries);

  const hasBodyFields = isBodyField.some(Boolean);
  const n = entries.length;
  const newInput = objectFactory(keys);

  // Used only when a by-name body is not an object: validates the other parameters alone.
  let withoutBodyFields: z.ZodObject | undefined;
  const validateWithoutBodyFields = (raw: RawInput, cookies: Record<string, string | undefined> | undefined): ValidationIssue[] => {
    if (withoutBodyFields === undefined) {
      const s: Record<string, z.ZodType> = {};
      for (const e of entries) if (e.kind !== 'bodyField') s[e.name] = e.schema as z.ZodType;
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
    if (!result.success) mapIssues(result.error.issues as z.core.$ZodIssue[], targets, out, expectations);
    return out;
  };

  const readAll =
    inputReader(entries, keys, readers) ??
    ((raw, cookies, bodyObject) => {
      const input = newInput();
      for (let i = 0; i < n; i++) {
        const v = readers[i](raw, cookies, bodyObject);
        if (v !== undefined) input[keys[i]] = v;
      }
      return input;
    });

  return (raw) => {
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
          return failed([bodyIssue, ...validateWithoutBodyFields(raw, cookies)]);
        }
        bodyObject = b as Record<string, unknown>;
      }
    }
    const input = readAll(raw, cookies, bodyObject);
    const bounded = raw.body === undefined ? undefined : boundedZodIssues(whole, input);
    const issues: ValidationIssue[] = [];
    if (bounded !== undefined) {
      mapIssues(bounded, targets, issues, expectations);
      return failed(issues, true);
    }
    const result = schema.safeParse(input, PARSE);
    if (result.success) return { ok: true, value: result.data as Record<string, unknown> };
    mapIssues(result.error.issues as z.core.$ZodIssue[], targets, issues, expectations);
    return failed(issues);
  };
}

type InputReader = (
  raw: RawInput,
  cookies: Record<string, string | undefined> | undefined,
  body: Record<string, unknown> | undefined,
) => Record<string, unknown>;

/**
 * Reads every parameter into the object the route's schema parses, generated for the route: each key
 * is stored by name, so V8 sees one shape at each store and each reader at each call (a loop shared by
 * every route, storing `input[keys[i]]`, goes megamorphic: about 200 instructions a key). Path and
 * query scalars are read in place: a path value from the route's parameters, the query's keys picked
 * from the query string itself (`pickQuery`) where the request offers it, so a request's query is
 * never parsed into an object of every key. Undefined where code is not generated —
 * `z.config({ jitless: true })`, a runtime that forbids it (Workers), or a name that an ordinary
 * object inherits (`constructor`; such inputs have no prototype) — and the loop is used instead.
 */
function inputReader(entries: readonly Entry[], keys: readonly string[], readers: readonly Reader[]): InputReader | undefined {
  if (keys.some((k) => k in Object.prototype)) return undefined;
  const converts: Convert[] = [];
  const queryNames: string[] = [];
  // The query is picked from its string only when every query parameter is a scalar (a model reads
  // keys it does not name: a strict one refuses the others).
  const picksQuery = entries.some((e) => e.in === 'query') && entries.every((e) => e.in !== 'query' || e.kind === 'scalar');
  const reads = entries.map((e, i) => {
    const store = `if (v !== undefined) input[${JSON.stringify(keys[i])}] = v;`;
    if (e.kind === 'scalar' && e.in === 'path') {
      converts.push(e.convert);
      return `v = path[${JSON.stringify(e.wire)}];\nif (v !== undefined) v = converts[${converts.length - 1}](v);\n${store}`;
    }
    if (e.kind === 'scalar' && e.in === 'query' && picksQuery) {
      converts.push(e.convert);
      const convert = `converts[${converts.length - 1}]`;
      const q = `q${queryNames.length}`;
      queryNames.push(e.wire);
      return e.array
        ? `v = ${q} === undefined ? undefined : (typeof ${q} === 'string' ? [${q}] : ${q}).map(${convert});\n${store}`
        : `v = typeof ${q} === 'object' ? ${q}[${q}.length - 1] : ${q};\nif (v !== undefined) v = ${convert}(v);\n${store}`;
    }
    return `v = readers[${i}](raw, cookies, body);\n${store}`;
  });
  const usesPath = entries.some((e) => e.kind === 'scalar' && e.in === 'path');
  const qs = queryNames.map((_, n) => `q${n}`);
  const pick =
    queryNames.length === 0
      ? ''
      : `let ${qs.join(', ')};
const qs = raw.queryString === undefined ? undefined : raw.queryString();
if (qs === undefined || (qs !== '' && !pickQuery(qs, names, slots))) {
  const query = raw.query;
  ${queryNames.map((name, n) => `q${n} = query[${JSON.stringify(name)}];`).join('\n  ')}
} else if (qs !== '') {
  ${queryNames.map((_, n) => `q${n} = slots[${n}];`).join('\n  ')}
}`;
  return generateFunction<InputReader>(
    ['readers', 'converts', 'pickQuery', 'names', 'slots'],
    [readers, converts, pickQuery, queryNames, queryNames.map(() => undefined)],
    `return (raw, cookies, body) => {
const input = {};
let v;
${usesPath ? 'const path = raw.path;' : ''}
${pick}
${reads.join('\n')}
return input;
};`,
  );
}

/** What each string-borne parameter (and query model field) must look like, for conversion messages. */
function expectationsOf(entries: readonly Entry[]): Expectations {
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
  return expectations;
}

type Check = (value: unknown, out: ValidationIssue[]) => { ok: true; value: unknown } | { ok: false; truncated: boolean };

/**
 * A route with schemas other than zod's: each parameter is validated by its own schema (zod ones by
 * their compiled parser, others through `~standard.validate`), and every issue is located as usual.
 */
function perParameterBinder(entries: Entry[]): Binder {
  const n = entries.length;
  const keys = entries.map((e) => e.name);
  const readers = entries.map(readerFor);
  const isBodyField = entries.map((e) => e.kind === 'bodyField');
  const expectations = expectationsOf(entries);
  const targets = new Map<string, IssueTarget>();
  for (const e of entries) targets.set(e.name, { in: e.in, head: e.kind === 'queryModel' || e.kind === 'wholeBody' ? null : e.wire });

  // Each check reports whether it stopped at the cap (`truncated`): the issues then passed it.
  const checks: Check[] = entries.map((e): Check => {
    const head = targets.get(e.name)!.head;
    if (isZodSchema(e.schema)) {
      const parser = compiledParser(e.schema as z.ZodType);
      return (value, out) => {
        const bounded = boundedZodIssues(e.schema as z.ZodType, value);
        const result = bounded === undefined ? parser.safeParse(value, PARSE) : undefined;
        if (result?.success) return { ok: true, value: result.data };
        const found = bounded ?? (result!.success ? [] : (result!.error.issues as z.core.$ZodIssue[]));
        const issues = found.map((issue) => ({ ...issue, path: [e.name, ...issue.path] }));
        mapIssues(issues as z.core.$ZodIssue[], targets, out, expectations);
        return { ok: false, truncated: bounded !== undefined };
      };
    }
    return (value, out) => {
      const bounded = boundedStandardIssues(e.schema, value);
      const result = bounded === undefined ? validateSync(e.schema, value) : undefined;
      if (result?.ok) return result;
      for (const issue of bounded ?? (result!.ok ? [] : result!.issues)) {
        const key = head === null ? `${e.name}.${String(issue.path[0])}` : e.name;
        out.push({
          in: e.in,
          path: head === null ? issue.path : [head, ...issue.path],
          ...readableStandard(issue, e.in, expectations.get(key)),
        });
      }
      return { ok: false, truncated: bounded !== undefined };
    };
  });

  const usesBody = entries.some((e) => e.in === 'body');
  const usesCookies = entries.some((e) => e.in === 'cookie');
  const hasBodyFields = isBodyField.some(Boolean);
  const newInput = objectFactory(keys);

  return makeBinder(
    (raw) => {
      const cookies = usesCookies ? raw.cookies() : undefined;
      const issues: ValidationIssue[] = [];
      let bodyObject: Record<string, unknown> | undefined;
      let skipBodyFields = false;
      if (hasBodyFields && raw.body !== undefined) {
        const b = raw.body;
        if (typeof b !== 'object' || b === null || Array.isArray(b)) {
          issues.push({
            in: 'body',
            path: [],
            message: `Invalid input: expected object, received ${describeType(b)}`,
            code: 'invalid_type',
          });
          skipBodyFields = true;
        } else bodyObject = b as Record<string, unknown>;
      }
      const value = newInput();
      for (let i = 0; i < n; i++) {
        if (skipBodyFields && isBodyField[i]) continue;
        const result = checks[i](readers[i](raw, cookies, bodyObject), issues);
        if (result.ok) {
          if (result.value !== undefined) value[keys[i]] = result.value;
        } else if (result.truncated || issues.length > MAX_ISSUES) return failed(issues, true);
      }
      return issues.length > 0 ? failed(issues) : { ok: true, value };
    },
    usesBody,
    usesCookies,
  );
}
