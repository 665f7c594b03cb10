import type { Request } from '@fnapi/core';
import { isTextContentType, problemDetails, setSpanAttributes } from '@fnapi/core/extend';
import { afterAnswer, answer, closeStream, type Runtime, requestFrom, type Serialized, toChunk } from '@fnapi/core/transport';
import type { Tool } from './catalogue.js';

/** What a tool call knows of the MCP exchange it answers. */
export interface CallContext {
  /** The MCP request (HTTP), whose headers the call carries; none over stdio. */
  via?: Request;
  /** Aborts the call (the client cancelled or went away). */
  signal?: AbortSignal;
  /** Called for each streamed item when the client asked for progress. */
  progress?: (count: number, item: unknown) => void;
  maxItems: number;
  /** Span attributes for the call's request (`mcp.method.name`, `gen_ai.tool.name`, `jsonrpc.request.id`). */
  attributes?: Record<string, string | number>;
  /** `params._meta.traceparent`, which the call's request continues in place of the HTTP one. */
  traceparent?: string;
}

/** A tool's result, as the protocol's `CallToolResult`. */
export interface ToolResult {
  [key: string]: unknown;
  content: Array<Record<string, unknown>>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** Headers of the MCP request that are the exchange's own, never passed to a tool call. */
const EXCHANGE_HEADERS = new Set([
  'cookie',
  'content-length',
  'content-type',
  'transfer-encoding',
  'accept',
  'accept-encoding',
  'connection',
  'keep-alive',
  'expect',
  'upgrade',
  'origin',
  'mcp-method',
  'mcp-name',
  'mcp-protocol-version',
  'mcp-session-id',
  'last-event-id',
]);

const encoder = new TextEncoder();

/**
 * A tool's arguments as the request the endpoint takes: path, query, header, cookie and body, with
 * the MCP request's own headers (its credentials, request id, trace context) but not its cookies.
 */
export function toolRequest(runtime: Runtime, tool: Tool, args: Record<string, unknown>, context: CallContext): Request | string {
  const endpoint = tool.endpoint;
  let path = endpoint.path;
  const query: string[] = [];
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  const body: Record<string, unknown> = {};
  let whole: unknown;
  const via = context.via;
  if (via !== undefined) {
    const raw = via.headers.raw;
    for (const name in raw) {
      const value = raw[name];
      if (value === undefined || EXCHANGE_HEADERS.has(name)) continue;
      headers[name] = typeof value === 'string' ? value : value.join(', ');
    }
  }
  if (context.traceparent !== undefined) headers.traceparent = context.traceparent;
  for (const arg of tool.arguments) {
    const value = args[arg.name];
    if (arg.in === 'path') {
      if (value === undefined || value === null || value === '') return arg.name;
      const text = scalar(value);
      const encoded = arg.rest ? text.split('/').map(encodeURIComponent).join('/') : encodeURIComponent(text);
      path = path.replace(new RegExp(`\\{${arg.wire}(:path)?\\}`), () => encoded);
      continue;
    }
    if (value === undefined) continue;
    if (arg.in === 'query') {
      for (const item of Array.isArray(value) ? value : [value])
        query.push(`${encodeURIComponent(arg.wire)}=${encodeURIComponent(scalar(item))}`);
    } else if (arg.in === 'header') headers[arg.wire.toLowerCase()] = Array.isArray(value) ? value.map(scalar).join(', ') : scalar(value);
    else if (arg.in === 'cookie') cookies.push(`${arg.wire}=${encodeURIComponent(scalar(value))}`);
    else if (tool.wholeBody !== undefined) whole = value;
    else body[arg.wire] = value;
  }
  if (cookies.length > 0) headers.cookie = cookies.join('; ');
  headers.host ??= 'localhost';
  let bytes: Uint8Array | undefined;
  if (tool.readsBody) {
    bytes = encoder.encode(JSON.stringify(tool.wholeBody !== undefined ? (whole ?? null) : body));
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(bytes.byteLength);
  }
  const signal = context.signal;
  const request = requestFrom({
    method: endpoint.method,
    path,
    query: query.join('&'),
    headers,
    ...(bytes !== undefined ? { body: bytes } : {}),
    ...(via !== undefined ? { client: via.client, protocol: via.url.protocol === 'https:' ? 'https' : 'http' } : { client: {} }),
    ...(signal !== undefined
      ? {
          onDisconnect: (abort: (reason: unknown) => void) => {
            if (signal.aborted) abort(signal.reason);
            else signal.addEventListener('abort', () => abort(signal.reason), { once: true });
          },
        }
      : {}),
    bodyLimit: runtime.limits.bodyLimit,
  });
  if (context.attributes !== undefined) setSpanAttributes(request, context.attributes);
  return request;
}

function scalar(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}

/** Runs a tool: its request through the app's runtime, in process, and the answer as a tool result. */
export async function callTool(runtime: Runtime, tool: Tool, args: Record<string, unknown>, context: CallContext): Promise<ToolResult> {
  const request = toolRequest(runtime, tool, args, context);
  if (typeof request === 'string') {
    const missing = { in: 'path', path: [request], message: `the path parameter ${request} is required`, code: 'invalid_type' };
    return errorResult({ ...problemDetails(422, 'Request validation failed'), errors: [missing] });
  }
  const out = await answer(runtime, request);
  try {
    return await resultOf(runtime, tool, request, out, context);
  } finally {
    void afterAnswer(request);
  }
}

/** The answer of a call as the bytes and the media type it carries (streams read to the end). */
export async function answerBytes(out: Serialized, limit: number): Promise<Uint8Array | 'too-large'> {
  if (out.stream === undefined) {
    if (out.body === null) return new Uint8Array(0);
    const bytes = typeof out.body === 'string' ? encoder.encode(out.body) : out.body;
    return bytes.byteLength > limit ? 'too-large' : bytes;
  }
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of out.stream as AsyncIterable<string | Uint8Array>) {
    const bytes = toChunk(chunk);
    size += bytes.byteLength;
    if (size > limit) {
      await closeStream(out.stream);
      return 'too-large';
    }
    parts.push(bytes);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.byteLength;
  }
  return all;
}

export function headerOf(out: Serialized, name: string): string | undefined {
  for (let i = 0; i < out.headers.length; i += 2) if (String(out.headers[i]).toLowerCase() === name) return String(out.headers[i + 1]);
  return undefined;
}

async function resultOf(runtime: Runtime, tool: Tool, request: Request, out: Serialized, context: CallContext): Promise<ToolResult> {
  const type = (headerOf(out, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const success = out.status >= 200 && out.status < 300;
  if (success && tool.stream && out.stream !== undefined) return collect(out, type, tool, context);
  const limit = runtime.limits.bodyLimit;
  const json = type === 'application/json' || type.endsWith('+json');
  // A JSON answer rendered as text is taken as it is, not encoded to bytes and decoded back.
  if (success && json && typeof out.body === 'string' && out.body !== '' && Number(headerOf(out, 'content-length')) <= limit) {
    return jsonResult(out.body);
  }
  const bytes = await answerBytes(out, limit);
  if (bytes === 'too-large') {
    return errorResult(problemDetails(502, `The answer is larger than the body limit (${limit} bytes)`));
  }
  if (!success) {
    const text = new TextDecoder().decode(bytes);
    let problem: Record<string, unknown>;
    try {
      problem = JSON.parse(text) as Record<string, unknown>;
    } catch {
      problem = problemDetails(out.status, text || undefined) as Record<string, unknown>;
    }
    return errorResult(problem);
  }
  if (bytes.byteLength === 0) return { content: [] };
  if (json) return jsonResult(new TextDecoder().decode(bytes));
  if (type.startsWith('image/')) return { content: [{ type: 'image', data: base64(bytes), mimeType: type }] };
  if (isTextContentType(type)) {
    const text = new TextDecoder().decode(bytes);
    return { content: [{ type: 'text', text }], structuredContent: { result: text } };
  }
  return {
    content: [{ type: 'resource', resource: { uri: request.url.href, mimeType: type || 'application/octet-stream', blob: base64(bytes) } }],
  };
}

/** A JSON answer as the tool's result: the value (`{ result }` when not an object) and the same JSON as text. */
function jsonResult(text: string): ToolResult {
  const value = JSON.parse(text) as unknown;
  return { content: [{ type: 'text', text }], structuredContent: isObject(value) ? value : { result: value } };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An error status as the tool's result: the problem body, and its title and detail as text. */
export function errorResult(problem: Record<string, unknown>): ToolResult {
  const lines = [[problem.title, problem.detail].filter((part) => typeof part === 'string' && part !== '').join(': ')];
  if (Array.isArray(problem.errors)) {
    for (const issue of problem.errors as Array<{ path?: unknown[]; message?: string }>) {
      lines.push(`${(issue.path ?? []).join('.') || '(input)'}: ${issue.message ?? 'invalid'}`);
    }
  }
  return { content: [{ type: 'text', text: lines.join('\n') }], structuredContent: problem, isError: true };
}

/** An `events`/`lines` answer's items collected, each announced as progress; stopped at `maxItems` or the timeout. */
async function collect(out: Serialized, type: string, tool: Tool, context: CallContext): Promise<ToolResult> {
  const items: unknown[] = [];
  let truncated = false;
  const iterator = (out.stream as AsyncIterable<string | Uint8Array>)[Symbol.asyncIterator]();
  const decoder = new TextDecoder();
  const sse = type === 'text/event-stream';
  let buffer = '';
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    if (tool.timeoutMs !== undefined) timer = setTimeout(() => resolve('timeout'), tool.timeoutMs);
  });
  const push = (item: unknown) => {
    items.push(item);
    context.progress?.(items.length, item);
  };
  try {
    outer: while (true) {
      const next = await Promise.race([iterator.next(), timedOut]);
      if (next === 'timeout') {
        truncated = true;
        break;
      }
      if (next.done) break;
      buffer += decoder.decode(toChunk(next.value), { stream: true });
      const separator = sse ? /\r?\n\r?\n/ : /\r?\n/;
      let match = separator.exec(buffer);
      while (match !== null) {
        const piece = buffer.slice(0, match.index);
        buffer = buffer.slice(match.index + match[0].length);
        const item = sse ? eventItem(piece) : piece.trim() === '' ? undefined : { value: JSON.parse(piece) as unknown };
        if (item !== undefined) {
          push(item.value);
          if (items.length >= context.maxItems) {
            truncated = true;
            break outer;
          }
        }
        match = separator.exec(buffer);
      }
    }
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    void iterator.return?.();
  }
  return {
    content: [{ type: 'text', text: JSON.stringify(items) }],
    structuredContent: truncated ? { items, truncated: true } : { items },
  };
}

/** One server-sent event's item: its data (JSON), with its name when it has one; comments are none. */
function eventItem(block: string): { value: unknown } | undefined {
  const data: string[] = [];
  let event: string | undefined;
  for (const line of block.split(/\r?\n/)) {
    if (line.startsWith('data:')) data.push(line.slice(line[5] === ' ' ? 6 : 5));
    else if (line.startsWith('event:')) event = line.slice(6).trim();
  }
  if (data.length === 0) return undefined;
  const text = data.join('\n');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = text;
  }
  return { value: event === undefined ? value : { event, data: value } };
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Base64 of bytes, on every runtime. */
export function base64(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]! + ALPHABET[n & 63]!;
  }
  if (i < bytes.length) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8);
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + (i + 1 < bytes.length ? ALPHABET[(n >> 6) & 63]! : '=') + '=';
  }
  return out;
}
