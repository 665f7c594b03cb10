import { type Request, Response } from '@fnapi/core';
import {
  addTransportRoute,
  type Extensible,
  type Extension,
  type Guard,
  handlerMetadata,
  MCP_RUNTIME,
  problemDetails,
  problemResponse,
  provide,
  type RegisteredEndpoint,
  routeGuards,
  statusOf,
  watchEndpoints,
} from '@fnapi/core/extend';
import { afterAnswer, answer, type Runtime, runtimeOf, type Servable } from '@fnapi/core/transport';
import {
  createMcpHandler,
  fromJsonSchema,
  type McpHttpHandler,
  type McpRequestContext,
  McpServer,
  ProtocolError,
  ResourceNotFoundError,
  ResourceTemplate,
  type StandardSchemaWithJSON,
} from '@modelcontextprotocol/server';
import { answerBytes, base64, type CallContext, callTool, headerOf, toolRequest, type ToolResult } from './call.js';
import { checkResource, describeTool, isTool, type SelectionOptions, type Tool, ToolNames, toolName } from './catalogue.js';

/** An auth function's result (`jwtRequired(…)`), whose scheme authenticates a request. */
interface AuthWrapperLike {
  readonly scheme: { authenticate(request: Request): Promise<unknown>; security?: Array<Array<{ scopes?: string[] }>> };
}

export interface McpOptions extends SelectionOptions {
  /** The server's name in the protocol's `serverInfo`; default the app's title. */
  name?: string;
  /** The server's version; default the app's version. */
  version?: string;
  title?: string;
  /** Instructions for the model, sent to clients. */
  instructions?: string;
  /** Where the Streamable HTTP endpoint is served; default `/mcp`. */
  path?: string;
  /**
   * OAuth 2.1 authorization servers: serves RFC 9728 metadata at
   * `/.well-known/oauth-protected-resource<path>` and points a Bearer challenge there.
   */
  authorizationServers?: readonly string[];
  /** Required for every request to the MCP endpoint, lists included: a guard, or an auth function (`jwtRequired(…)`). */
  guard?: Guard | AuthWrapperLike;
  /** Browser origins allowed besides a request's own (answered with CORS headers). */
  allowedOrigins?: readonly string[];
  /** Hosts accepted besides `localhost`, `127.0.0.1` and `[::1]` when the app listens on a loopback address. */
  allowedHosts?: readonly string[];
  /** Most items an `events`/`lines` tool collects; default 1,000. */
  maxItems?: number;
}

/** The app as `mcp()` uses it: served, documented, extended. */
type McpApp = Servable &
  Extensible & {
    readonly title: string;
    readonly version: string;
    openapi(): Record<string, unknown>;
    onShutdown(callback: () => unknown): unknown;
    onStartup(callback: () => unknown): unknown;
  };

const decoder = new TextDecoder();
const BUN_JSON = /^application\/json;\s*charset=utf-8$/i;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const CORS_HEADERS = 'content-type, authorization, mcp-protocol-version, mcp-method, mcp-name, last-event-id';

/** The app's endpoints as MCP tools: `app.extend(mcp({ name: 'shop', version: '1.0.0' }))`. */
export function mcp(options: McpOptions = {}): McpExtension {
  return new McpExtension(options);
}

/** A tool as the SDK takes it: the endpoint validates its own arguments, so the SDK passes them through. */
function passThrough(schema: Record<string, unknown>): StandardSchemaWithJSON<Record<string, unknown>> {
  return {
    '~standard': {
      version: 1,
      vendor: 'fnapi',
      validate: (value: unknown) => ({ value: (value ?? {}) as Record<string, unknown> }),
      jsonSchema: { input: () => schema, output: () => schema },
    },
  } as StandardSchemaWithJSON<Record<string, unknown>>;
}

interface Catalogue {
  tools: Map<string, Tool>;
  /** Each tool's schemas as the SDK takes them, made once. */
  input: Map<string, StandardSchemaWithJSON<Record<string, unknown>>>;
  output: Map<string, StandardSchemaWithJSON>;
  resources: Tool[];
  /**
   * Servers of this catalogue between exchanges, by era: registering every tool and template costs
   * more than the call itself, so an instance whose exchange has closed serves the next one.
   */
  idle: { modern: McpServer[]; legacy: McpServer[] };
}

/** Most idle servers kept per era: enough for the requests a process serves at once. */
const IDLE_SERVERS = 16;

export class McpExtension implements Extension {
  readonly path: string;
  private app: McpApp | undefined;
  private runtime: Runtime | undefined;
  private readonly selected = new Map<RegisteredEndpoint, string>();
  private readonly names = new ToolNames();
  private current: Catalogue | undefined;
  private handler: McpHttpHandler | undefined;
  /** The fnapi request each Web request the SDK serves came from. */
  private readonly exchanges = new WeakMap<globalThis.Request, Request>();
  private readonly guard: Guard | undefined;
  private readonly maxItems: number;

  constructor(private readonly options: McpOptions) {
    const path = options.path ?? '/mcp';
    if (!path.startsWith('/')) throw new Error(`mcp({ path }) starts with "/": got "${path}"`);
    this.path = path;
    this.maxItems = options.maxItems ?? 1000;
    if (!(this.maxItems >= 1)) throw new RangeError(`mcp({ maxItems }) is at least 1, got ${options.maxItems}`);
    const guard = options.guard;
    if (guard !== undefined) {
      const scheme = (guard as Partial<AuthWrapperLike>).scheme;
      this.guard =
        scheme !== undefined && typeof scheme.authenticate === 'function'
          ? async (request) => {
              request.auth = (await scheme.authenticate(request)) as Request['auth'];
            }
          : (guard as Guard);
    }
  }

  attach(app: unknown): void {
    const target = app as McpApp;
    this.app = target;
    this.runtime = runtimeOf(target);
    watchEndpoints(target, (endpoints) => {
      for (const endpoint of endpoints) {
        if (!isTool(endpoint, this.options)) continue;
        const name = toolName(endpoint);
        checkResource(endpoint);
        this.names.add(endpoint, name);
        this.selected.set(endpoint, name);
      }
      this.current = undefined;
    });
    addTransportRoute(target, { path: this.path, serve: (request) => this.serve(request) });
    if (this.options.authorizationServers !== undefined) {
      addTransportRoute(target, { path: `/.well-known/oauth-protected-resource${this.path}`, serve: (request) => this.metadata(request) });
    }
    provide(target, MCP_RUNTIME, {
      path: this.path,
      server: () => this.server(),
      catalogue: () => this.list(),
    });
    // The catalogue is built from the document before the first request, so a mistake fails startup.
    target.onStartup(() => {
      this.catalogue();
    });
    target.onShutdown(() => this.handler?.close());
  }

  /** The tools, described from the app's document (built once, again after new endpoints). */
  catalogue(): Catalogue {
    if (this.current !== undefined) return this.current;
    const document = this.app!.openapi();
    const tools = new Map<string, Tool>();
    const input = new Map<string, StandardSchemaWithJSON<Record<string, unknown>>>();
    const output = new Map<string, StandardSchemaWithJSON>();
    const resources: Tool[] = [];
    for (const endpoint of this.selected.keys()) {
      const tool = describeTool(endpoint, document);
      if (tool === undefined) continue;
      tools.set(tool.name, tool);
      input.set(tool.name, passThrough(tool.inputSchema));
      if (tool.outputSchema !== undefined) output.set(tool.name, fromJsonSchema(tool.outputSchema as never));
      if (tool.resource !== undefined) resources.push(tool);
    }
    this.current = { tools, input, output, resources, idle: { modern: [], legacy: [] } };
    return this.current;
  }

  /**
   * The server for one HTTP exchange: an idle one of the current catalogue, else a new one that goes
   * back to the idle ones when its exchange closes. The SDK refuses an instance still serving, and
   * every exchange sets what the protocol makes per request (the era's version, the client's
   * identity), so only a legacy instance that served an `initialize` (client state) is let go.
   */
  private exchangeServer(context: McpRequestContext): McpServer {
    const catalogue = this.catalogue();
    const era = context.era === 'modern' ? 'modern' : 'legacy';
    const idle = catalogue.idle[era];
    const ready = idle.pop();
    if (ready !== undefined) return ready;
    const server = this.server();
    const low = server.server;
    low.onclose = () => {
      if (this.current !== catalogue || low.transport !== undefined || idle.length >= IDLE_SERVERS || idle.includes(server)) return;
      if (era === 'legacy' && (low.getClientVersion() !== undefined || low.getClientCapabilities() !== undefined)) return;
      idle.push(server);
    };
    return server;
  }

  /** A server with the tools and resource templates registered on the SDK's `McpServer` (stdio, or an exchange). */
  server(): McpServer {
    const catalogue = this.catalogue();
    const app = this.app!;
    const server = new McpServer(
      {
        name: this.options.name ?? app.title,
        version: this.options.version ?? app.version,
        ...(this.options.title ? { title: this.options.title } : {}),
      },
      {
        capabilities: {
          tools: { listChanged: false },
          ...(catalogue.resources.length > 0 ? { resources: { listChanged: false } } : {}),
        },
        ...(this.options.instructions !== undefined ? { instructions: this.options.instructions } : {}),
      },
    );
    for (const tool of catalogue.tools.values()) {
      const outputSchema = catalogue.output.get(tool.name);
      server.registerTool(
        tool.name,
        {
          ...(tool.title !== undefined ? { title: tool.title } : {}),
          ...(tool.description !== undefined ? { description: tool.description } : {}),
          inputSchema: catalogue.input.get(tool.name)!,
          ...(outputSchema !== undefined ? { outputSchema } : {}),
          annotations: tool.annotations,
        },
        (async (
          args: Record<string, unknown>,
          ctx: {
            mcpReq: { id: string | number; signal: AbortSignal; _meta?: Record<string, unknown>; notify(n: unknown): Promise<void> };
            http?: { req?: globalThis.Request };
          },
        ) => {
          const token = ctx.mcpReq._meta?.progressToken as string | number | undefined;
          const traceparent = ctx.mcpReq._meta?.traceparent;
          // One shape for every call's context (no spread of conditional literals on the hot path).
          const context: CallContext = {
            via: this.via(ctx),
            signal: ctx.mcpReq.signal,
            maxItems: this.maxItems,
            traceparent: typeof traceparent === 'string' ? traceparent : undefined,
            attributes: { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': tool.name, 'jsonrpc.request.id': ctx.mcpReq.id },
            progress:
              token === undefined
                ? undefined
                : // An instance serves later exchanges: a call whose exchange has closed sends nothing more.
                  (count: number, item: unknown) =>
                    !ctx.mcpReq.signal.aborted &&
                    void ctx.mcpReq
                      .notify({
                        method: 'notifications/progress',
                        params: { progressToken: token, progress: count, message: JSON.stringify(item) },
                      })
                      .catch(() => {}),
          };
          return callTool(this.runtime!, tool, args ?? {}, context) as Promise<ToolResult>;
        }) as never,
      );
    }
    for (const tool of catalogue.resources) {
      server.registerResource(
        tool.name,
        new ResourceTemplate(tool.resource!, { list: undefined }),
        {
          ...(tool.title !== undefined ? { title: tool.title } : {}),
          ...(tool.description !== undefined ? { description: tool.description } : {}),
          mimeType: 'application/json',
        },
        async (uri, variables, ctx) => this.read(tool, uri.href, variables as Record<string, string | string[]>, this.via(ctx)),
      );
    }
    return server;
  }

  /** The fnapi request an SDK handler's exchange came from; none over stdio. */
  private via(ctx: { http?: { req?: globalThis.Request } | undefined }): Request | undefined {
    const web = ctx.http?.req;
    return web === undefined ? undefined : this.exchanges.get(web);
  }

  /** `resources/read`: the endpoint run as a call is, its JSON as text or its bytes as a blob. */
  private async read(tool: Tool, uri: string, variables: Record<string, string | string[]>, via: Request | undefined) {
    const args: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(variables)) args[name] = Array.isArray(value) ? value.join(',') : value;
    const request = toolRequest(this.runtime!, tool, args, {
      ...(via !== undefined ? { via } : {}),
      maxItems: this.maxItems,
      attributes: { 'mcp.method.name': 'resources/read', 'gen_ai.tool.name': tool.name },
    });
    if (typeof request === 'string') throw new ResourceNotFoundError(uri);
    const out = await answer(this.runtime!, request);
    try {
      const bytes = await answerBytes(out, this.runtime!.limits.bodyLimit);
      if (bytes === 'too-large')
        throw new ProtocolError(-32603, `The answer is larger than the body limit (${this.runtime!.limits.bodyLimit} bytes)`);
      if (out.status === 404) throw new ResourceNotFoundError(uri);
      if (out.status < 200 || out.status >= 300) {
        const text = new TextDecoder().decode(bytes);
        throw new ProtocolError(-32603, `${tool.name} answered ${out.status}`, safeJson(text));
      }
      const type = (headerOf(out, 'content-type') ?? 'application/json').split(';')[0]!.trim();
      if (type === 'application/json' || type.startsWith('text/'))
        return { contents: [{ uri, mimeType: type, text: new TextDecoder().decode(bytes) }] };
      return { contents: [{ uri, mimeType: type, blob: base64(bytes) }] };
    } finally {
      void afterAnswer(request);
    }
  }

  /** The catalogue as `tools/list` and `resources/templates/list` give it. */
  async list(): Promise<{ tools: unknown[]; resourceTemplates: unknown[] }> {
    const catalogue = this.catalogue();
    const tools = [...catalogue.tools.values()].map((tool) => ({
      name: tool.name,
      ...(tool.title !== undefined ? { title: tool.title } : {}),
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      inputSchema: tool.inputSchema,
      ...(tool.outputSchema !== undefined ? { outputSchema: tool.outputSchema } : {}),
      annotations: tool.annotations,
    }));
    const resourceTemplates = catalogue.resources.map((tool) => ({
      name: tool.name,
      uriTemplate: tool.resource,
      ...(tool.title !== undefined ? { title: tool.title } : {}),
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      mimeType: 'application/json',
    }));
    return { tools, resourceTemplates };
  }

  private sdk(): McpHttpHandler {
    return (this.handler ??= createMcpHandler((context) => this.exchangeServer(context), {
      legacy: 'stateless',
      maxRequestBodySize: this.runtime!.limits.bodyLimit,
      onerror: (error) => this.runtime!.logger.debug({ err: error }, 'MCP request refused'),
    }));
  }

  /**
   * The MCP endpoint, answered before plugins and middleware: Origin and Host checks, the `guard`, the
   * guards of the tool a `tools/call` names (their 401/403 is the HTTP answer), then the SDK.
   */
  private async serve(request: Request): Promise<globalThis.Response | Response> {
    const origin = request.headers.get('origin');
    const allowed = origin !== null && this.options.allowedOrigins?.includes(origin) === true;
    if (origin !== null && !allowed && origin !== request.url.origin) {
      return problemResponse(problemDetails(403, `Origin ${origin} may not use this MCP endpoint`));
    }
    if (this.loopback(request)) {
      const host = hostname(request.headers.get('host') ?? '');
      if (!LOOPBACK.has(host) && this.options.allowedHosts?.includes(host) !== true) {
        return problemResponse(problemDetails(403, `Host ${host} is not served here`));
      }
    }
    if (request.method === 'OPTIONS' && allowed) {
      return new globalThis.Response(null, {
        status: 204,
        headers: {
          'access-control-allow-origin': origin,
          'access-control-allow-methods': 'POST, GET, DELETE',
          'access-control-allow-headers': CORS_HEADERS,
          'access-control-max-age': '600',
          vary: 'origin',
        },
      });
    }
    let bytes: Uint8Array | undefined;
    let parsed: unknown;
    if (request.method === 'POST') {
      bytes = await request.bytes();
      try {
        parsed = JSON.parse(decoder.decode(bytes));
      } catch {
        // The SDK answers malformed JSON with its own error.
      }
    }
    if (this.guard !== undefined) await this.challenge(request, () => this.guard!(request));
    const guards = this.toolGuards(parsed);
    if (guards.length > 0) {
      try {
        await this.challenge(request, async () => {
          for (const guard of guards) await guard(request);
        });
      } catch (error) {
        const status = statusOf(error);
        // Only a refusal of the guard itself answers the exchange; anything else is the call's isError.
        if (status === 401 || status === 403) throw error;
      }
    }
    const web = parsed !== undefined ? exchangeOf(request) : webRequest(request, bytes);
    this.exchanges.set(web, request);
    const response = await this.sdk().fetch(web, parsed !== undefined ? { parsedBody: parsed } : undefined);
    const type = response.headers.get('content-type') ?? '';
    // Bun's `Response.json` adds a charset that JSON has no use for: every runtime answers alike.
    const mediaType = BUN_JSON.test(type) ? 'application/json' : type || undefined;
    // A whole JSON answer is sent as its bytes; a stream (SSE) as it comes.
    if (!type.startsWith('application/json') || response.body === null) {
      const out = new Headers();
      response.headers.forEach((value, name) => {
        if (name !== 'content-type' && name !== 'content-length') out.append(name, value);
      });
      if (allowed) cors(out, origin);
      if (type !== '') out.set('content-type', mediaType!);
      return new globalThis.Response(response.body, { status: response.status, headers: out });
    }
    const body = new Uint8Array(await response.arrayBuffer());
    const answer = new Response(body, { statusCode: response.status, mediaType: mediaType! });
    // The SDK's other headers, if any; a JSON answer usually has none, and then none are copied.
    response.headers.forEach((value, name) => {
      if (name !== 'content-type' && name !== 'content-length') answer.headers.append(name, value);
    });
    if (allowed) cors(answer.headers, origin);
    return answer;
  }

  /** Runs a guard; its Bearer challenge points at the resource metadata when there is some. */
  private async challenge(request: Request, run: () => unknown): Promise<void> {
    try {
      await run();
    } catch (error) {
      const servers = this.options.authorizationServers;
      const headers = (error as { headers?: Record<string, string> }).headers;
      const current = headers?.['www-authenticate'] ?? headers?.['WWW-Authenticate'];
      if (
        servers !== undefined &&
        headers !== undefined &&
        current !== undefined &&
        /^bearer\b/i.test(current) &&
        !current.includes('resource_metadata')
      ) {
        const url = `${request.url.origin}/.well-known/oauth-protected-resource${this.path}`;
        headers['www-authenticate'] = `${current}${/^bearer\s*$/i.test(current) ? ' ' : ', '}resource_metadata="${url}"`;
        delete headers['WWW-Authenticate'];
      }
      throw error;
    }
  }

  /** The guards of the tool (or resource) a message names; none for anything else. */
  private toolGuards(message: unknown): readonly Guard[] {
    if (typeof message !== 'object' || message === null || Array.isArray(message)) return [];
    const { method, params } = message as { method?: unknown; params?: { name?: unknown; uri?: unknown } };
    const catalogue = this.catalogue();
    if (method === 'tools/call' && typeof params?.name === 'string') {
      const tool = catalogue.tools.get(params.name);
      return tool === undefined ? [] : routeGuards(tool.endpoint);
    }
    if (method === 'resources/read' && typeof params?.uri === 'string') {
      const scheme = params.uri.slice(0, params.uri.indexOf(':') + 1);
      const tool = catalogue.resources.find((candidate) => candidate.resource!.startsWith(scheme));
      return tool === undefined ? [] : routeGuards(tool.endpoint);
    }
    return [];
  }

  /** Whether fnapi itself listens on a loopback address for this request (`app.run`, `TestClient`). */
  private loopback(request: Request): boolean {
    const address = request.client.address;
    return address !== undefined && (address === '::1' || address.startsWith('127.') || address === '::ffff:127.0.0.1');
  }

  /** RFC 9728 protected resource metadata. */
  private metadata(request: Request): globalThis.Response {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return new globalThis.Response(null, { status: 405, headers: { allow: 'GET, HEAD' } });
    }
    const scopes = new Set<string>();
    const collect = (alternatives: Array<Array<{ scopes?: string[] }>> | undefined) => {
      for (const requirement of (alternatives ?? []).flat()) for (const scope of requirement.scopes ?? []) scopes.add(scope);
    };
    for (const tool of this.catalogue().tools.values()) {
      // The handler's auth wrappers and the guard dependencies the endpoint reaches (app, routers, its own).
      for (const metadata of [handlerMetadata(tool.endpoint.definition.handler), ...(tool.endpoint.plan?.documentation.guards ?? [])]) {
        collect(metadata?.securityAlternatives as never);
        collect([(metadata?.security ?? []) as never]);
      }
    }
    collect((this.options.guard as Partial<AuthWrapperLike> | undefined)?.scheme?.security);
    const body = {
      resource: `${request.url.origin}${this.path}`,
      authorization_servers: this.options.authorizationServers,
      scopes_supported: [...scopes],
      bearer_methods_supported: ['header'],
    };
    return new globalThis.Response(JSON.stringify(body), {
      status: 200,
      headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=3600', 'access-control-allow-origin': '*' },
    });
  }
}

/**
 * The exchange as the SDK reads a request it is handed with its body already parsed: method, URL,
 * headers (`get`) and the client's signal, read from fnapi's request rather than copied into a new one.
 * A class, so that every exchange's view has one shape.
 */
class ExchangeView {
  readonly method: string;
  readonly headers: Request['headers'];
  constructor(private readonly request: Request) {
    this.method = request.method;
    this.headers = request.headers;
  }
  get url(): string {
    return this.request.url.href;
  }
  get signal(): AbortSignal {
    return this.request.signal;
  }
}

function exchangeOf(request: Request): globalThis.Request {
  return new ExchangeView(request) as unknown as globalThis.Request;
}

/** Lets `origin` read the answer (an allowed browser origin). */
function cors(headers: { set(name: string, value: string): unknown; append(name: string, value: string): unknown }, origin: string): void {
  headers.set('access-control-allow-origin', origin);
  headers.set('access-control-expose-headers', 'www-authenticate, mcp-protocol-version');
  headers.append('vary', 'origin');
}

/** A Web request with the body bytes, for the SDK to read (and refuse) a body that is not JSON. */
function webRequest(request: Request, bytes: Uint8Array | undefined): globalThis.Request {
  const headers = new Headers();
  for (const [name, value] of request.headers) headers.append(name, value);
  return new globalThis.Request(request.url.href, {
    method: request.method,
    headers,
    ...(bytes !== undefined ? { body: bytes as BodyInit } : {}),
  });
}

function hostname(host: string): string {
  const value = host.toLowerCase();
  if (value.startsWith('[')) return value.slice(0, value.indexOf(']') + 1);
  const colon = value.lastIndexOf(':');
  return colon === -1 ? value : value.slice(0, colon);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
