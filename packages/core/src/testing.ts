import { Pool } from 'undici';
import type { InjectResponse } from './server/inject.js';
import { runNodeServer, type RunningServer } from './server/node.js';
import type { Runtime } from './runtime-contract.js';

export type { InjectOptions, InjectResponse } from './server/inject.js';

export interface TestRequestOptions {
  headers?: Record<string, string | string[]>;
  /** Sent as JSON with `content-type: application/json`. */
  json?: unknown;
  /** Sent as it is. */
  body?: string | Uint8Array;
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
  ) {}

  /** Serves any `Runtime` (an `API`) on an ephemeral loopback port. */
  static async start(app: Runtime): Promise<TestClient> {
    // Startup runs on the first request, as on every transport: a failing one answers 503, then retries.
    const server = await runNodeServer(app, { host: '127.0.0.1', port: 0, handleSignals: false }, true);
    return new TestClient(server, new Pool(server.url, { connections: 16 }));
  }

  get url(): string {
    return this.server.url;
  }

  async request(method: string, path: string, options: TestRequestOptions = {}): Promise<TestResponse> {
    const headers: Record<string, string | string[]> = { ...options.headers };
    let body: string | Uint8Array | undefined = options.body;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    }
    let target = path;
    if (options.query) {
      const search = new URLSearchParams();
      for (const [key, value] of Object.entries(options.query)) {
        for (const item of Array.isArray(value) ? value : [value]) search.append(key, String(item));
      }
      target += `${path.includes('?') ? '&' : '?'}${search}`;
    }
    const response = await this.pool.request({
      method: method.toUpperCase() as 'GET',
      path: target,
      headers,
      body,
      signal: options.signal,
    });
    const text = await response.body.text();
    const out: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) out[name] = value;
    return { status: response.statusCode, headers: out, body: text, json: <T>() => JSON.parse(text) as T };
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

  async close(): Promise<void> {
    await this.pool.close();
    await this.server.close();
  }
}
