import { z } from 'zod';
import { compiledParser, type SchemaParser } from './compiled.js';
import { PARSE } from './issues.js';
import { isZodSchema, type Schema, type SchemaIssue, type StandardSchemaV1, toSchemaIssues, validateSync } from './standard.js';

// Validation bounded by what was sent: a 422 lists at most MAX_ISSUES issues, and validation stops
// once more are known to exist. Neither zod nor valibot can stop by itself (zod takes seconds to report
// half a million failing array items), so a large input is first walked here: containers (objects,
// arrays, records, tuples and the wrappers around them) are entered element by element and only their
// leaves are parsed by the library, until the issues pass the cap. A walk that ends below the cap
// proves the input nearly valid; the library's own parse then runs and its issues are the answer.

/** The most `errors[]` items a 422 lists; past them it says `truncated: true`. */
export const MAX_ISSUES = 100;

/** Inputs with fewer containers' items than this are parsed whole: their issues are few by nature. */
const SMALL_INPUT = 1000;

/** True when `value` holds at least `budget` array items and object entries, counted with an early exit. */
export function isLargeInput(value: unknown, budget = SMALL_INPUT): boolean {
  let left = budget;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v)) {
      left -= v.length;
      if (left <= 0) return true;
      for (let i = 0; i < v.length; i++) if (typeof v[i] === 'object' && v[i] !== null) stack.push(v[i]);
    } else {
      for (const key in v) {
        if (--left <= 0) return true;
        const item = (v as Record<string, unknown>)[key];
        if (typeof item === 'object' && item !== null) stack.push(item);
      }
    }
  }
  return false;
}

/** Issues found by a walk, collected up to one past the cap (which proves the cap was passed). */
interface Sink<I> {
  readonly issues: I[];
}

function full(sink: Sink<unknown>): boolean {
  return sink.issues.length > MAX_ISSUES;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------------------------------------
// zod

type ZodDef = {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  valueType?: z.ZodType;
  items?: z.ZodType[];
  rest?: z.ZodType | null;
  innerType?: z.ZodType;
  in?: z.ZodType;
  getter?: () => z.ZodType;
};

function zodDef(schema: z.ZodType): ZodDef {
  return (schema as unknown as { _zod: { def: ZodDef } })._zod.def;
}

function zodLeaf(schema: z.ZodType, value: unknown, path: PropertyKey[], sink: Sink<z.core.$ZodIssue>): void {
  const result = schema.safeParse(value, PARSE);
  if (result.success) return;
  for (const issue of result.error.issues) {
    sink.issues.push(path.length === 0 ? issue : ({ ...issue, path: [...path, ...issue.path] } as z.core.$ZodIssue));
    if (full(sink)) return;
  }
}

function walkZod(schema: z.ZodType, value: unknown, path: PropertyKey[], sink: Sink<z.core.$ZodIssue>, depth: number): void {
  const def = zodDef(schema);
  if (depth > 64) {
    zodLeaf(schema, value, path, sink);
    return;
  }
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
      if (value === undefined || value === null) {
        zodLeaf(schema, value, path, sink);
        return;
      }
      walkZod(def.innerType!, value, path, sink, depth + 1);
      return;
    case 'pipe': {
      walkZod(def.in!, value, path, sink, depth + 1);
      return;
    }
    case 'lazy': {
      walkZod(def.getter!(), value, path, sink, depth + 1);
      return;
    }
    case 'object': {
      if (!isPlainObject(value)) {
        zodLeaf(schema, value, path, sink);
        return;
      }
      const shape = def.shape!;
      for (const key in shape) {
        path.push(key);
        walkZod(shape[key], value[key], path, sink, depth + 1);
        path.pop();
        if (full(sink)) return;
      }
      return;
    }
    case 'array': {
      if (!Array.isArray(value)) {
        zodLeaf(schema, value, path, sink);
        return;
      }
      walkZodItems(def.element!, value, path, sink, depth);
      return;
    }
    case 'record': {
      if (!isPlainObject(value)) {
        zodLeaf(schema, value, path, sink);
        return;
      }
      const valueType = def.valueType!;
      for (const key in value) {
        path.push(key);
        walkZod(valueType, value[key], path, sink, depth + 1);
        path.pop();
        if (full(sink)) return;
      }
      return;
    }
    case 'tuple': {
      if (!Array.isArray(value)) {
        zodLeaf(schema, value, path, sink);
        return;
      }
      const items = def.items!;
      for (let i = 0; i < value.length; i++) {
        const item = i < items.length ? items[i] : def.rest;
        if (item == null) break;
        path.push(i);
        walkZod(item, value[i], path, sink, depth + 1);
        path.pop();
        if (full(sink)) return;
      }
      return;
    }
    default: {
      zodLeaf(schema, value, path, sink);
      return;
    }
  }
}

/** Items that make up less than this many values are parsed together, by one parse of an array. */
const CHUNK = 256;

/** Counts the values in `value` (itself included), stopping at `budget`. */
function sizeOf(value: unknown, budget: number): number {
  if (typeof value !== 'object' || value === null) return 1;
  let size = 1;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length && size < budget; i++) size += sizeOf(value[i], budget - size);
  } else {
    for (const key in value) {
      size += sizeOf((value as Record<string, unknown>)[key], budget - size);
      if (size >= budget) break;
    }
  }
  return size;
}

const arrayParsers = new WeakMap<z.ZodType, SchemaParser<unknown>>();

function arrayParserOf(element: z.ZodType): SchemaParser<unknown> {
  let parser = arrayParsers.get(element);
  if (parser === undefined) {
    parser = compiledParser(z.array(element));
    arrayParsers.set(element, parser);
  }
  return parser;
}

/**
 * An array's items: runs of small items are validated together (`slice` validates a slice of the array
 * and returns its issues, paths from the slice's index), a large item is walked on its own (`walkItem`);
 * each slice holds fewer than CHUNK values, so no validation can report many more issues than the cap.
 */
function walkItems<I extends { path: PropertyKey[] }>(
  items: unknown[],
  path: PropertyKey[],
  sink: Sink<I>,
  slice: (part: unknown[], start: number) => readonly I[] | undefined,
  walkItem: (index: number) => void,
): void {
  let start = 0;
  let size = 0;
  const flush = (end: number): void => {
    if (end > start) {
      const issues = slice(start === 0 && end === items.length ? items : items.slice(start, end), start);
      for (const issue of issues ?? []) {
        const [index, ...rest] = issue.path;
        sink.issues.push({ ...issue, path: [...path, (index as number) + start, ...rest] });
        if (full(sink)) return;
      }
    }
    start = end;
    size = 0;
  };
  for (let i = 0; i < items.length; i++) {
    const itemSize = sizeOf(items[i], CHUNK);
    if (itemSize >= CHUNK) {
      flush(i);
      if (full(sink)) return;
      path.push(i);
      walkItem(i);
      path.pop();
      if (full(sink)) return;
      start = i + 1;
      continue;
    }
    if (size + itemSize >= CHUNK) {
      flush(i);
      if (full(sink)) return;
    }
    size += itemSize;
  }
  flush(items.length);
}

function walkZodItems(element: z.ZodType, items: unknown[], path: PropertyKey[], sink: Sink<z.core.$ZodIssue>, depth: number): void {
  const parser = arrayParserOf(element);
  walkItems(
    items,
    path,
    sink,
    (part) => {
      const result = parser.safeParse(part, PARSE);
      return result.success ? undefined : (result.error.issues as z.core.$ZodIssue[]);
    },
    (i) => walkZod(element, items[i], path, sink, depth + 1),
  );
}

/**
 * The first issues of a zod schema's parse of a large input, walked element by element: `truncated`
 * when more than MAX_ISSUES exist (the list then holds the first MAX_ISSUES); undefined when the walk
 * found at most MAX_ISSUES, so the library's own parse is affordable and gives the exact answer.
 */
export function boundedZodIssues(schema: z.ZodType, value: unknown): z.core.$ZodIssue[] | undefined {
  if (!isLargeInput(value)) return undefined;
  const sink: Sink<z.core.$ZodIssue> = { issues: [] };
  walkZod(schema, value, [], sink, 0);
  return full(sink) ? sink.issues.slice(0, MAX_ISSUES) : undefined;
}

// ---------------------------------------------------------------------------------------------
// valibot (and any Standard Schema through its leaves)

type ValibotSchema = Schema & {
  kind?: string;
  type?: string;
  entries?: Record<string, ValibotSchema>;
  item?: ValibotSchema;
  items?: ValibotSchema[];
  rest?: ValibotSchema;
  value?: ValibotSchema;
  wrapped?: ValibotSchema;
  getter?: (input: unknown) => ValibotSchema;
};

function standardLeaf(schema: Schema, value: unknown, path: (string | number)[], sink: Sink<SchemaIssue>): void {
  const result = validateSync(schema, value);
  if (result.ok) return;
  for (const issue of result.issues) {
    sink.issues.push(path.length === 0 ? issue : { ...issue, path: [...path, ...issue.path] });
    if (full(sink)) return;
  }
}

function walkValibot(schema: ValibotSchema, value: unknown, path: (string | number)[], sink: Sink<SchemaIssue>, depth: number): void {
  if (schema.kind !== 'schema' || depth > 64) {
    standardLeaf(schema, value, path, sink);
    return;
  }
  switch (schema.type) {
    case 'optional':
    case 'exact_optional':
    case 'undefinedable':
    case 'nullable':
    case 'nullish':
    case 'non_optional':
    case 'non_nullable':
    case 'non_nullish':
      if (value === undefined || value === null || schema.wrapped === undefined) {
        standardLeaf(schema, value, path, sink);
        return;
      }
      walkValibot(schema.wrapped, value, path, sink, depth + 1);
      return;
    case 'lazy': {
      walkValibot(schema.getter!(value), value, path, sink, depth + 1);
      return;
    }
    case 'object':
    case 'loose_object':
    case 'strict_object':
    case 'object_with_rest': {
      if (!isPlainObject(value) || schema.entries === undefined) {
        standardLeaf(schema, value, path, sink);
        return;
      }
      for (const key in schema.entries) {
        path.push(key);
        walkValibot(schema.entries[key], value[key], path, sink, depth + 1);
        path.pop();
        if (full(sink)) return;
      }
      return;
    }
    case 'array': {
      if (!Array.isArray(value) || schema.item === undefined) {
        standardLeaf(schema, value, path, sink);
        return;
      }
      for (let i = 0; i < value.length; i++) {
        path.push(i);
        walkValibot(schema.item, value[i], path, sink, depth + 1);
        path.pop();
        if (full(sink)) return;
      }
      return;
    }
    case 'record': {
      if (!isPlainObject(value) || schema.value === undefined) {
        standardLeaf(schema, value, path, sink);
        return;
      }
      for (const key in value) {
        path.push(key);
        walkValibot(schema.value, value[key], path, sink, depth + 1);
        path.pop();
        if (full(sink)) return;
      }
      return;
    }
    case 'tuple':
    case 'loose_tuple':
    case 'strict_tuple':
    case 'tuple_with_rest': {
      if (!Array.isArray(value) || schema.items === undefined) {
        standardLeaf(schema, value, path, sink);
        return;
      }
      for (let i = 0; i < value.length; i++) {
        const item = i < schema.items.length ? schema.items[i] : schema.rest;
        if (item === undefined) break;
        path.push(i);
        walkValibot(item, value[i], path, sink, depth + 1);
        path.pop();
        if (full(sink)) return;
      }
      return;
    }
    default: {
      standardLeaf(schema, value, path, sink);
      return;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// arktype: a Type is its own node; an object's `structure` lists its `props`, an array's `sequence`
// its item type (`variadic`). Only these are entered; anything else is validated whole.

type ArkNode = Schema & {
  kind?: string;
  structure?: {
    props?: readonly { key: PropertyKey; value: ArkNode }[];
    index?: readonly unknown[];
    sequence?: { variadic?: ArkNode; prefix?: readonly unknown[]; optionals?: readonly unknown[]; postfix?: readonly unknown[] };
  };
  array?: () => ArkNode;
};

const arkArrays = new WeakMap<ArkNode, ArkNode>();

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** A path as arktype writes it in a message: `tags[3]`, `rows[0].a`, `["a b"]`. */
function arkPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && IDENTIFIER.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

/**
 * An arktype node's issues for a part of the input found at `at` (a slice of an array starting at
 * `offset`): paths relative to the part, messages as the whole validation would write them (arktype's
 * message starts with the path in the whole input).
 */
function arkIssues(node: ArkNode, value: unknown, at: readonly PropertyKey[], offset = 0): SchemaIssue[] | undefined {
  const result = node['~standard'].validate(value) as StandardSchemaV1.Result<unknown>;
  if (result instanceof Promise || !result.issues) return undefined;
  const found = toSchemaIssues(result.issues, value);
  return found.map((issue, n) => {
    const [head, ...rest] = issue.path;
    const whole = head === undefined ? at : [...at, typeof head === 'number' ? head + offset : head, ...rest];
    // arktype says `value at [0]` for a path that starts at an index.
    const where = typeof whole[0] === 'number' ? `value at ${arkPath(whole)}` : arkPath(whole);
    const problem = (result.issues[n] as { problem?: unknown }).problem;
    return where !== '' && typeof problem === 'string' ? { ...issue, message: `${where} ${problem}` } : issue;
  });
}

function walkArk(node: ArkNode, value: unknown, path: (string | number)[], sink: Sink<SchemaIssue>, depth: number): void {
  const structure = node.kind === 'intersection' && depth <= 64 ? node.structure : undefined;
  const sequence = structure?.sequence;
  const variadic = sequence?.variadic;
  if (
    Array.isArray(value) &&
    variadic !== undefined &&
    typeof variadic.array === 'function' &&
    !sequence!.prefix?.length &&
    !sequence!.optionals?.length &&
    !sequence!.postfix?.length
  ) {
    let array = arkArrays.get(variadic);
    if (array === undefined) arkArrays.set(variadic, (array = variadic.array()));
    const items = value;
    walkItems(
      items,
      path,
      sink,
      (part, start) => arkIssues(array!, part, path, start),
      (i) => walkArk(variadic, items[i], path, sink, depth + 1),
    );
    return;
  }
  if (isPlainObject(value) && sequence === undefined && structure?.props !== undefined && !structure.index?.length) {
    for (const prop of structure.props) {
      const key = prop.key;
      // A missing key is left to the whole validation, which runs unless the cap is passed.
      if (typeof key !== 'string' || value[key] === undefined) continue;
      path.push(key);
      walkArk(prop.value, value[key], path, sink, depth + 1);
      path.pop();
      if (full(sink)) return;
    }
    return;
  }
  for (const issue of arkIssues(node, value, path) ?? []) {
    sink.issues.push({ ...issue, path: [...path, ...issue.path] });
    if (full(sink)) return;
  }
}

/**
 * The first issues of a Standard Schema's validation of a large input, like `boundedZodIssues`: zod,
 * valibot and arktype schemas are walked; another library's schema is validated whole (undefined: no bound).
 */
export function boundedStandardIssues(schema: Schema, value: unknown): SchemaIssue[] | undefined {
  if (isZodSchema(schema)) return undefined;
  const vendor = schema['~standard'].vendor;
  if ((vendor !== 'valibot' && vendor !== 'arktype') || !isLargeInput(value)) return undefined;
  const sink: Sink<SchemaIssue> = { issues: [] };
  if (vendor === 'valibot') walkValibot(schema as ValibotSchema, value, [], sink, 0);
  else walkArk(schema as ArkNode, value, [], sink, 0);
  return full(sink) ? sink.issues.slice(0, MAX_ISSUES) : undefined;
}
