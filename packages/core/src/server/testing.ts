import { Pool } from 'undici';
import type { InjectResponse } from './inject.js';
import { runNodeServer, type RunningServer } from './node.js';
import { type Runtime, runtimeOf, type Servable } from '../serve/runtime-contract.js';
import type { Dependency } from '../serve/dependency.js';
import { CLIENT_OVERRIDES, type ClientOverridesHandle, markRequest, type Replacement } from '../serve/overrides.js';

import { connectTestSocket, type TestSocketOptions, type TestWebSocket } from '../ws/test-client.js';

export type { InjectOptions, InjectResponse } from './inject.js';
export { TestWebSocket, WebSocketRefusedError, type TestSocketOptions } from '../ws/test-client.js';

export interface TestClientOptions<
  O extends readonly (readonly [Dependency<any>, unknown])[] = readonly (readonly [Dependency<any>, unknown])[],
> {
  /** `[[dependency, replacement], …]`: replacements for this client's requests only, each of its dependency's type. */
  overrides?: O & CheckedOverrides<O>;
}

/** Each `[dependency, replacement]` pair, its replacement checked against the dependency's type. */
type CheckedOverrides<O> = {
  readonly [K in keyof O]: O[K] extends readonly [Dependency<infer T>, unknown] ? readonly [Dependency<T>, Replacement<T>] : O[K];
};

/** The app's runtime, with every request it serves marked as this client's (its overrides apply). */
function servingWith(runtime: Runtime, overrides: ClientOverridesHandle): Runtime {
  const serving = Object.create(runtime) as Runtime;
  serving.serve = (request, deliver, context) => {
    markRequest(request, overrides);
    runtime.serve(request, deliver, context);
  };
  return serving;
}

export interface TestRequestOptions {
  headers?: Record<string, string | string[]>;
  /** Sent as JSON with `content-type: application/json`. */
  json?: unknown;
  /** Sent as it is. */
  body?: string | Uint8Array;
  /** Sent as a browser sends a form: `FormData` as multipart/form-data, `URLSearchParams` urlencoded. */
  form?: FormData | URLSearchParams;
  /** Appended to the path as a query string. */
  query?: Record<string, string | number | boolean | (string | number | boolean)[]>;
  signal?: AbortSignal;
}

/** The same shape `app.inject()` resolves to. */
export type TestResponse = InjectResponse;

/**
 * Real HTTP against an app on an ephemeral loopback port, sent through undici.
 *
 * ```ts
 * const client = await TestClient.start(app);
 * const res = await client.get('/hello/Ada');
 * await client.close();
 * ```
 */
export class TestClient {
  private constructor(
    readonly server: RunningServer,
    private readonly pool: Pool,
    private readonly overrides?: ClientOverridesHandle,
  ) {}

  /**
   * Serves an app on an ephemeral loopback port. `overrides` (`[[dependency, replacement], …]`)
   * replace dependencies for this client's requests only; an `'app'` replacement is made once for the
   * client and closed with it.
   */
  static async start<const O extends readonly (readonly [Dependency<any>, unknown])[] = []>(
    app: Servable,
    options: TestClientOptions<O> = {},
  ): Promise<TestClient> {
    let runtime = runtimeOf(app);
    let overrides: ClientOverridesHandle | undefined;
    if (options.overrides !== undefined && options.overrides.length > 0) {
      const make = (app as { [CLIENT_OVERRIDES]?: (pairs: readonly (readonly [Dependency, unknown])[]) => ClientOverridesHandle })[
        CLIENT_OVERRIDES
      ];
      if (typeof make !== 'function') throw new TypeError('TestClient.start: overrides need an API');
      overrides = make.call(app, options.overrides);
      runtime = servingWith(runtime, overrides);
    }
    // Startup runs on the first request, as on every transport: a failing one answers 503, then retries.
    const server = await runNodeServer(runtime, { host: '127.0.0.1', port: 0, handleSignals: false }, true);
    return new TestClient(server, new Pool(server.url, { connections: 16 }), overrides);
  }

  get url(): string {
    return this.server.url;
  }

  async request(method: string, path: string, options: TestRequestOptions = {}): Promise<TestResponse> {
    const response = await this.send(method, path, options);
    const text = await response.body.text();
    return { status: response.statusCode, headers: headersOf(response), body: text, json: <T>() => JSON.parse(text) as T };
  }

  /**
   * Sends a request and returns as soon as the headers arrive, with the body still streaming:
   * read it chunk by chunk, as server-sent events (`events()`) or as JSON Lines (`lines()`).
   */
  async stream(path: string, options: TestRequestOptions & { method?: string } = {}): Promise<TestStream> {
    const response = await this.send(options.method ?? 'GET', path, options);
    return new TestStream(response.statusCode, headersOf(response), response.body);
  }

  private async send(method: string, path: string, options: TestRequestOptions) {
    const headers: Record<string, string | string[]> = { ...options.headers };
    let body: string | Uint8Array | undefined = options.body;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    }
    if (options.form !== undefined) {
      // The Web encoder picks the boundary and the content type, as a browser would.
      const encoded = new globalThis.Response(options.form);
      body = new Uint8Array(await encoded.arrayBuffer());
      headers['content-type'] = encoded.headers.get('content-type')!;
    }
    let target = path;
    if (options.query) {
      const search = new URLSearchParams();
      for (const [key, value] of Object.entries(options.query)) {
        for (const item of Array.isArray(value) ? value : [value]) search.append(key, String(item));
      }
      target += `${path.includes('?') ? '&' : '?'}${search}`;
    }
    return this.pool.request({ method: method.toUpperCase() as 'GET', path: target, headers, body, signal: options.signal });
  }

  get(path: string, options?: TestRequestOptions) {
    return this.request('GET', path, options);
  }
  head(path: string, options?: TestRequestOptions) {
    return this.request('HEAD', path, options);
  }
  options(path: string, options?: TestRequestOptions) {
    return this.request('OPTIONS', path, options);
  }
  delete(path: string, options?: TestRequestOptions) {
    return this.request('DELETE', path, options);
  }
  post(path: string, options?: TestRequestOptions) {
    return this.request('POST', path, options);
  }
  put(path: string, options?: TestRequestOptions) {
    return this.request('PUT', path, options);
  }
  patch(path: string, options?: TestRequestOptions) {
    return this.request('PATCH', path, options);
  }
  /** `QUERY`: a safe request with a body. */
  query(path: string, options?: TestRequestOptions) {
    return this.request('QUERY', path, options);
  }

  /**
   * Opens a WebSocket to `path` on the served app; resolves once open, or rejects with a
   * `WebSocketRefusedError` carrying the HTTP answer when the upgrade is refused.
   */
  ws(path: string, options?: TestSocketOptions): Promise<TestWebSocket> {
    return connectTestSocket(this.url, path, options);
  }

  async close(): Promise<void> {
    await this.pool.close();
    await this.server.close();
    await this.overrides?.close();
  }
}

function headersOf(response: { headers: Record<string, string | string[] | undefined> }): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) out[name] = value;
  return out;
}

/** One server-sent event as a client sees it. */
export interface ReceivedEvent {
  event: string;
  data: string;
  id: string | undefined;
  retry: number | undefined;
}

/** A response whose body is read as it arrives (`TestClient.stream`). */
export class TestStream {
  private readonly decoder = new TextDecoder();
  private readonly iterator: AsyncIterator<Uint8Array>;
  constructor(
    readonly status: number,
    readonly headers: Record<string, string | string[]>,
    private readonly body: AsyncIterable<Uint8Array> & { destroy(error?: Error): unknown },
  ) {
    this.iterator = body[Symbol.asyncIterator]();
  }

  /** The next chunk of text as received; undefined at the end. */
  async chunk(): Promise<string | undefined> {
    const next = await this.iterator.next();
    return next.done ? undefined : this.decoder.decode(next.value, { stream: true });
  }

  /** The body's events (comments such as `: ping` are skipped). */
  async *events(): AsyncGenerator<ReceivedEvent> {
    let buffer = '';
    for (let text = await this.chunk(); text !== undefined; text = await this.chunk()) {
      buffer += text.replace(/\r\n?/g, '\n');
      for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = parseEvent(block);
        if (event) yield event;
      }
    }
  }

  /** The body's JSON Lines, parsed. */
  async *lines(): AsyncGenerator<unknown> {
    let buffer = '';
    for (let text = await this.chunk(); text !== undefined; text = await this.chunk()) {
      buffer += text;
      for (let end = buffer.indexOf('\n'); end !== -1; end = buffer.indexOf('\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        if (line.trim() !== '') yield JSON.parse(line);
      }
    }
  }

  /** Goes away: closes the connection without reading the rest. */
  close(): void {
    this.body.destroy();
  }
}

/** One event block of `text/event-stream`, as the HTML standard parses it; undefined for comments only. */
export function parseEvent(block: string): ReceivedEvent | undefined {
  const data: string[] = [];
  let event = 'message';
  let id: string | undefined;
  let retry: number | undefined;
  let any = false;
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    any = true;
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    else if (field === 'id') id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) retry = Number(value);
  }
  return any ? { event, data: data.join('\n'), id, retry } : undefined;
}
