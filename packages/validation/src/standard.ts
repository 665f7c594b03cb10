import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import { nodeBuiltin } from './builtins.js';

// Any validator that implements Standard Schema v1 (`~standard`): valibot, arktype, zod and others.
// zod schemas keep their own compiled path everywhere; this module serves the others.

export type { StandardSchemaV1, StandardJSONSchemaV1 };

/** A schema fnapi takes: any Standard Schema v1 (zod 4 schemas are ones too). */
export type Schema = StandardSchemaV1;

/** What a schema's parse produces: `StandardSchemaV1.InferOutput`. */
export type InferSchemaOutput<S> = S extends StandardSchemaV1<unknown, infer O> ? O : unknown;

/** What a schema accepts: `StandardSchemaV1.InferInput`. */
export type InferSchemaInput<S> = S extends StandardSchemaV1<infer I, unknown> ? I : unknown;

/** A JSON Schema (draft 2020-12) object. */
export type JsonSchema = Record<string, unknown>;

/** True for a zod 4 schema (zod keeps its own compiled path). */
export function isZodSchema(value: unknown): boolean {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

/** True for any object or function that implements Standard Schema v1 (`~standard.validate`). */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  // A zod 4 schema implements the spec; reading its `~standard` getter builds an object, which
  // registering many routes would pay once per parameter (`in` does not call the getter).
  if (isZodSchema(value) && '~standard' in value) return true;
  const props = (value as { '~standard'?: { version?: unknown; validate?: unknown } })['~standard'];
  return typeof props === 'object' && props !== null && props.version === 1 && typeof props.validate === 'function';
}

/** One issue of a failed validation, as fnapi reports it: `code` is the library's where it names one, else `invalid`. */
export interface SchemaIssue {
  path: (string | number)[];
  message: string;
  code: string;
  /** The value at the issue's path, when it could be found (undefined for a missing value). */
  input?: unknown;
}

export type ValidateResult<T = unknown> = { ok: true; value: T } | { ok: false; issues: SchemaIssue[] };

function keyOf(segment: PropertyKey | StandardSchemaV1.PathSegment): PropertyKey {
  return typeof segment === 'object' && segment !== null ? segment.key : segment;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const key of path) {
    if ((typeof current !== 'object' && typeof current !== 'function') || current === null) return undefined;
    if (!Object.hasOwn(current, key)) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/** The library's name for an issue: arktype's and zod's `code`, valibot's `type`; else `invalid`. */
function codeOf(issue: StandardSchemaV1.Issue): string {
  const { code, type, kind } = issue as { code?: unknown; type?: unknown; kind?: unknown };
  if (typeof code === 'string' && code !== '') return code;
  if (typeof type === 'string' && type !== '' && typeof kind === 'string') return type;
  return 'invalid';
}

/** A Standard Schema's issues as fnapi reports them, with the input found at each path. */
export function toSchemaIssues(issues: readonly StandardSchemaV1.Issue[], input: unknown): SchemaIssue[] {
  return issues.map((issue) => {
    // Array.from: a library's path may be an array subclass (arktype's) whose `map` builds another.
    const keys = Array.from(issue.path ?? [], keyOf);
    return {
      path: keys.map((k) => (typeof k === 'symbol' ? String(k) : k)),
      message: issue.message,
      code: codeOf(issue),
      input: valueAt(input, keys),
    };
  });
}

function asyncError(schema: StandardSchemaV1): TypeError {
  return new TypeError(
    `A ${schema['~standard'].vendor} schema validated asynchronously; fnapi validates requests, responses and stream items synchronously: use the library's synchronous schemas`,
  );
}

/**
 * Validates synchronously through `~standard.validate`; a schema that answers with a promise (an
 * async schema) is refused with a `TypeError`.
 */
export function validateSync<S extends StandardSchemaV1>(schema: S, value: unknown): ValidateResult<StandardSchemaV1.InferOutput<S>> {
  const result = schema['~standard'].validate(value);
  if (result instanceof Promise) {
    result.catch(() => {});
    throw asyncError(schema);
  }
  if (result.issues) return { ok: false, issues: toSchemaIssues(result.issues, value) };
  return { ok: true, value: result.value as StandardSchemaV1.InferOutput<S> };
}

/**
 * Validates a value with any Standard Schema (zod, valibot, arktype, …): the result is synchronous
 * when the schema is, else a promise. Issues carry `path`, `message` and the library's `code`.
 */
export function validate<S extends StandardSchemaV1>(
  schema: S,
  value: unknown,
): ValidateResult<StandardSchemaV1.InferOutput<S>> | Promise<ValidateResult<StandardSchemaV1.InferOutput<S>>> {
  const result = schema['~standard'].validate(value);
  // No closure on the synchronous path: making one per call cost several times the validation of a small object.
  if (result instanceof Promise) return result.then((settled) => validateResult(settled, value));
  return validateResult(result, value);
}

function validateResult<T>(result: StandardSchemaV1.Result<unknown>, value: unknown): ValidateResult<T> {
  return result.issues ? { ok: false, issues: toSchemaIssues(result.issues, value) } : { ok: true, value: result.value as T };
}

/** True when the schema accepts a missing value (it validates `undefined` without issues). */
export function acceptsUndefined(schema: StandardSchemaV1): boolean {
  try {
    const result = schema['~standard'].validate(undefined);
    if (result instanceof Promise) {
      result.catch(() => {});
      return false;
    }
    return !result.issues;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// JSON Schema of a Standard Schema: `~standard.jsonSchema` (Standard JSON Schema), valibot through
// `@valibot/to-json-schema`, or nothing.

type ValibotConverter = (schema: unknown, config: Record<string, unknown>) => JsonSchema;
let valibotConverter: ValibotConverter | null | undefined;

/** `@valibot/to-json-schema`, an optional peer, loaded the first time a valibot schema is met. */
function loadValibotConverter(): ValibotConverter | null {
  if (valibotConverter !== undefined) return valibotConverter;
  valibotConverter = null;
  const candidates: ((id: string) => unknown)[] = [];
  if (typeof require === 'function') candidates.push(require);
  const moduleApi = nodeBuiltin('node:module');
  if (moduleApi !== undefined) {
    candidates.push(moduleApi.createRequire(import.meta.url));
    const cwd = (globalThis as { process?: { cwd?: () => string } }).process?.cwd?.();
    if (cwd) candidates.push(moduleApi.createRequire(`${cwd}/`));
  }
  for (const load of candidates) {
    try {
      const mod = load('@valibot/to-json-schema') as { toJsonSchema?: ValibotConverter };
      if (typeof mod.toJsonSchema === 'function') {
        valibotConverter = mod.toJsonSchema;
        break;
      }
    } catch {
      // not installed where this loader looks
    }
  }
  return valibotConverter;
}

/**
 * Supplies valibot's converter where fnapi cannot load `@valibot/to-json-schema` itself (a bundle
 * without `require`): `useValibotJsonSchema(toJsonSchema)`.
 */
export function useValibotJsonSchema(converter: ValibotConverter): void {
  valibotConverter = converter;
}

export type SchemaIO = 'input' | 'output';

const jsonCache: Record<SchemaIO, WeakMap<object, JsonSchema | null>> = { input: new WeakMap(), output: new WeakMap() };

/** JSON Schemas attached to schemas fnapi made from parts of another's JSON Schema (query model fields). */
const partJson = new WeakMap<object, { json: JsonSchema; optional: boolean }>();

function tidyJson(json: unknown): JsonSchema | null {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return null;
  const copy = { ...(json as JsonSchema) };
  delete copy.$schema;
  return copy;
}

function computeJsonSchema(schema: StandardSchemaV1, io: SchemaIO): JsonSchema | null {
  const part = partJson.get(schema);
  if (part !== undefined) return part.json;
  const props = schema['~standard'] as StandardSchemaV1.Props & Partial<StandardJSONSchemaV1.Props>;
  if (props.jsonSchema !== undefined && typeof props.jsonSchema[io] === 'function') {
    try {
      return tidyJson(props.jsonSchema[io]({ target: 'draft-2020-12' }));
    } catch {
      return null;
    }
  }
  if (props.vendor === 'valibot') {
    const convert = loadValibotConverter();
    if (convert === null) return null;
    try {
      return tidyJson(convert(schema, { target: 'draft-2020-12', typeMode: io, errorMode: 'ignore' }));
    } catch {
      return null;
    }
  }
  return null;
}

/**
 * The JSON Schema (draft 2020-12, without `$schema`) of a non-zod Standard Schema, from its Standard
 * JSON Schema interface (valibot: `@valibot/to-json-schema`); undefined when it offers none.
 */
export function standardJsonSchema(schema: StandardSchemaV1, io: SchemaIO = 'input'): JsonSchema | undefined {
  const cache = jsonCache[io];
  let json = cache.get(schema);
  if (json === undefined) {
    json = computeJsonSchema(schema, io);
    cache.set(schema, json);
  }
  return json ?? undefined;
}

/**
 * A stand-in schema for one part of another schema's JSON Schema (a field of a query model): it
 * carries the part's JSON Schema for conversion and documentation; the whole model validates.
 */
export function jsonPart(json: JsonSchema, optional: boolean): StandardSchemaV1 {
  const schema: StandardSchemaV1 = {
    '~standard': { version: 1, vendor: 'fnapi', validate: (value) => ({ value }) },
  };
  partJson.set(schema, { json, optional });
  return schema;
}

/** The optionality of a `jsonPart`, or undefined for any other schema. */
export function partOptional(schema: StandardSchemaV1): boolean | undefined {
  return partJson.get(schema)?.optional;
}
