import { schemeKey, type SecurityRequirement } from '@fnapi/openapi';
import { z } from '@fnapi/validation';
import type { BuiltinRoute, RegisteredEndpoint } from '../serve/compile.js';
import { handlerMetadata } from '../serve/endpoint.js';
import type { DocumentSettings } from './openapi.js';
import { JSON_TYPE } from '../http/facts.js';
import { Response } from '../http/response.js';
import { webSocketOf } from '../ws/endpoint.js';

type Json = Record<string, unknown>;

/**
 * A schema as JSON Schema (draft 7, which AsyncAPI 3.0's default schema format extends), as zod writes
 * it: a schema registered under a name (`.meta({ id })`) comes as a `$ref` into `definitions`. What
 * the client sends (`input`) documents its objects closed (`additionalProperties: false`) as what the
 * server sends does: keys no schema names are dropped, never read. A schema that cannot be described
 * is documented as `{}`.
 */
function jsonSchemaOf(schema: unknown, io: 'input' | 'output'): Json {
  if (schema === undefined) return {};
  try {
    return z.toJSONSchema(schema as z.ZodType, {
      target: 'draft-7',
      io,
      unrepresentable: 'any',
      override(context) {
        const def = (context.zodSchema as { _zod?: { def?: { type?: string; catchall?: unknown } } })._zod?.def;
        const json = context.jsonSchema as Json;
        if (io === 'input' && def?.type === 'object' && def.catchall === undefined && json.additionalProperties === undefined)
          json.additionalProperties = false;
      },
    }) as Json;
  } catch {
    return {};
  }
}

function key(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]/g, '_');
}

/** `room_chat` → `RoomChat`: the name of a payload that has none of its own. */
function pascal(text: string): string {
  return key(text)
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part !== '')
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

/**
 * The document's `components.schemas`: every payload by name (a generator makes a named type of each,
 * never `AnonymousSchema_1`), and zod's `definitions` hoisted there with their `$ref`s rewritten. A name
 * is shared only by schemas written alike: a client's and a server's version of one model that differ
 * get `…Input` for the client's.
 */
class SchemaComponents {
  readonly schemas: Json = {};
  private readonly written = new Map<string, string>();

  /** The schema, its named parts moved to the components; the root named `name` when given, else inline. */
  add(schema: unknown, io: 'input' | 'output', name?: string): Json {
    const json = jsonSchemaOf(schema, io);
    delete json.$schema;
    const definitions = (json.definitions ?? {}) as Record<string, Json>;
    delete json.definitions;
    const renamed = new Map<string, string>();
    for (const [defName, definition] of Object.entries(definitions)) renamed.set(defName, this.claim(defName, definition, io));
    const rewrite = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(rewrite);
      if (value === null || typeof value !== 'object') return value;
      const out: Json = {};
      for (const [k, v] of Object.entries(value as Json)) {
        if (k === '$ref' && typeof v === 'string' && v.startsWith('#/definitions/')) {
          const target = v.slice('#/definitions/'.length);
          out.$ref = `#/components/schemas/${renamed.get(target) ?? key(target)}`;
        } else out[k] = rewrite(v);
      }
      return out;
    };
    for (const [defName, definition] of Object.entries(definitions)) this.schemas[renamed.get(defName)!] = rewrite(definition);
    const root = rewrite(json) as Json;
    if (typeof root.$ref === 'string' && Object.keys(root).length === 1) return root;
    if (name === undefined) return root;
    return { $ref: `#/components/schemas/${this.claim(name, root, io, true)}` };
  }

  /** A free name for this schema: its own, `…Input` for a client's that differs, else numbered. */
  private claim(preferred: string, schema: Json, io: 'input' | 'output', store = false): string {
    const text = JSON.stringify(schema);
    const base = key(preferred);
    const candidates = io === 'input' ? [base, `${base}Input`] : [base];
    for (let i = 2; ; i++) {
      for (const candidate of candidates) {
        const held = this.written.get(candidate);
        if (held === undefined || held === text) {
          this.written.set(candidate, text);
          if (store) this.schemas[candidate] = schema;
          return candidate;
        }
      }
      candidates.splice(0, candidates.length, `${base}${i}`);
    }
  }
}

/**
 * An OpenAPI security scheme as AsyncAPI 3.0 writes it: an API key in a header, query or cookie is
 * `httpApiKey`; OAuth 2 flows list `availableScopes`; mutual TLS is `X509`.
 */
function asyncapiScheme(scheme: Json): Json {
  const out: Json = { ...scheme };
  switch (scheme.type) {
    case 'apiKey':
      out.type = 'httpApiKey';
      break;
    case 'mutualTLS':
      out.type = 'X509';
      break;
    case 'oauth2': {
      const flows: Json = {};
      for (const [flow, value] of Object.entries((scheme.flows ?? {}) as Record<string, Json>)) {
        const { scopes, ...rest } = value;
        flows[flow] = { ...rest, availableScopes: scopes ?? {} };
      }
      out.flows = flows;
      break;
    }
  }
  return out;
}

/** The document's `components.securitySchemes`: schemes defined alike share a name; another under a taken name is numbered. */
class SecurityComponents {
  readonly schemes: Json = {};
  private readonly byName = new Map<string, string>();

  /** The operation's entry for one requirement: a reference, or the scheme itself when it names scopes. */
  entry(requirement: SecurityRequirement): Json {
    const scheme = asyncapiScheme(requirement.scheme);
    const definition = schemeKey(scheme);
    let name = key(requirement.name);
    for (let i = 2; this.byName.has(name) && this.byName.get(name) !== definition; i++) name = `${key(requirement.name)}${i}`;
    if (!this.byName.has(name)) {
      this.byName.set(name, definition);
      this.schemes[name] = scheme;
    }
    const scopes = requirement.scopes ?? [];
    // AsyncAPI 3.0 puts an operation's required scopes on the scheme object.
    if (scopes.length > 0 && (scheme.type === 'oauth2' || scheme.type === 'openIdConnect')) return { ...scheme, scopes };
    return { $ref: `#/components/securitySchemes/${name}` };
  }
}

/** The schemes an endpoint's guards require: one entry per scheme; AsyncAPI reads the list as "any one of". */
function securityOf(endpoint: RegisteredEndpoint, components: SecurityComponents): Json[] {
  const metadata = handlerMetadata(endpoint.definition.handler);
  const always = metadata?.security ?? [];
  const alternatives = metadata?.securityAlternatives?.length ? metadata.securityAlternatives : [[]];
  const seen = new Set<string>();
  const entries: Json[] = [];
  for (const alternative of alternatives) {
    for (const requirement of [...always, ...alternative]) {
      const entry = components.entry(requirement);
      const text = JSON.stringify(entry);
      if (seen.has(text)) continue;
      seen.add(text);
      entries.push(entry);
    }
  }
  return entries;
}

/** AsyncAPI 3.0 parameter values are strings. */
const text = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * A channel parameter as AsyncAPI 3.0 takes it — `description`, `enum`, `default` and `examples` from
 * its schema (as strings), since a parameter has no `schema` — with the whole schema as `x-schema`.
 */
function parameterOf(schema: unknown, components: SchemaComponents): Json {
  const json = schema === undefined ? { type: 'string' } : components.add(schema, 'input');
  const described = (typeof json.$ref === 'string' ? {} : json) as Json;
  const parameter: Json = {};
  const description = described.description ?? (schema as { description?: string } | undefined)?.description;
  if (typeof description === 'string') parameter.description = description;
  if (Array.isArray(described.enum)) parameter.enum = described.enum.map(text);
  else if (described.const !== undefined) parameter.enum = [text(described.const)];
  if (described.default !== undefined) parameter.default = text(described.default);
  if (Array.isArray(described.examples)) parameter.examples = described.examples.map(text);
  parameter['x-schema'] = json;
  return parameter;
}

/**
 * The AsyncAPI 3.0 document of an app's WebSocket endpoints: a channel per route (its address with
 * path parameters, its query parameters in the `ws` binding, its subprotocols as `x-protocols`), the
 * client's and the server's messages as the application's `receive` and `send` operations (each with
 * the security schemes of the guards it passes), and every payload a named component. Its `servers`
 * are added per request (`withServers`).
 */
export function describeWebSockets(settings: DocumentSettings, endpoints: Iterable<RegisteredEndpoint>): Json {
  const channels: Json = {};
  const operations: Json = {};
  const messages: Json = {};
  const schemas = new SchemaComponents();
  const security = new SecurityComponents();
  for (const endpoint of endpoints) {
    const ws = webSocketOf(endpoint.definition);
    if (ws === undefined) continue;
    const id = key(endpoint.operationId);
    const options = ws.options;
    const params = (options.params ?? {}) as Record<string, unknown>;
    const parameters: Json = {};
    for (const name of endpoint.pathParams) parameters[name] = parameterOf(params[name], schemas);
    const queryProperties: Json = {};
    const required: string[] = [];
    for (const [name, schema] of Object.entries(params)) {
      if (endpoint.pathParams.includes(name)) continue;
      queryProperties[name] = schemas.add(schema, 'input');
      if (!(schema as z.ZodType).safeParse?.(undefined).success) required.push(name);
    }
    const name = pascal(endpoint.operationId);
    messages[`${id}.receive`] = message(
      `${id}.receive`,
      'A message from the client',
      schemas.add(options.receive, 'input', `${name}Received`),
      options.receive !== undefined,
    );
    messages[`${id}.send`] = message(
      `${id}.send`,
      'A message from the server',
      schemas.add(options.send, 'output', `${name}Sent`),
      options.send !== undefined,
    );
    const channel: Json = {
      address: endpoint.path,
      messages: {
        receive: { $ref: `#/components/messages/${id}.receive` },
        send: { $ref: `#/components/messages/${id}.send` },
      },
    };
    if (Object.keys(parameters).length > 0) channel.parameters = parameters;
    if (options.summary !== undefined) channel.summary = options.summary;
    if (options.description !== undefined) channel.description = options.description;
    if (Object.keys(queryProperties).length > 0) {
      const query: Json = { type: 'object', properties: queryProperties };
      if (required.length > 0) query.required = required;
      channel.bindings = { ws: { query, bindingVersion: '0.1.0' } };
    }
    if (ws.protocols.length > 0) channel['x-protocols'] = [...ws.protocols];
    channels[id] = channel;
    const tags = endpoint.tags.length > 0 ? { tags: endpoint.tags.map((tag) => ({ name: tag })) } : {};
    const guarded = securityOf(endpoint, security);
    const secured = guarded.length > 0 ? { security: guarded } : {};
    operations[`${id}_receive`] = {
      action: 'receive',
      channel: { $ref: `#/channels/${id}` },
      summary: 'Messages the client sends',
      messages: [{ $ref: `#/channels/${id}/messages/receive` }],
      ...secured,
      ...tags,
    };
    operations[`${id}_send`] = {
      action: 'send',
      channel: { $ref: `#/channels/${id}` },
      summary: 'Messages the server sends',
      messages: [{ $ref: `#/channels/${id}/messages/send` }],
      ...secured,
      ...tags,
    };
  }
  const info: Json = { title: settings.title, version: settings.version };
  if (settings.description !== undefined) info.description = settings.description;
  const components: Json = { schemas: schemas.schemas, messages };
  if (Object.keys(security.schemes).length > 0) components.securitySchemes = security.schemes;
  return { asyncapi: '3.0.0', info, defaultContentType: JSON_TYPE, channels, operations, components };
}

function message(name: string, summary: string, payload: Json, json: boolean): Json {
  const out: Json = { name, summary, payload };
  if (!json) out.contentType = 'text/plain';
  return out;
}

/**
 * The document with its `servers`: each of the API's `servers` (a relative one on the request's
 * origin), else the request's origin, as AsyncAPI's `host`, `pathname` and `protocol` (`ws`, or `wss`
 * for https). Without an origin (the document asked for outside a request) a relative server is left out.
 */
export function withServers(document: Json, servers: readonly { url: string; description?: string }[] | undefined, origin?: string): Json {
  const out: Json = {};
  const list = servers?.length ? servers : origin === undefined ? [] : [{ url: '/' }];
  const described: Json = {};
  list.forEach((server, index) => {
    let url: URL;
    try {
      url = new URL(server.url, origin);
    } catch {
      return;
    }
    const entry: Json = { host: url.host, protocol: url.protocol === 'https:' || url.protocol === 'wss:' ? 'wss' : 'ws' };
    const pathname = url.pathname.replace(/\/+$/, '');
    if (pathname !== '') entry.pathname = pathname;
    if (server.description !== undefined) entry.description = server.description;
    described[list.length === 1 ? 'default' : `server${index + 1}`] = entry;
  });
  for (const [name, value] of Object.entries(document)) {
    out[name] = value;
    if (name === 'info' && Object.keys(described).length > 0) out.servers = described;
  }
  return out;
}

/** `/asyncapi.json` (or `asyncapiUrl`) when the app has WebSocket endpoints; none when null. */
export function asyncapiBuiltins(
  url: string | null | undefined,
  hasWebSockets: boolean,
  document: (origin: string) => Json,
): BuiltinRoute[] {
  if (url === null || !hasWebSockets) return [];
  return [
    {
      path: url ?? '/asyncapi.json',
      run: (request) => new Response(document(request.url.origin), { mediaType: JSON_TYPE, headers: { 'cache-control': 'no-cache' } }),
    },
  ];
}
