import { durationMs, type McpToolOptions, type RegisteredEndpoint } from '@fnapi/core/extend';
import { compileForm } from '@fnapi/validation';

/** Which endpoints become tools besides those marked `mcp`. */
export type Expose = 'marked' | 'safe' | 'all';

/** Endpoints picked by operationId or by tag. */
export interface Selection {
  operations?: readonly string[];
  tags?: readonly string[];
}

export interface SelectionOptions {
  expose?: Expose;
  include?: Selection;
  exclude?: Selection;
}

type JsonSchema = Record<string, unknown>;

/** Where a tool argument goes in the request the call makes. */
export interface Argument {
  /** The argument's name (the parameter's name; a header's in snake case). */
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie' | 'body';
  /** The name on the wire (a header's, a query key's, a body field's). */
  wire: string;
  /** A `{name:path}` parameter: slashes kept. */
  rest?: boolean;
}

/** One endpoint as a tool: what `tools/list` says of it, and how a call turns into a request. */
export interface Tool {
  name: string;
  endpoint: RegisteredEndpoint;
  title?: string;
  description?: string;
  annotations: Record<string, unknown>;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  arguments: Argument[];
  /** The whole body is one argument (a body that is not an object). */
  wholeBody?: string;
  /** The endpoint reads a JSON body. */
  readsBody: boolean;
  /** An `events`/`lines` endpoint: items collected. */
  stream: boolean;
  /** The endpoint's `timeout` in milliseconds (streams end there). */
  timeoutMs?: number;
  resource?: string;
}

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;
/** Headers whose value comes from the MCP request, never from an argument. */
const CARRIED = /^(authorization|x-request-id|traceparent|tracestate|x-forwarded-.*)$/i;

function toolOptions(endpoint: RegisteredEndpoint): McpToolOptions | undefined {
  const option = endpoint.definition.options.mcp;
  if (option === true) return {};
  return typeof option === 'object' && option !== null ? option : undefined;
}

function where(endpoint: RegisteredEndpoint): string {
  return `${endpoint.method} ${endpoint.path}`;
}

function readsUploads(endpoint: RegisteredEndpoint): boolean {
  try {
    return compileForm(endpoint.method, endpoint.definition.options.params, endpoint.pathParams) !== undefined;
  } catch {
    return false;
  }
}

function matches(endpoint: RegisteredEndpoint, selection: Selection | undefined): boolean {
  if (selection === undefined) return false;
  if (selection.operations?.includes(endpoint.operationId)) return true;
  return endpoint.tags.some((tag) => selection.tags?.includes(tag));
}

/** The tool name of an endpoint: `mcp.name`, else its operationId made to fit `[A-Za-z0-9_.-]{1,64}`. */
export function toolName(endpoint: RegisteredEndpoint): string {
  const chosen = toolOptions(endpoint)?.name;
  if (chosen !== undefined) {
    if (!NAME.test(chosen))
      throw new Error(`${where(endpoint)}: mcp.name "${chosen}" is not a tool name: use 1 to 64 of A-Z a-z 0-9 _ . -`);
    return chosen;
  }
  return endpoint.operationId.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 64);
}

/**
 * Whether an endpoint is a tool under these options; a marked endpoint that cannot be one (uploads,
 * events without a timeout) is an error naming it.
 */
export function isTool(endpoint: RegisteredEndpoint, options: SelectionOptions): boolean {
  const definition = endpoint.definition.options;
  if (definition.mcp === false) return false;
  // WebSocket endpoints and endpoints kept out of the document are never tools (a tool's schemas are
  // the document's).
  if (definition.includeInSchema === false) {
    if (toolOptions(endpoint) !== undefined)
      throw new Error(
        `${where(endpoint)} is marked mcp but kept out of the document (includeInSchema: false): a tool's schemas are read from it`,
      );
    return false;
  }
  const streamsForever =
    definition.events !== undefined && !(definition.timeout !== undefined && durationMs('timeout', definition.timeout) > 0);
  if (toolOptions(endpoint) !== undefined) {
    if (readsUploads(endpoint)) throw new Error(`${where(endpoint)} is marked mcp but reads uploads: a tool takes JSON arguments`);
    if (streamsForever) throw new Error(`${where(endpoint)} is marked mcp but is an events endpoint without a timeout: give it one`);
    return true;
  }
  const expose = options.expose ?? 'marked';
  if (expose === 'marked') return false;
  if (expose === 'safe' && !['GET', 'HEAD', 'QUERY'].includes(endpoint.method)) return false;
  if (options.include !== undefined && !matches(endpoint, options.include)) return false;
  if (matches(endpoint, options.exclude)) return false;
  return !readsUploads(endpoint) && !streamsForever;
}

/** Hints from the method, exactly, with `mcp.annotations` merged over them. */
export function hints(endpoint: RegisteredEndpoint): Record<string, unknown> {
  const method = endpoint.method;
  const base: Record<string, unknown> =
    method === 'GET' || method === 'HEAD' || method === 'QUERY'
      ? { readOnlyHint: true }
      : method === 'PUT'
        ? { readOnlyHint: false, idempotentHint: true }
        : method === 'DELETE'
          ? { readOnlyHint: false, idempotentHint: true, destructiveHint: true }
          : method === 'POST' || method === 'PATCH'
            ? { readOnlyHint: false }
            : {};
  return { ...base, ...(toolOptions(endpoint)?.annotations ?? {}) };
}

/** The names taken so far, and whose they are: two tools with one name are an error naming both. */
export class ToolNames {
  private readonly taken = new Map<string, RegisteredEndpoint>();

  add(endpoint: RegisteredEndpoint, name: string): void {
    const other = this.taken.get(name);
    if (other !== undefined && other !== endpoint)
      throw new Error(`MCP tool "${name}" would name both ${where(other)} and ${where(endpoint)}: give one an mcp.name`);
    this.taken.set(name, endpoint);
  }
}

/** Checks a resource template against the endpoint's path parameters. */
export function checkResource(endpoint: RegisteredEndpoint): void {
  const template = toolOptions(endpoint)?.resource;
  if (template === undefined) return;
  if (endpoint.method !== 'GET') throw new Error(`${where(endpoint)}: mcp.resource is for GET endpoints`);
  for (const name of placeholders(template)) {
    if (!endpoint.pathParams.includes(name))
      throw new Error(`${where(endpoint)}: mcp.resource "${template}" names {${name}}, which is no path parameter`);
  }
}

export function placeholders(template: string): string[] {
  return [...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!.replace(/^[+#./;?&]/, ''));
}

// ——— Schemas, from the operation as the app documents it ———

type Document = {
  paths?: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, JsonSchema>; parameters?: Record<string, JsonSchema> };
};

/** Finds the documented operation of an endpoint by its operationId. */
function operationOf(document: Document, operationId: string): Record<string, unknown> | undefined {
  for (const item of Object.values(document.paths ?? {})) {
    for (const [key, operation] of Object.entries(item)) {
      if (key === 'parameters' || typeof operation !== 'object' || operation === null) continue;
      if ((operation as { operationId?: string }).operationId === operationId) return operation as Record<string, unknown>;
    }
  }
  return undefined;
}

/** Schemas as a tool carries them: component references made local (`#/$defs/…`), none at the root. */
class Definitions {
  readonly defs: Record<string, unknown> = {};
  constructor(private readonly components: Record<string, JsonSchema>) {}

  /** The schema with its root reference resolved and every other one made local. */
  root(schema: unknown): JsonSchema {
    const resolved = this.resolve(schema);
    return this.local(resolved) as JsonSchema;
  }

  resolve(schema: unknown): JsonSchema {
    let current = schema as JsonSchema;
    for (let i = 0; i < 32 && typeof current?.$ref === 'string'; i++) {
      current = this.components[componentName(current.$ref as string)] ?? {};
    }
    return current ?? {};
  }

  private local(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((item) => this.local(item));
    if (typeof value !== 'object' || value === null) return value;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string' && item.startsWith('#/components/schemas/')) {
        const name = componentName(item);
        out.$ref = `#/$defs/${name}`;
        if (!(name in this.defs)) {
          this.defs[name] = {};
          this.defs[name] = this.local(this.components[name] ?? {});
        }
      } else out[key] = this.local(item);
    }
    return out;
  }

  /** `schema` with the definitions it needs. */
  withDefs(schema: JsonSchema): JsonSchema {
    return Object.keys(this.defs).length === 0 ? schema : { ...schema, $defs: this.defs };
  }
}

function componentName(ref: string): string {
  return decodeURIComponent(ref.slice(ref.lastIndexOf('/') + 1));
}

function isObjectSchema(schema: JsonSchema): boolean {
  return schema.type === 'object' || (schema.type === undefined && typeof schema.properties === 'object');
}

/**
 * The tool of an endpoint, its schemas read from the app's OpenAPI operation: the parameters it
 * documents (path, query, header, cookie — the endpoint's and every dependency's) and its JSON body's
 * fields, spread as the body is bound (rule 4). Two inputs with one argument name are an error. An
 * endpoint that `expose` took but the document leaves out (its parameters cannot be documented) is
 * no tool (undefined); a marked one is an error.
 */
export function describeTool(endpoint: RegisteredEndpoint, document: Document): Tool | undefined {
  const name = toolName(endpoint);
  const options = endpoint.definition.options;
  const mcp = toolOptions(endpoint) ?? {};
  const operation = operationOf(document, endpoint.operationId);
  if (operation === undefined && toolOptions(endpoint) === undefined) return undefined;
  if (operation === undefined) throw new Error(`${where(endpoint)}: its operation is not in the OpenAPI document, so it cannot be a tool`);
  const definitions = new Definitions(document.components?.schemas ?? {});
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const args: Argument[] = [];
  const owners = new Map<string, string>();
  const add = (arg: Argument, schema: unknown, isRequired: boolean, description?: string) => {
    const other = owners.get(arg.name);
    if (other !== undefined)
      throw new Error(
        `${where(endpoint)}: the ${other} and the ${arg.in} parameter ${arg.wire} would share the tool argument "${arg.name}"`,
      );
    owners.set(arg.name, `${arg.in} parameter ${arg.wire}`);
    const local = definitions.root(schema ?? {});
    properties[arg.name] = description !== undefined && local.description === undefined ? { ...local, description } : local;
    if (isRequired) required.push(arg.name);
    args.push(arg);
  };
  const components = document.components?.parameters ?? {};
  for (const raw of (operation.parameters as JsonSchema[] | undefined) ?? []) {
    const parameter = (typeof raw.$ref === 'string' ? components[componentName(raw.$ref)] : raw) as
      | { name: string; in: Argument['in']; required?: boolean; schema?: unknown; description?: string }
      | undefined;
    if (parameter === undefined) continue;
    if (parameter.in === 'header' && CARRIED.test(parameter.name)) continue;
    const argName = parameter.in === 'header' ? parameter.name.toLowerCase().replace(/-/g, '_') : parameter.name;
    const rest = parameter.in === 'path' && endpoint.path.includes(`{${parameter.name}:path}`);
    add(
      { name: argName, in: parameter.in, wire: parameter.name, ...(rest ? { rest } : {}) },
      parameter.schema,
      parameter.required === true,
      parameter.description,
    );
  }
  const body = operation.requestBody as { required?: boolean; content?: Record<string, { schema?: unknown }> } | undefined;
  const jsonBody = body?.content?.['application/json']?.schema;
  let wholeBody: string | undefined;
  if (jsonBody !== undefined) {
    const resolved = definitions.resolve(jsonBody);
    if (isObjectSchema(resolved) && typeof resolved.properties === 'object') {
      const requiredFields = new Set((resolved.required as string[] | undefined) ?? []);
      for (const [field, schema] of Object.entries(resolved.properties as Record<string, unknown>)) {
        add({ name: field, in: 'body', wire: field }, schema, body?.required !== false && requiredFields.has(field));
      }
    } else {
      wholeBody = 'body';
      add({ name: 'body', in: 'body', wire: 'body' }, jsonBody, body?.required === true);
    }
  }
  const inputSchema: JsonSchema = { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
  const stream = options.events !== undefined || options.lines !== undefined;
  const outputSchema = stream
    ? {
        type: 'object',
        properties: { items: { type: 'array' }, truncated: { type: 'boolean' } },
        required: ['items'],
      }
    : outputOf(endpoint, operation, definitions);
  const tool: Tool = {
    name,
    endpoint,
    annotations: hints(endpoint),
    inputSchema: definitions.withDefs(inputSchema),
    arguments: args,
    readsBody: jsonBody !== undefined,
    stream,
  };
  if (outputSchema !== undefined) tool.outputSchema = definitions.withDefs(outputSchema);
  if (wholeBody !== undefined) tool.wholeBody = wholeBody;
  if (mcp.title !== undefined) tool.title = mcp.title;
  const description = mcp.description ?? options.description ?? options.summary;
  if (description !== undefined) tool.description = description;
  if (options.timeout !== undefined && durationMs('timeout', options.timeout) > 0) tool.timeoutMs = durationMs('timeout', options.timeout);
  if (mcp.resource !== undefined) {
    const inTemplate = new Set(placeholders(mcp.resource));
    for (const field of required) {
      if (!inTemplate.has(field))
        throw new Error(`${where(endpoint)}: mcp.resource "${mcp.resource}" lacks the required parameter {${field}}`);
    }
    tool.resource = mcp.resource;
  }
  return tool;
}

/** The success `response` model's schema, wrapped as `{ result }` when it is not an object. */
function outputOf(endpoint: RegisteredEndpoint, operation: Record<string, unknown>, definitions: Definitions): JsonSchema | undefined {
  const options = endpoint.definition.options;
  if (options.response === undefined) return undefined;
  const responses = operation.responses as Record<string, { content?: Record<string, { schema?: unknown }> }> | undefined;
  const schema = responses?.[String(options.statusCode ?? 200)]?.content?.['application/json']?.schema;
  if (schema === undefined) return undefined;
  let resolved = definitions.root(schema);
  if (!isObjectSchema(resolved)) return { type: 'object', properties: { result: resolved }, required: ['result'] };
  if (options.responseExcludeUnset === true && Array.isArray(resolved.required)) {
    // Only what the model requires without a default always comes out.
    const fields = (resolved.properties ?? {}) as Record<string, JsonSchema>;
    resolved = { ...resolved, required: (resolved.required as string[]).filter((field) => fields[field]?.default === undefined) };
  }
  return resolved;
}
