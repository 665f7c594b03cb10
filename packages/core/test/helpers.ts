/**
 * Shared test helpers: one request description sent through the three ways of serving an app
 * (real HTTP through `TestClient`, `app.inject`, `app.fetch`), answered in one normalised shape.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { API, Middleware } from '../src/index.js';
import { TestClient } from '../src/server/testing.js';

export type TransportName = 'http' | 'inject' | 'fetch';
export const TRANSPORTS: readonly TransportName[] = ['http', 'inject', 'fetch'];

export interface Call {
  method?: string;
  /** Path with an optional query string. */
  path: string;
  headers?: Record<string, string>;
  /** Sent as it is (no content type is added). */
  body?: string | Uint8Array;
  /** Sent as JSON with `content-type: application/json`. */
  json?: unknown;
}

export interface Reply {
  status: number;
  /** The content-type header, or null when absent. */
  contentType: string | null;
  /** Lower-case names; repeated headers joined with `, `, except `set-cookie`, always an array. */
  headers: Record<string, string | string[]>;
  body: string;
  json<T = any>(): T;
}

function header(headers: Record<string, string | string[]>, name: string): string | null {
  const value = headers[name];
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}

function reply(status: number, headers: Record<string, string | string[]>, body: string): Reply {
  const normalised: Record<string, string | string[]> = {};
  // Repeated headers are joined as the Web `Headers` class does; only Set-Cookie stays a list.
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase();
    normalised[key] = key === 'set-cookie' ? (Array.isArray(value) ? value : [value]) : Array.isArray(value) ? value.join(', ') : value;
  }
  return {
    status,
    contentType: header(normalised, 'content-type'),
    headers: normalised,
    body,
    json: () => JSON.parse(body),
  };
}

function prepare(call: Call): { method: string; headers: Record<string, string>; body: string | Uint8Array | undefined } {
  const method = (call.method ?? 'GET').toUpperCase();
  const headers: Record<string, string> = { ...call.headers };
  let body = call.body;
  if (call.json !== undefined) {
    body = JSON.stringify(call.json);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  }
  return { method, headers, body };
}

/** Sends one request through `app.inject`. */
export async function viaInject(app: API, call: Call): Promise<Reply> {
  const { method, headers, body } = prepare(call);
  const res = await app.inject({ method, url: call.path, headers, body });
  return reply(res.status, res.headers, res.body);
}

/** Sends one request through `app.fetch` (bodies as bytes, so no content type is implied). */
export async function viaFetch(app: API, call: Call, signal?: AbortSignal): Promise<Reply> {
  const { method, headers, body } = prepare(call);
  const request = new Request(`http://localhost${call.path}`, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? Buffer.from(body) : new Uint8Array(body),
    signal,
  });
  const res = await app.fetch(request);
  const out: Record<string, string | string[]> = {};
  res.headers.forEach((value, name) => {
    if (name !== 'set-cookie') out[name] = value;
  });
  const cookies = res.headers.getSetCookie();
  if (cookies.length > 0) out['set-cookie'] = cookies;
  return reply(res.status, out, await res.text());
}

/** Sends one request as real HTTP through a running `TestClient`. */
export async function viaHttp(client: TestClient, call: Call): Promise<Reply> {
  const { method, headers, body } = prepare(call);
  const res = await client.request(method, call.path, { headers, body });
  return reply(res.status, res.headers, res.body);
}

export interface Served {
  readonly app: API;
  readonly client: TestClient;
  send(transport: TransportName, call: Call): Promise<Reply>;
  /** The same request through all three transports, in the order of `TRANSPORTS`. */
  sendAll(call: Call): Promise<Reply[]>;
}

/** Builds the app once per file, starts it on an ephemeral port, closes it after the file's tests. */
export function serve(build: () => API): Served {
  let app: API | undefined;
  let client: TestClient | undefined;
  beforeAll(async () => {
    app = build();
    client = await TestClient.start(app);
  });
  afterAll(async () => {
    await client?.close();
  });
  const served: Served = {
    get app() {
      if (!app) throw new Error('app not built yet');
      return app;
    },
    get client() {
      if (!client) throw new Error('client not started yet');
      return client;
    },
    send(transport, call) {
      switch (transport) {
        case 'http':
          return viaHttp(served.client, call);
        case 'inject':
          return viaInject(served.app, call);
        case 'fetch':
          return viaFetch(served.app, call);
      }
    },
    async sendAll(call) {
      const out: Reply[] = [];
      for (const transport of TRANSPORTS) out.push(await served.send(transport, call));
      return out;
    },
  };
  return served;
}

/** One row of a transport table. */
export interface Case {
  name: string;
  call: Call;
  status: number;
  /** Expected parsed JSON body (exact). */
  json?: unknown;
  /** Expected raw body (exact). */
  text?: string;
  /** Expected content-type; `null` for none. Defaults to JSON / problem JSON by status. */
  contentType?: string | null;
  /** Expected headers (exact values). */
  headers?: Record<string, string | string[] | null>;
  /** Extra assertions on each transport's reply. */
  check?: (reply: Reply, transport: TransportName) => void;
  /** What of the body the transports must agree on, when it legitimately differs (stack traces). */
  comparable?: (reply: Reply) => unknown;
}

export const JSON_TYPE = 'application/json';
export const PROBLEM_TYPE = 'application/problem+json';
export const TEXT_TYPE = 'text/plain; charset=utf-8';
export const HTML_TYPE = 'text/html; charset=utf-8';

function expectedContentType(c: Case): string | null {
  if (c.contentType !== undefined) return c.contentType;
  return c.status >= 400 ? PROBLEM_TYPE : JSON_TYPE;
}

function assertCase(c: Case, r: Reply, transport: TransportName): void {
  const where = `${transport}: ${c.call.method ?? 'GET'} ${c.call.path} → ${r.status} ${r.body}`;
  expect(r.status, where).toBe(c.status);
  expect(r.contentType, where).toBe(expectedContentType(c));
  if (c.json !== undefined) expect(r.json(), where).toEqual(c.json);
  if (c.text !== undefined) expect(r.body, where).toBe(c.text);
  for (const [name, value] of Object.entries(c.headers ?? {})) {
    expect(r.headers[name] ?? null, `${where} [${name}]`).toEqual(value);
  }
  c.check?.(r, transport);
}

/**
 * Runs every case through every transport (one test each), then checks that the three transports
 * agree on status, content type and body.
 */
export function runTable(served: Served, cases: readonly Case[]): void {
  for (const transport of TRANSPORTS) {
    describe(`via ${transport}`, () => {
      it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
        assertCase(c, await served.send(transport, c.call), transport);
      });
    });
  }
  describe('the transports agree', () => {
    it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
      const [http, ...others] = await served.sendAll(c.call);
      const view = (r: Reply) => ({
        status: r.status,
        contentType: r.contentType,
        body: c.comparable ? c.comparable(r) : r.body,
      });
      for (const [i, other] of others.entries()) {
        expect(view(other), `${TRANSPORTS[i + 1]} vs http`).toEqual(view(http!));
      }
    });
  });
}

/** The 422 body API.md documents, with the given issues. */
export function validationBody(errors: { in: string; path: (string | number)[]; message: string; code: string }[]) {
  return {
    type: 'about:blank',
    title: 'Unprocessable Content',
    status: 422,
    detail: 'Request validation failed',
    errors,
  };
}

export function problem(status: number, title: string, detail: string, extra: Record<string, unknown> = {}) {
  return { type: 'about:blank', title, status, detail, ...extra };
}

/** A problem body without its debug stack (which names transport-specific frames). */
export function withoutStack(reply: Reply): unknown {
  const body = reply.json();
  if (body && typeof body === 'object' && body.debug) delete body.debug.stack;
  return body;
}

export const GENERIC_500 = problem(500, 'Internal Server Error', 'An unexpected error occurred');

export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Resolves with the promise's value, or rejects after `ms` milliseconds. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Runs `fn` with a sender for one transport of a freshly built app (starting a server for HTTP). */
export async function withTransport(
  app: API,
  transport: TransportName,
  fn: (send: (call: Call) => Promise<Reply>) => Promise<void>,
): Promise<void> {
  if (transport === 'inject') return fn((call) => viaInject(app, call));
  if (transport === 'fetch') return fn((call) => viaFetch(app, call));
  const client = await TestClient.start(app);
  try {
    await fn((call) => viaHttp(client, call));
  } finally {
    await client.close();
  }
}

/** Middleware that records its name on the way in and out, in a shared log, and in `x-through`. */
export function recorder(name: string, log: string[]): Middleware {
  return async (request, callNext) => {
    log.push(`${name}:in`);
    const response = await callNext(request);
    log.push(`${name}:out`);
    response.headers.append('x-through', name);
    return response;
  };
}

/** Sends raw bytes over a socket and returns everything the server answers until it closes or `ms` pass. */
export function rawExchange(url: string, payload: string, ms = 2000): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(received);
    }, ms);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      received += chunk;
      // One complete response is enough.
      if (/\r\n\r\n/.test(received) && /content-length: 0\r\n|\r\n\r\n[\s\S]+$/i.test(received)) {
        clearTimeout(timer);
        socket.destroy();
        resolve(received);
      }
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      if (received) resolve(received);
      else reject(error);
    });
    socket.write(payload);
  });
}
