import type * as ZodToOpenAPI from '@asteasolutions/zod-to-openapi';
import type { z } from '@fnapi/validation';

// A named model (`.meta({ id })`) used through a wrapper (`.nullable()`, `.optional()`, `.default(…)`).
// zod-to-openapi reads a wrapper as carrying its model's id, so the first use it meets becomes the
// component (a nullable use makes the component nullable for every use) and later wrapped uses lose
// what their wrapper says. Here the component is always the model itself, and each use says the rest
// beside its `$ref`: `anyOf: [{ $ref }, { type: 'null' }]` for null, `default` and the wrapper's metadata.

type Generator = typeof ZodToOpenAPI;
type Def = { type: string; innerType?: z.ZodType; in?: z.ZodType; out?: z.ZodType; defaultValue?: unknown };
type Metadata = Record<string, unknown> & { id?: unknown; _internal?: { refId?: string } };

/** The wrappers zod-to-openapi looks through for a model's id. */
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'nonoptional']);

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The schema a wrapper stands for, as zod-to-openapi unwraps it (a pipe: its input, or a preprocess's output). */
function unwrap(schema: z.ZodType): { inner: z.ZodType; key: 'innerType' | 'in' | 'out' } | undefined {
  const def = defOf(schema);
  if (WRAPPERS.has(def.type) && def.innerType) return { inner: def.innerType, key: 'innerType' };
  if (def.type === 'pipe' && def.in && def.out) {
    return defOf(def.in).type === 'transform' ? { inner: def.out, key: 'out' } : { inner: def.in, key: 'in' };
  }
  return undefined;
}

/** The metadata given to this very schema (not through a wrapper), from zod's registry and zod-to-openapi's. */
function ownMetadata(lib: Generator, schema: z.ZodType): Metadata {
  // zod-to-openapi itself reads `.meta()`; a schema without it (zod mini) carries no name of its own there.
  const own = typeof schema.meta === 'function' ? (schema.meta() as Metadata | undefined) : undefined;
  return {
    ...(own ?? {}),
    ...((lib.zodToOpenAPIRegistry.get(schema as never) as Metadata | undefined) ?? {}),
  };
}

function ownId(lib: Generator, schema: z.ZodType): string | undefined {
  const metadata = ownMetadata(lib, schema);
  const id = metadata._internal?.refId ?? metadata.id;
  return typeof id === 'string' ? id : undefined;
}

/** A named model reached through wrappers: the model, and the wrappers from the outside in. */
export interface WrappedModel {
  model: z.ZodType;
  wrappers: z.ZodType[];
}

/** The named model a schema is (no wrappers) or wraps; undefined for any other schema. */
export function namedModel(lib: Generator, schema: z.ZodType): WrappedModel | undefined {
  const wrappers: z.ZodType[] = [];
  let current = schema;
  for (let guard = 0; guard < 64; guard++) {
    if (ownId(lib, current) !== undefined) return { model: current, wrappers };
    const next = unwrap(current);
    if (next === undefined) return undefined;
    wrappers.push(current);
    current = next.inner;
  }
  return undefined;
}

/** The same wrappers around another model (the input copy of an output model). */
export function rewrap(found: WrappedModel, model: z.ZodType): z.ZodType {
  let rebuilt = model;
  for (const wrapper of [...found.wrappers].reverse()) {
    const key = unwrap(wrapper)?.key ?? 'innerType';
    const clone = wrapper.clone({ ...defOf(wrapper), [key]: rebuilt } as never);
    const metadata = wrapper.meta();
    rebuilt = metadata ? clone.meta(metadata) : clone;
  }
  return rebuilt;
}

/** What a use's wrappers add to the model's `$ref`: null, a default, their own metadata (the outermost wins). */
function additions(lib: Generator, wrappers: readonly z.ZodType[]): { nullable: boolean; keywords: Record<string, unknown> } {
  let nullable = false;
  const keywords: Record<string, unknown> = {};
  for (const wrapper of wrappers) {
    const def = defOf(wrapper);
    if (def.type === 'nullable') nullable = true;
    if ((def.type === 'default' || def.type === 'prefault') && !('default' in keywords)) keywords.default = def.defaultValue;
    for (const [key, value] of Object.entries(ownMetadata(lib, wrapper))) {
      if (key === 'id' || key === '_internal' || key === 'param' || value === undefined || key in keywords) continue;
      keywords[key] = value;
    }
  }
  return { nullable, keywords };
}

/**
 * Makes a zod-to-openapi generator document every wrapped use of a named model as a use of the model's
 * own component (see the top of this file). Every schema it writes passes through
 * `generateSchemaWithRef` (bodies, responses, parameters, fields, items), which is wrapped here.
 */
export function referToModels(lib: Generator, documentGenerator: object): void {
  const inner = (documentGenerator as { generator?: { generateSchemaWithRef?: (schema: z.ZodType) => unknown } }).generator;
  const original = inner?.generateSchemaWithRef;
  if (inner === undefined || typeof original !== 'function') return;
  inner.generateSchemaWithRef = (schema: z.ZodType) => {
    const found = namedModel(lib, schema);
    if (found === undefined || found.wrappers.length === 0) return original.call(inner, schema);
    const ref = original.call(inner, found.model);
    const { nullable, keywords } = additions(lib, found.wrappers);
    const base = nullable && !found.model.safeParse(null).success ? { anyOf: [ref, { type: 'null' }] } : ref;
    return Object.keys(keywords).length > 0 ? { ...(base as object), ...keywords } : base;
  };
}
