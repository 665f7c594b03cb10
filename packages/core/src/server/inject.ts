import type { Runtime } from '../serve/runtime-contract.js';
import { afterAnswer, answer } from '../wire/answer.js';
import { concatBytes, utf8Length, utf8Text } from '../platform/platform.js';
import { requestFrom } from '../wire/request-from.js';
import { toChunk } from '../wire/serialize.js';

export interface InjectOptions {
  method?: string;
  /** Path with an optional query string, e.g. `/search?query=x`. */
  url: string;
  headers?: Record<string, string | string[]>;
  /** A string or bytes are sent as they are; anything else as JSON (with its content type). */
  body?: unknown;
}

export interface InjectResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body: string;
  json<T = unknown>(): T;
}

export async function inject(app: Runtime, options: InjectOptions): Promise<InjectResponse> {
  const method = (options.method ?? 'GET').toUpperCase();
  const url = options.url.startsWith('/') ? options.url : `/${options.url}`;
  const q = url.indexOf('?');
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
  let body: string | Uint8Array | undefined;
  if (options.body !== undefined) {
    if (typeof options.body === 'string' || options.body instanceof Uint8Array) body = options.body;
    else {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    headers['content-length'] = String(typeof body === 'string' ? utf8Length(body) : body.byteLength);
  }
  headers.host ??= 'localhost';
  const request = requestFrom({
    method,
    path: q === -1 ? url : url.slice(0, q),
    query: q === -1 ? '' : url.slice(q + 1),
    headers,
    body,
    client: { address: '127.0.0.1' },
    bodyLimit: app.limits.bodyLimit,
  });
  const out = await answer(app, request);
  const responseHeaders: Record<string, string | string[]> = {};
  for (let i = 0; i < out.headers.length; i += 2) {
    const name = String(out.headers[i]);
    const value = String(out.headers[i + 1]);
    const current = responseHeaders[name];
    if (current === undefined) responseHeaders[name] = value;
    else responseHeaders[name] = Array.isArray(current) ? [...current, value] : [current, value];
  }
  let text = '';
  if (out.stream !== undefined) {
    const parts: Uint8Array[] = [];
    for await (const chunk of out.stream as AsyncIterable<string | Uint8Array>) parts.push(toChunk(chunk));
    text = utf8Text(concatBytes(parts));
  } else if (out.body !== null) {
    text = typeof out.body === 'string' ? out.body : utf8Text(out.body);
  }
  afterAnswer(request);
  return {
    status: out.status,
    headers: responseHeaders,
    body: text,
    json: <T>() => JSON.parse(text) as T,
  };
}
