import { z } from '@fnapi/validation';
import type { BuiltinRoute, RegisteredEndpoint } from '../serve/compile.js';
import type { DocumentSettings } from './openapi.js';
import { JSON_TYPE } from '../http/facts.js';
import { Response } from '../http/response.js';
import { webSocketOf } from '../ws/endpoint.js';

/**
 * A message schema as JSON Schema (draft 7, which AsyncAPI 3.0's default schema format extends): the
 * one place the AsyncAPI document turns a schema into JSON Schema. A schema that cannot be described
 * is documented as `{}`.
 */
export function messageJsonSchema(schema: unknown, io: 'input' | 'output'): Record<string, unknown> {
  if (schema === undefined) return {};
  try {
    const json = z.toJSONSchema(schema as z.ZodType, { target: 'draft-7', io, unrepresentable: 'any' }) as Record<string, unknown>;
    delete json.$schema;
    return json;
  } catch {
    return {};
  }
}

function key(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]/g, '_');
}

/**
 * The AsyncAPI 3.0 document of an app's WebSocket endpoints: a channel per route (its address with
 * path parameters, its query parameters in the `ws` binding), and the client's and the server's
 * messages as the application's `receive` and `send` operations.
 */
export function describeWebSockets(settings: DocumentSettings, endpoints: Iterable<RegisteredEndpoint>): Record<string, unknown> {
  const channels: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  for (const endpoint of endpoints) {
    const ws = webSocketOf(endpoint.definition);
    if (ws === undefined) continue;
    const id = key(endpoint.operationId);
    const options = ws.options;
    const params = (options.params ?? {}) as Record<string, unknown>;
    const parameters: Record<string, unknown> = {};
    for (const name of endpoint.pathParams) {
      const description = (params[name] as { description?: string } | undefined)?.description;
      parameters[name] = description === undefined ? {} : { description };
    }
    const queryProperties: Record<string, unknown> = {};
    const required: string[] = [];
    for (const [name, schema] of Object.entries(params)) {
      if (endpoint.pathParams.includes(name)) continue;
      queryProperties[name] = messageJsonSchema(schema, 'input');
      if (!(schema as z.ZodType).safeParse?.(undefined).success) required.push(name);
    }
    const messages: Record<string, unknown> = {
      receive: message(
        `${id}.receive`,
        'A message from the client',
        messageJsonSchema(options.receive, 'input'),
        options.receive !== undefined,
      ),
      send: message(`${id}.send`, 'A message from the server', messageJsonSchema(options.send, 'output'), options.send !== undefined),
    };
    const channel: Record<string, unknown> = { address: endpoint.path, messages };
    if (Object.keys(parameters).length > 0) channel.parameters = parameters;
    if (options.summary !== undefined) channel.summary = options.summary;
    if (options.description !== undefined) channel.description = options.description;
    if (Object.keys(queryProperties).length > 0) {
      const query: Record<string, unknown> = { type: 'object', properties: queryProperties };
      if (required.length > 0) query.required = required;
      channel.bindings = { ws: { query, bindingVersion: '0.1.0' } };
    }
    channels[id] = channel;
    const tags = endpoint.tags.length > 0 ? { tags: endpoint.tags.map((name) => ({ name })) } : {};
    operations[`${id}_receive`] = {
      action: 'receive',
      channel: { $ref: `#/channels/${id}` },
      summary: 'Messages the client sends',
      messages: [{ $ref: `#/channels/${id}/messages/receive` }],
      ...tags,
    };
    operations[`${id}_send`] = {
      action: 'send',
      channel: { $ref: `#/channels/${id}` },
      summary: 'Messages the server sends',
      messages: [{ $ref: `#/channels/${id}/messages/send` }],
      ...tags,
    };
  }
  const info: Record<string, unknown> = { title: settings.title, version: settings.version };
  if (settings.description !== undefined) info.description = settings.description;
  return { asyncapi: '3.0.0', info, defaultContentType: JSON_TYPE, channels, operations };
}

function message(name: string, summary: string, payload: Record<string, unknown>, json: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { name, summary, payload };
  if (!json) out.contentType = 'text/plain';
  return out;
}

/** `/asyncapi.json` (or `asyncapiUrl`) when the app has WebSocket endpoints; none when null. */
export function asyncapiBuiltins(
  url: string | null | undefined,
  hasWebSockets: boolean,
  document: () => Record<string, unknown>,
): BuiltinRoute[] {
  if (url === null || !hasWebSockets) return [];
  return [
    {
      path: url ?? '/asyncapi.json',
      run: () => new Response(document(), { mediaType: JSON_TYPE, headers: { 'cache-control': 'no-cache' } }),
    },
  ];
}
