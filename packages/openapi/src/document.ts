import type * as ZodToOpenAPI from '@asteasolutions/zod-to-openapi';
import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import {
  type BodyDescriptor,
  describeParams,
  isOptionalSchema as acceptsMissing,
  isZodSchema,
  type ParamDescriptor,
  type Schema,
  standardJsonSchema,
  z,
} from '@fnapi/validation';
import { builtin } from '@fnapi/validation/builtins';
import type { BuildOptions, DocumentInfo, OperationDescription } from './description.js';
import { fixParameters, templateParams, tidy } from './document-shape.js';
import { outputSchemas, renderResponses } from './responses.js';
import { type ItemStream, placeItemSchemas } from './item-schemas.js';
import { namedModel, referToModels, rewrap } from './model-uses.js';
import { fallbackJsonSchema, isOptionalSchema, isUnknownTypeError, type SchemaObject } from './schema-fallback.js';
import { SecuritySchemes } from './security-schemes.js';
import {
  applyParameterDocs,
  describeUploads,
  markPublicOperations,
  type ParameterDocs,
  parameterDocs,
  placeQueryOperations,
  requireDefaultedOutputs,
} from './tool-fixes.js';

let generatorModule: typeof ZodToOpenAPI | undefined;

/**
 * zod-to-openapi, required when the first document is built rather than with the app: a function
 * that never serves /openapi.json or /docs (a Lambda answering its events) never loads it.
 * `require` is the bundler's (which then inlines the package) or, unbundled, one made for this module.
 */
function generator(): typeof ZodToOpenAPI {
  generatorModule ??= (
    typeof require === 'function'
      ? require('@asteasolutions/zod-to-openapi')
      : // node:module at this one point of use: a Worker's bundle has no node:module.
        builtin('node:module').createRequire(import.meta.url)('@asteasolutions/zod-to-openapi')
  ) as typeof ZodToOpenAPI;
  return generatorModule;
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace', 'query']);

type AnySchema = z.ZodType;

/** Holders standing in for other libraries' schemas where zod-to-openapi needs a zod schema. */
const holders = { input: new WeakMap<Schema, z.ZodType>(), output: new WeakMap<Schema, z.ZodType>() };

/**
 * A non-zod schema's JSON Schema for the document: its Standard JSON Schema (valibot through its
 * converter), or `{}` when it offers none. One that refers to its own `$defs` (a recursive type) is
 * documented open, as a recursive zod schema is.
 */
function standardDocument(schema: Schema, io: 'input' | 'output'): SchemaObject {
  const json = standardJsonSchema(schema, io);
  if (json === undefined || '$defs' in json || 'definitions' in json) return {};
  return json;
}

/**
 * An optional parameter's or field's schema without the branch that stands for its absence: a library
 * that documents `string | undefined` as `anyOf: [{ type: 'string' }, {}]` (the `undefined` it cannot
 * express), which every generator then types `unknown`. Being optional is said by `required` instead.
 */
function withoutMissingBranch(json: SchemaObject): SchemaObject {
  const branches = (json as { anyOf?: unknown }).anyOf;
  if (!Array.isArray(branches)) return json;
  const isOpen = (branch: unknown) => typeof branch === 'object' && branch !== null && Object.keys(branch).length === 0;
  const kept = branches.filter((branch) => !isOpen(branch));
  if (kept.length === branches.length || kept.length === 0) return json;
  const { anyOf: _, ...rest } = json as Record<string, unknown>;
  return (kept.length === 1 ? { ...rest, ...(kept[0] as object) } : { ...rest, anyOf: kept }) as SchemaObject;
}

/**
 * Builds one document. With `safe` set, every schema is first converted alone and one that
 * zod-to-openapi cannot express (`z.custom`, `z.instanceof`, …) is replaced by zod's own JSON
 * Schema for it (or `{}`), so one exotic schema never takes the whole document down.
 */
class DocumentBuilder {
  private readonly registry = new (generator().OpenAPIRegistry)();
  /** Component name of each schema named for this document (the whole-body models and our own). */
  private readonly namedSchemas = new Map<AnySchema, string>();
  private readonly restore: Array<() => void> = [];
  private readonly usedNames = new Set<string>();
  private readonly securitySchemes = new SecuritySchemes(this.registry);
  private readonly tags: string[] = [];
  private readonly safeCache = new Map<AnySchema, AnySchema | SchemaObject>();
  /** Schemas the document answers with (success and error bodies). */
  private readonly outputs = new Set<Schema>();
  /** The request-body copy of each named model that is also an output. */
  private readonly inputCopies = new Map<AnySchema, AnySchema>();
  private readonly itemStreams: ItemStream[] = [];

  constructor(
    private readonly info: DocumentInfo,
    private readonly operations: readonly OperationDescription[],
    private readonly options: BuildOptions,
    private readonly safe: boolean,
  ) {}

  build(): Record<string, unknown> {
    // In safe mode an operation whose parameters cannot even be analysed is left out and reported.
    const described = this.operations.flatMap((op) => {
      if (!this.safe) return [{ op, ...describeParams(op.plan) }];
      try {
        return [{ op, ...describeParams(op.plan) }];
      } catch (error) {
        this.options.onSchemaProblem?.({ method: op.method, path: op.path, operationId: op.operationId, parameter: 'parameters', error });
        return [];
      }
    });

    // Names are settled before any operation is generated, in operation and status order, so they do
    // not depend on which schema zod-to-openapi meets first. Only the server's own bodies (problems)
    // are named here; a user's model is a component only under its own id, never a parameter's name.
    for (const { op } of described) {
      for (const schema of outputSchemas(op)) this.outputs.add(schema);
      for (const answer of op.responses ?? []) {
        const schema = answer.content?.schema;
        if (schema && answer.content?.component && isZodSchema(schema)) this.nameSchema(schema as AnySchema, answer.content.component);
      }
    }
    // An input model never shares a component with an output: a named model that is also answered
    // (bare or wrapped, as `Ref` or `Ref.nullable()`) is documented as a request body under `<id>Input`,
    // the body's own wrappers kept around the copy.
    const answered = new Set<AnySchema>();
    for (const schema of this.outputs) {
      const found = isZodSchema(schema) ? namedModel(generator(), schema as AnySchema) : undefined;
      if (found) answered.add(found.model);
    }
    const modelCopies = new Map<AnySchema, AnySchema>();
    for (const { body } of described) {
      if (body.kind !== 'whole' || !isZodSchema(body.schema) || this.inputCopies.has(body.schema as AnySchema)) continue;
      const found = namedModel(generator(), body.schema as AnySchema);
      const id = found && generator().getRefId(found.model);
      if (!found || id === undefined || !answered.has(found.model)) continue;
      let copy = modelCopies.get(found.model);
      if (copy === undefined) {
        copy = found.model.clone();
        modelCopies.set(found.model, copy);
        this.nameSchema(copy, `${id}Input`);
      }
      this.inputCopies.set(body.schema as AnySchema, rewrap(found, copy));
    }
    // Security schemes named by the app keep their names; defaults are numbered around them.
    for (const { op } of described) {
      for (const sec of [...(op.security ?? []), ...(op.securityAlternatives ?? []).flat()]) this.securitySchemes.reserve(sec);
    }

    const requiredByOperation = new Map<string, Map<string, boolean>>();
    const docsByOperation = new Map<string, Map<string, ParameterDocs>>();
    for (const { op, params, body } of described) {
      const method = op.method.toLowerCase();
      if (!METHODS.has(method)) continue;
      const route = this.route(op, method, params, body);
      requiredByOperation.set(`${op.path}\u0000${method}`, new Map(params.map((p) => [`${p.in}:${p.wireName}`, p.required])));
      docsByOperation.set(`${op.path}\u0000${method}`, new Map(params.map((p) => [`${p.in}:${p.wireName}`, parameterDocs(p)])));
      this.registry.registerPath(route);
    }

    const documentGenerator = new (generator().OpenApiGeneratorV31)(this.registry.definitions);
    referToModels(generator(), documentGenerator);
    const document = documentGenerator.generateDocument({
      openapi: '3.1.0',
      info: {
        title: this.info.title,
        version: this.info.version,
        ...(this.info.description !== undefined ? { description: this.info.description } : {}),
        ...(this.info.termsOfService !== undefined ? { termsOfService: this.info.termsOfService } : {}),
        ...(this.info.contact !== undefined ? { contact: { ...this.info.contact } } : {}),
        ...(this.info.license !== undefined ? { license: { ...this.info.license } } : {}),
      },
      ...(this.info.servers?.length ? { servers: this.info.servers.map((server) => ({ ...server })) } : {}),
      ...(this.documentTags().length > 0 ? { tags: this.documentTags() } : {}),
    }) as unknown as Record<string, unknown>;

    fixParameters(document, requiredByOperation);
    applyParameterDocs(document, docsByOperation);
    const version = this.options.openapiVersion ?? '3.1.0';
    document.openapi = version;
    const paths = (document.paths ?? {}) as Record<string, Record<string, Record<string, unknown>>>;
    for (const { op } of described) {
      if (op.plan.params) describeUploads(paths[op.path]?.[op.method.toLowerCase()], op.plan.params, this.options.maxFiles);
    }
    requireDefaultedOutputs(document);
    placeItemSchemas(document, this.itemStreams, version);
    placeQueryOperations(document, version);
    markPublicOperations(document);
    return tidy(document);
  }

  /**
   * Makes zod-to-openapi emit `schema` as `#/components/schemas/<name>` wherever it occurs (as a body, a
   * response, or nested in either), unless it already has its own id. The name is attached to the
   * schema in zod-to-openapi's registry only while this document is generated (see `release`).
   */
  private nameSchema(schema: AnySchema, preferred: string): AnySchema {
    if (this.namedSchemas.has(schema)) return schema;
    const own = generator().getRefId(schema);
    if (own !== undefined) {
      this.usedNames.add(own);
      this.namedSchemas.set(schema, own);
      return schema;
    }
    let name = preferred;
    for (let i = 2; this.usedNames.has(name); i++) name = `${preferred}${i}`;
    this.usedNames.add(name);
    this.namedSchemas.set(schema, name);
    const previous = generator().zodToOpenAPIRegistry.has(schema) ? generator().zodToOpenAPIRegistry.get(schema) : undefined;
    this.restore.push(() => {
      generator().zodToOpenAPIRegistry.remove(schema);
      if (previous !== undefined) generator().zodToOpenAPIRegistry.add(schema, previous);
    });
    const metadata = previous ?? {};
    generator().zodToOpenAPIRegistry.add(schema, { ...metadata, _internal: { ...metadata._internal, refId: name } } as never);
    return schema;
  }

  /** Takes the temporary names off the caller's schemas again. */
  release(): void {
    for (const undo of this.restore.splice(0).reverse()) undo();
  }

  /** Described tags: the app's own (with descriptions, in its order), then any other tag endpoints use. */
  private documentTags(): { name: string; description?: string }[] {
    const described = this.info.tags ?? [];
    const names = new Set(described.map((tag) => tag.name));
    return [...described.map((tag) => ({ ...tag })), ...this.tags.filter((name) => !names.has(name)).map((name) => ({ name }))];
  }

  private schemaFor(
    schema: Schema,
    op?: OperationDescription,
    parameter?: string,
    io: 'input' | 'output' = 'output',
  ): AnySchema | SchemaObject {
    if (!isZodSchema(schema)) return standardDocument(schema, io);
    return this.safe ? this.ensureConvertible(schema as AnySchema, op, parameter) : (schema as AnySchema);
  }

  /**
   * A zod stand-in for another library's schema, where zod-to-openapi needs one (a parameter, a field
   * of a by-name body): it renders as that schema's JSON Schema, and is optional when the schema is.
   */
  private holder(schema: Schema, io: 'input' | 'output'): AnySchema {
    let holder = holders[io].get(schema);
    if (holder === undefined) {
      // `unknown` renders as `{}` by itself; the refinement keeps a required field required.
      const inner = z.unknown().refine((value) => value !== undefined);
      const optional = acceptsMissing(schema);
      const json = optional ? withoutMissingBranch(standardDocument(schema, io)) : standardDocument(schema, io);
      if (Object.keys(json).length > 0) generator().zodToOpenAPIRegistry.add(inner, json as never);
      holder = optional ? inner.optional() : inner;
      holders[io].set(schema, holder);
    }
    return holder;
  }

  /**
   * In safe mode each schema is tried alone: one zod-to-openapi cannot convert (an unknown type,
   * recursion through `z.json()` or `z.lazy()`) becomes the JSON Schema zod itself gives, or an open
   * schema, and whatever fails for another reason is reported with its operation and parameter.
   */
  private ensureConvertible(schema: AnySchema, op?: OperationDescription, parameter?: string): AnySchema | SchemaObject {
    const cached = this.safeCache.get(schema);
    if (cached) return cached;
    let result: AnySchema | SchemaObject = schema;
    try {
      new (generator().OpenApiGeneratorV31)([
        {
          type: 'route',
          route: { method: 'get', path: '/', responses: { 200: { description: '', content: { 'application/json': { schema } } } } },
        },
      ]).generateDocument({ openapi: '3.1.0', info: { title: '', version: '' } });
    } catch (error) {
      result = fallbackJsonSchema(schema);
      if (!isUnknownTypeError(error) && !(error instanceof RangeError) && op !== undefined) {
        this.options.onSchemaProblem?.({
          method: op.method,
          path: op.path,
          operationId: op.operationId,
          parameter: parameter ?? 'schema',
          error,
        });
      }
    }
    this.safeCache.set(schema, result);
    return result;
  }

  /** A parameter's schema must stay a zod schema for zod-to-openapi: wrap a fallback in `z.unknown()`. */
  private paramSchema(schema: Schema, op?: OperationDescription, parameter?: string): AnySchema {
    if (!isZodSchema(schema)) return this.holder(schema, 'input');
    const converted = this.schemaFor(schema, op, parameter);
    if (converted instanceof z.ZodType) return converted;
    const holder = z.unknown();
    generator().zodToOpenAPIRegistry.add(holder, converted as never);
    return holder;
  }

  private route(op: OperationDescription, method: string, params: ParamDescriptor[], body: BodyDescriptor): RouteConfig {
    for (const tag of op.tags ?? []) if (!this.tags.includes(tag)) this.tags.push(tag);

    const groups: Record<ParamDescriptor['in'], Record<string, AnySchema>> = { path: {}, query: {}, header: {}, cookie: {} };
    for (const p of params) groups[p.in][p.wireName] = this.paramSchema(p.schema, op, `${p.in} ${p.wireName}`);
    // Every `{name}` of the template must be described, even one the plan left without a schema.
    for (const name of templateParams(op.path, op.plan.pathParams)) {
      if (!(name in groups.path)) groups.path[name] = z.string();
    }
    const objectOf = (shape: Record<string, AnySchema>) => (Object.keys(shape).length > 0 ? z.object(shape) : undefined);

    const request: NonNullable<RouteConfig['request']> = {};
    const pathObj = objectOf(groups.path);
    const queryObj = objectOf(groups.query);
    const headerObj = objectOf(groups.header);
    const cookieObj = objectOf(groups.cookie);
    if (pathObj) request.params = pathObj;
    if (queryObj) request.query = queryObj;
    if (headerObj) request.headers = headerObj;
    if (cookieObj) request.cookies = cookieObj;
    if (body.kind !== 'none') {
      const fields = body.kind === 'fields' ? Object.values(body.fields) : [];
      const required =
        body.kind === 'whole'
          ? isZodSchema(body.schema)
            ? !isOptionalSchema(body.schema as AnySchema)
            : !acceptsMissing(body.schema)
          : fields.some((field) => (isZodSchema(field) ? !isOptionalSchema(field as AnySchema) : !acceptsMissing(field)));
      // By-name fields of other libraries sit in the body object as stand-ins.
      const bodySchema: Schema =
        body.kind === 'fields'
          ? fields.every(isZodSchema)
            ? body.schema
            : z.object(
                Object.fromEntries(
                  Object.entries(body.fields).map(([name, field]) => [
                    name,
                    isZodSchema(field) ? (field as AnySchema) : this.holder(field, 'input'),
                  ]),
                ),
              )
          : body.schema;
      const schema = this.schemaFor(
        this.inputCopies.get(bodySchema as AnySchema) ?? bodySchema,
        op,
        `body${body.kind === 'whole' ? ` ${body.name}` : ''}`,
        'input',
      ) as never;
      // Forms and uploads name their own media types; everything else reads JSON.
      const mediaTypes = body.mediaTypes ?? [this.options.http.jsonMediaType];
      request.body = { required, content: Object.fromEntries(mediaTypes.map((type) => [type, { schema }])) };
    }

    const responses = renderResponses(op, this.options.http, {
      body: (schema, parameter) => this.schemaFor(schema, op, parameter),
      header: (schema, parameter) => this.paramSchema(schema, op, parameter),
    });
    if (op.stream) {
      // The success body was generated as the item's schema (so its components are collected); it is
      // moved to `itemSchema` / `x-itemSchema` once the document is generated.
      const status = op.responses?.find((answer) => answer.content?.mediaType === op.stream?.mediaType)?.status ?? op.statusCode;
      this.itemStreams.push({
        path: op.path,
        method,
        mediaType: op.stream.mediaType,
        status: String(status),
        ...(op.stream.kind ? { kind: op.stream.kind } : {}),
        ...(op.stream.names ? { names: op.stream.names } : {}),
      });
    }
    // An empty alternative beside others is an optional guard's "or none" (`{}` in the document).
    const combined = (op.securityAlternatives?.length ? op.securityAlternatives : [[]]).map((alternative) => [
      ...(op.security ?? []),
      ...alternative,
    ]);
    const requirements = combined.some((alternative) => alternative.length > 0) ? combined : [];

    // The locations whose model refuses unknown keys: removing one of their parameters breaks old clients.
    const strict = (['query', 'cookie'] as const).filter((where) => params.some((p) => p.strict && p.in === where));
    const route: RouteConfig = {
      method: method as RouteConfig['method'],
      path: op.path,
      operationId: op.operationId,
      ...(op.summary !== undefined ? { summary: op.summary } : {}),
      ...(op.description !== undefined ? { description: op.description } : {}),
      ...(op.tags && op.tags.length > 0 ? { tags: [...op.tags] } : {}),
      ...(op.deprecated ? { deprecated: true } : {}),
      ...(op.sunset !== undefined ? { 'x-sunset': op.sunset } : {}),
      ...(Object.keys(request).length > 0 ? { request } : {}),
      ...(strict.length > 0 ? { 'x-strict-parameters': strict } : {}),
      responses,
    };

    if (requirements.length > 0) {
      route.security = requirements.map((alternative) => {
        const requirement: Record<string, string[]> = {};
        for (const sec of alternative) {
          const name = this.securitySchemes.register(sec);
          requirement[name] = [...(requirement[name] ?? []), ...(sec.scopes ?? [])];
        }
        return requirement;
      });
    }
    return route;
  }
}

/**
 * Builds the OpenAPI 3.1.0 document for the given operations.
 *
 * A model is a named `components.schemas` entry only under its own `.meta({ id })` (never a
 * parameter's name); the answers are rendered from `responses` as given, with each body's
 * `component` naming a schema that has no id of its own.
 */
export function buildDocument(
  info: DocumentInfo,
  operations: readonly OperationDescription[],
  options: BuildOptions,
): Record<string, unknown> {
  const attempt = (safe: boolean) => {
    const builder = new DocumentBuilder(info, operations, options, safe);
    try {
      return builder.build();
    } finally {
      builder.release();
    }
  };
  try {
    return attempt(false);
  } catch {
    // Some schema zod-to-openapi cannot convert: try each alone, open up the ones that fail.
    return attempt(true);
  }
}
