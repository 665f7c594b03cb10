import {
  fileOptionsOf,
  isParamSource,
  isZodSchema,
  type ParamDescriptor,
  type ParamsShape,
  type Schema as AnySchema,
  z,
} from '@fnapi/validation';
import type { OpenAPIVersion } from './description.js';

// Rewrites of the generated document so that generators, linters and mocks read it as meant.

type Schema = Record<string, unknown>;
type Operation = Record<string, unknown> & { parameters?: Schema[]; security?: unknown[]; responses?: Record<string, Schema> };

function operations(document: Schema): [string, string, Operation][] {
  const out: [string, string, Operation][] = [];
  for (const [path, item] of Object.entries((document.paths ?? {}) as Record<string, Record<string, Operation>>)) {
    for (const [method, operation] of Object.entries(item)) {
      if (typeof operation === 'object' && operation !== null && 'responses' in operation) out.push([path, method, operation]);
    }
  }
  return out;
}

/** What the app said about a parameter: its schema's `.meta()` through wrappers, and the wrapper's options. */
export interface ParameterDocs {
  title?: string;
  description?: string;
  deprecated?: boolean;
  examples?: unknown[];
}

/** A schema's own metadata merged from the outside in (the outermost wins). */
function metaOf(schema: AnySchema): Schema {
  const merged: Schema = {};
  if (!isZodSchema(schema)) return merged;
  let current: z.ZodType | undefined = schema as z.ZodType;
  for (let guard = 0; current !== undefined && guard < 32; guard++) {
    const meta = z.globalRegistry.get(current) as Schema | undefined;
    if (meta) for (const [key, value] of Object.entries(meta)) if (!(key in merged)) merged[key] = value;
    const def: { innerType?: z.ZodType; in?: z.ZodType; type: string } = (
      current as unknown as { _zod: { def: { innerType?: z.ZodType; in?: z.ZodType; type: string } } }
    )._zod.def;
    current = def.innerType ?? (def.type === 'pipe' ? def.in : undefined);
  }
  return merged;
}

export function parameterDocs(descriptor: ParamDescriptor): ParameterDocs {
  const meta = metaOf(descriptor.schema);
  const docs: ParameterDocs = {};
  if (typeof meta.title === 'string') docs.title = meta.title;
  if (typeof meta.description === 'string') docs.description = meta.description;
  if (descriptor.deprecated || meta.deprecated === true) docs.deprecated = true;
  if (Array.isArray(meta.examples)) docs.examples = meta.examples;
  return docs;
}

/**
 * A parameter's `title` is its schema's `title` (never its description), its description the
 * parameter's, `deprecated` on the parameter object (not inside its schema).
 */
export function applyParameterDocs(document: Schema, docs: Map<string, Map<string, ParameterDocs>>): void {
  for (const [path, method, operation] of operations(document)) {
    const byName = docs.get(`${path}\u0000${method}`);
    if (!byName) continue;
    for (const parameter of operation.parameters ?? []) {
      const own = byName.get(`${String(parameter.in)}:${String(parameter.name)}`);
      if (!own) continue;
      const schema = (parameter.schema ?? {}) as Schema;
      delete parameter.description;
      delete schema.description;
      delete schema.deprecated;
      delete schema.title;
      if (own.description !== undefined) parameter.description = own.description;
      if (own.title !== undefined) schema.title = own.title;
      if (own.deprecated) parameter.deprecated = true;
      else delete parameter.deprecated;
    }
  }
}

/** `QUERY` is the path item's `query` operation in 3.2; 3.1 has none, so it is the extension `x-query`. */
export function placeQueryOperations(document: Schema, version: OpenAPIVersion): void {
  if (version === '3.2.0') return;
  for (const item of Object.values((document.paths ?? {}) as Record<string, Schema>)) {
    if (!('query' in item)) continue;
    item['x-query'] = item.query;
    delete item.query;
  }
}

/**
 * When the app has any security scheme, an operation without a guard says `security: []` (public, on
 * purpose), so linters (Redocly's `security-defined`) and generators read it as public rather than as
 * undocumented. An app with no scheme at all says it once, at the root (`security: []`), and leaves
 * its operations as they are.
 */
export function markPublicOperations(document: Schema): void {
  const schemes = ((document.components as Schema | undefined)?.securitySchemes ?? {}) as Schema;
  if (Object.keys(schemes).length === 0) {
    document.security ??= [];
    return;
  }
  for (const [, , operation] of operations(document)) {
    if (operation.security === undefined) operation.security = [];
  }
  for (const item of Object.values((document.paths ?? {}) as Record<string, Schema>)) {
    const query = item['x-query'] as Operation | undefined;
    if (query && query.security === undefined) query.security = [];
  }
}

/**
 * A field with a default always comes out, so in an output schema it is `required`. Components that
 * request bodies or parameters also use keep their input reading (the document names separate input
 * components for whole-body models).
 */
export function requireDefaultedOutputs(document: Schema): void {
  const components = ((document.components as Schema | undefined)?.schemas ?? {}) as Record<string, Schema>;
  const inputs = new Set<string>();
  const outputs = new Set<string>();
  const collectRefs = (value: unknown, into: Set<string>): void => {
    if (Array.isArray(value)) for (const v of value) collectRefs(v, into);
    else if (typeof value === 'object' && value !== null) {
      const ref = (value as Schema).$ref;
      if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
        const name = ref.slice('#/components/schemas/'.length);
        if (!into.has(name)) {
          into.add(name);
          collectRefs(components[name], into);
        }
      }
      for (const v of Object.values(value)) collectRefs(v, into);
    }
  };
  const inlineOutputs: unknown[] = [];
  for (const [, , operation] of operations(document)) {
    collectRefs(operation.parameters, inputs);
    collectRefs(operation.requestBody, inputs);
    for (const response of Object.values(operation.responses ?? {})) {
      collectRefs(response, outputs);
      inlineOutputs.push(response);
    }
  }
  const requireDefaults = (value: unknown, seen: Set<unknown>): void => {
    if (typeof value !== 'object' || value === null || seen.has(value)) return;
    seen.add(value);
    if (Array.isArray(value)) {
      for (const v of value) requireDefaults(v, seen);
      return;
    }
    const schema = value as Schema;
    if (typeof schema.$ref === 'string') return;
    const properties = schema.properties as Record<string, Schema> | undefined;
    if (properties && typeof properties === 'object') {
      const required = new Set((schema.required as string[] | undefined) ?? []);
      for (const [name, property] of Object.entries(properties)) {
        if (property && typeof property === 'object' && 'default' in property) required.add(name);
      }
      if (required.size > 0) schema.required = [...required];
    }
    for (const v of Object.values(schema)) requireDefaults(v, seen);
  };
  const seen = new Set<unknown>();
  for (const name of outputs) if (!inputs.has(name) && components[name]) requireDefaults(components[name], seen);
  for (const response of inlineOutputs) requireDefaults(response, seen);
}

/**
 * A multipart body lists each file field's accepted types in `encoding.<field>.contentType`; a list
 * of files carries `maxItems` (the app's `maxFiles`), and each file field's size limit is in its
 * description.
 */
export function describeUploads(operation: Operation | undefined, params: ParamsShape | undefined, maxFiles: number | undefined): void {
  const media = ((operation?.requestBody as Schema | undefined)?.content as Record<string, Schema> | undefined)?.['multipart/form-data'];
  if (!media || !params) return;
  const properties = ((media.schema as Schema | undefined)?.properties ?? {}) as Record<string, Schema>;
  const encoding: Record<string, Schema> = {};
  for (const [name, spec] of Object.entries(params)) {
    const schema = isParamSource(spec) ? spec.schema : spec;
    const options = fileOptionsOf(schema);
    const property = properties[name];
    if (!options || !property) continue;
    if (options.types?.length) {
      encoding[name] = { contentType: options.types.join(', ') };
      // The file's own schema agrees: its one type, or (JSON Schema's `contentMediaType` naming one
      // type) none where `encoding` lists several, rather than `application/octet-stream`.
      const file = (options.array ? property.items : property) as Schema | undefined;
      if (file && typeof file === 'object') {
        if (options.types.length === 1) file.contentMediaType = options.types[0];
        else delete file.contentMediaType;
      }
    }
    const limit = `At most ${options.maxSize} bytes${options.array ? ' per file' : ''}.`;
    property.description = typeof property.description === 'string' ? `${property.description} ${limit}` : limit;
    if (options.array && maxFiles !== undefined && property.type === 'array' && property.maxItems === undefined)
      property.maxItems = maxFiles;
  }
  if (Object.keys(encoding).length > 0) media.encoding = { ...(media.encoding as Schema | undefined), ...encoding };
}
