import {
  OpenAPIRegistry,
  OpenApiGeneratorV31,
  getRefId,
  zodToOpenAPIRegistry,
  type RouteConfig,
  type ResponseConfig,
} from '@asteasolutions/zod-to-openapi';
import { describeParams, ValidationProblemSchema, z, type BinderPlan, type BodyDescriptor, type ParamDescriptor } from '@fnapi/validation';

/** One security scheme an operation requires (the extension point used by `@fnapi/auth`). */
export interface SecurityRequirement {
  /** Key under `components.securitySchemes`, e.g. `bearerAuth`. */
  name: string;
  /** An OpenAPI Security Scheme Object, e.g. `{ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }`. */
  scheme: Record<string, unknown>;
  /** OAuth2/OpenID scopes or role names; `[]` when omitted. */
  scopes?: string[];
}

/** Everything the document needs to know about one endpoint. */
export interface OperationDescription {
  /** Upper-case HTTP method: `GET`, `POST`, … */
  method: string;
  /** OpenAPI path template with any router prefix applied, e.g. `/users/{user_id}`. */
  path: string;
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  deprecated?: boolean;
  /** What the binder is compiled from; `describeParams(plan)` gives the parameters and the body. */
  plan: BinderPlan;
  /** Success response model. */
  response?: z.ZodType;
  /** Success status; 204 (and 205, 304, 1xx) is documented without content. */
  statusCode: number;
  /** Schemes required to call the operation; all of them apply together. */
  security?: SecurityRequirement[];
  /**
   * Alternatives (any one is enough), each a list of schemes that apply together; documented as
   * separate security requirements, each also carrying `security`.
   */
  securityAlternatives?: SecurityRequirement[][];
  /** Extra problem statuses the operation can produce (401, 403, 413, 415, 504, …). */
  errorStatuses?: number[];
}

export interface DocumentInfo {
  title: string;
  version: string;
  description?: string;
  /** `servers`: where the API is served, e.g. `[{ url: 'https://api.example.com', description: 'Production' }]`. */
  servers?: { url: string; description?: string }[];
  /** `info.contact`. */
  contact?: { name?: string; url?: string; email?: string };
  /** `info.license`: a name, and an SPDX `identifier` or a `url`. */
  license?: { name: string; identifier?: string; url?: string };
  /** `info.termsOfService`: a URL. */
  termsOfService?: string;
  /** Descriptions of the tags endpoints use (and their order in the pages). */
  tags?: { name: string; description?: string }[];
}

/** A schema that could not be documented: it is shown as an open schema, and the rest is served. */
export interface SchemaProblem {
  method: string;
  path: string;
  operationId: string;
  /** The parameter (`query page`, `body user`, `response`) whose schema failed. */
  parameter: string;
  error: unknown;
}

/**
 * The HTTP facts the document states, owned by the server that sends the responses (`@fnapi/core`
 * passes its own), so the document and the wire never disagree.
 */
export interface HttpFacts {
  /** The reason phrase of a status (a response's description). */
  reasonPhrase(status: number): string;
  /** Whether a response of this status carries content (not 1xx, 204, 205, 304). */
  statusHasBody(status: number): boolean;
  /** Media type of success bodies (`application/json`). */
  jsonMediaType: string;
  /** Media type of error bodies (`application/problem+json`). */
  problemMediaType: string;
}

export interface BuildOptions {
  /** The server's HTTP facts. */
  http: HttpFacts;
  /** Replaces the documented 422 body schema; default `ValidationProblemSchema`. */
  validationErrorSchema?: z.ZodType;
  /** Told of every schema that could not be documented (the document is built all the same). */
  onSchemaProblem?(problem: SchemaProblem): void;
}

/** Name of the shared problem-details component. */
export const PROBLEM_DETAILS_COMPONENT = 'ProblemDetails';
/** Default name of the 422 body component (a schema with its own id keeps that id). */
export const VALIDATION_PROBLEM_COMPONENT = 'ValidationProblem';

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** The problem-details body every non-422 error carries (RFC 9457). */
const ProblemDetailsSchema = z
  .object({
    type: z.string().describe('A URI reference identifying the problem type; `about:blank` when it is just the status'),
    title: z.string().describe('Short summary of the problem type: the status reason phrase'),
    status: z.int().min(100).max(599).describe('The HTTP status code'),
    detail: z.string().optional().describe('Explanation specific to this occurrence'),
    details: z.unknown().optional().describe('Structured data about this occurrence'),
  })
  .describe('RFC 9457 problem details');

type AnySchema = z.ZodType;
type SchemaObject = Record<string, unknown>;

function pascalCase(name: string): string {
  const words = name.split(/[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])/).filter(Boolean);
  const joined = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
  if (joined === '') return 'Body';
  return /^[0-9]/.test(joined) ? `Model${joined}` : joined;
}

function isUnknownTypeError(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    ((error as { constructor?: { name?: string } }).constructor?.name === 'UnknownZodTypeError' ||
      /Unknown zod object type/i.test(String((error as { message?: unknown }).message)))
  );
}

function isOptionalSchema(schema: AnySchema): boolean {
  try {
    return schema.safeParse(undefined).success;
  } catch {
    return false;
  }
}

/**
 * Builds one document. With `safe` set, every schema is first converted alone and one that
 * zod-to-openapi cannot express (`z.custom`, `z.instanceof`, …) is replaced by zod's own JSON
 * Schema for it (or `{}`), so one exotic schema never takes the whole document down.
 */
class DocumentBuilder {
  private readonly registry = new OpenAPIRegistry();
  /** Component name of each schema named for this document (the whole-body models and our own). */
  private readonly namedSchemas = new Map<AnySchema, string>();
  private readonly restore: Array<() => void> = [];
  private readonly usedNames = new Set<string>();
  private readonly securitySchemes = new Map<string, string>();
  private readonly tags: string[] = [];
  private readonly safeCache = new Map<AnySchema, AnySchema | SchemaObject>();
  private problemRef!: AnySchema;
  private validationRef!: AnySchema;

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

    // Names are settled before any operation is generated: the shared components first, then every
    // whole-body model in operation order, so names do not depend on which schema is met first inside
    // zod-to-openapi.
    this.problemRef = this.nameSchema(ProblemDetailsSchema, PROBLEM_DETAILS_COMPONENT);
    this.validationRef = this.nameSchema(this.options.validationErrorSchema ?? ValidationProblemSchema, VALIDATION_PROBLEM_COMPONENT);
    for (const { body } of described) {
      if (body.kind === 'whole') this.nameSchema(body.schema, pascalCase(body.name));
    }

    const requiredByOperation = new Map<string, Map<string, boolean>>();
    for (const { op, params, body } of described) {
      const method = op.method.toLowerCase();
      if (!METHODS.has(method)) continue;
      const route = this.route(op, method, params, body);
      requiredByOperation.set(`${op.path}\u0000${method}`, new Map(params.map((p) => [`${p.in}:${p.wireName}`, p.required])));
      this.registry.registerPath(route);
    }

    const document = new OpenApiGeneratorV31(this.registry.definitions).generateDocument({
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

    this.fixParameters(document, requiredByOperation);
    return tidy(document);
  }

  /**
   * Makes zod-to-openapi emit `schema` as `#/components/schemas/<name>` wherever it occurs (as a body, a
   * response, or nested in either), unless it already has its own id. The name is attached to the
   * schema in zod-to-openapi's registry only while this document is generated (see `release`).
   */
  private nameSchema(schema: AnySchema, preferred: string): AnySchema {
    if (this.namedSchemas.has(schema)) return schema;
    const own = getRefId(schema);
    if (own !== undefined) {
      this.usedNames.add(own);
      this.namedSchemas.set(schema, own);
      return schema;
    }
    let name = preferred;
    for (let i = 2; this.usedNames.has(name); i++) name = `${preferred}${i}`;
    this.usedNames.add(name);
    this.namedSchemas.set(schema, name);
    const previous = zodToOpenAPIRegistry.has(schema) ? zodToOpenAPIRegistry.get(schema) : undefined;
    this.restore.push(() => {
      zodToOpenAPIRegistry.remove(schema);
      if (previous !== undefined) zodToOpenAPIRegistry.add(schema, previous);
    });
    const metadata = previous ?? {};
    zodToOpenAPIRegistry.add(schema, { ...metadata, _internal: { ...metadata._internal, refId: name } } as never);
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

  private schemaFor(schema: AnySchema, op?: OperationDescription, parameter?: string): AnySchema | SchemaObject {
    return this.safe ? this.ensureConvertible(schema, op, parameter) : schema;
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
      new OpenApiGeneratorV31([
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
  private paramSchema(schema: AnySchema, op?: OperationDescription, parameter?: string): AnySchema {
    const converted = this.schemaFor(schema, op, parameter);
    if (converted instanceof z.ZodType) return converted;
    const holder = z.unknown();
    zodToOpenAPIRegistry.add(holder, converted as never);
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
      const required =
        body.kind === 'whole'
          ? !isOptionalSchema(body.schema)
          : Object.values(body.schema.shape).some((field) => !isOptionalSchema(field as AnySchema));
      const schema = this.schemaFor(body.schema, op, `body${body.kind === 'whole' ? ` ${body.name}` : ''}`) as never;
      const mediaTypes = body.mediaTypes ?? [this.options.http.jsonMediaType];
      request.body = { required, content: Object.fromEntries(mediaTypes.map((type) => [type, { schema }])) };
    }

    const responses: Record<string, ResponseConfig> = {};
    const status = op.statusCode;
    const http = this.options.http;
    if (!http.statusHasBody(status)) {
      responses[String(status)] = { description: http.reasonPhrase(status) };
    } else {
      const schema = op.response ? this.schemaFor(op.response, op, 'response') : {};
      responses[String(status)] = {
        description: http.reasonPhrase(status),
        content: { [http.jsonMediaType]: { schema: schema as never } },
      };
    }

    const problem = (code: number, description: string, schema: AnySchema = this.problemRef) => {
      if (String(code) in responses) return;
      responses[String(code)] = { description, content: { [http.problemMediaType]: { schema } } };
    };
    const hasPathParams = Object.keys(groups.path).length > 0;
    const hasBody = body.kind !== 'none';
    const statuses = new Set<number>(op.errorStatuses ?? []);
    if (hasBody) {
      problem(400, 'Malformed JSON body');
      problem(413, 'Request body larger than the limit');
      problem(415, 'Request body is not JSON');
    }
    const requirements = (op.securityAlternatives?.length ? op.securityAlternatives : [[]])
      .map((alternative) => [...(op.security ?? []), ...alternative])
      .filter((alternative) => alternative.length > 0);
    if (requirements.length > 0) problem(401, 'Missing or invalid credentials');
    if (hasPathParams) problem(404, 'Not Found');
    if (params.length > 0 || hasBody) problem(422, 'Validation Error', this.validationRef);
    for (const code of [...statuses].sort((a, b) => a - b)) problem(code, http.reasonPhrase(code));

    const route: RouteConfig = {
      method: method as RouteConfig['method'],
      path: op.path,
      operationId: op.operationId,
      ...(op.summary !== undefined ? { summary: op.summary } : {}),
      ...(op.description !== undefined ? { description: op.description } : {}),
      ...(op.tags && op.tags.length > 0 ? { tags: [...op.tags] } : {}),
      ...(op.deprecated ? { deprecated: true } : {}),
      ...(Object.keys(request).length > 0 ? { request } : {}),
      responses: sortByStatus(responses),
    };

    if (requirements.length > 0) {
      route.security = requirements.map((alternative) => {
        const requirement: Record<string, string[]> = {};
        for (const sec of alternative) {
          this.registerSecurityScheme(sec);
          requirement[sec.name] = [...(requirement[sec.name] ?? []), ...(sec.scopes ?? [])];
        }
        return requirement;
      });
    }
    return route;
  }

  private registerSecurityScheme(sec: SecurityRequirement): void {
    const serialized = stableStringify(sec.scheme);
    const existing = this.securitySchemes.get(sec.name);
    if (existing === undefined) {
      this.securitySchemes.set(sec.name, serialized);
      this.registry.registerComponent('securitySchemes', sec.name, structuredClone(sec.scheme) as never);
    } else if (existing !== serialized) {
      throw new Error(
        `Security scheme "${sec.name}" is declared twice with different definitions ` +
          `(${existing} and ${serialized}); give the second one another name`,
      );
    }
  }

  /** `required` comes from the binder's own rules, which may differ from zod-to-openapi's guess. */
  private fixParameters(document: Record<string, unknown>, required: Map<string, Map<string, boolean>>): void {
    const paths = (document.paths ?? {}) as Record<string, Record<string, { parameters?: Array<Record<string, unknown>> }>>;
    for (const [path, item] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const flags = required.get(`${path}\u0000${method}`);
        for (const parameter of operation.parameters ?? []) {
          if (parameter.in === 'path') {
            parameter.required = true;
            continue;
          }
          const flag = flags?.get(`${String(parameter.in)}:${String(parameter.name)}`);
          if (flag !== undefined) parameter.required = flag;
        }
      }
    }
  }
}

function templateParams(path: string, declared: readonly string[]): string[] {
  const names = [...path.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]!);
  for (const name of declared) if (!names.includes(name) && path.includes(`{${name}}`)) names.push(name);
  return names;
}

function sortByStatus<T>(responses: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)));
}

function fallbackJsonSchema(schema: AnySchema): SchemaObject {
  try {
    const json = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      unrepresentable: 'any',
      io: 'input',
      cycles: 'throw',
      reused: 'inline',
      metadata: z.registry<Record<string, unknown>>(),
    }) as SchemaObject;
    delete json.$schema;
    if ('$defs' in json) return {};
    return json;
  } catch {
    return {};
  }
}

function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Drops the empty sections zod-to-openapi always emits (`webhooks: {}`, `components.parameters: {}`). */
function tidy(document: Record<string, unknown>): Record<string, unknown> {
  const components = document.components as Record<string, Record<string, unknown>> | undefined;
  if (components) {
    for (const [key, value] of Object.entries(components)) {
      if (value && typeof value === 'object' && Object.keys(value).length === 0) delete components[key];
    }
    if (Object.keys(components).length === 0) delete document.components;
  }
  const webhooks = document.webhooks as Record<string, unknown> | undefined;
  if (webhooks && Object.keys(webhooks).length === 0) delete document.webhooks;
  if (!document.paths) document.paths = {};
  return document;
}

/**
 * Builds the OpenAPI 3.1.0 document for the given operations.
 *
 * Whole-body models become named `components.schemas` entries (their own `.meta({ id })` if they have
 * one, else the parameter name in PascalCase), shared by every operation using the same schema;
 * errors are `application/problem+json` with the shared `ProblemDetails` schema, and 422 with the
 * validation problem schema.
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
