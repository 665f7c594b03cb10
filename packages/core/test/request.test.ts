/**
 * The Request object as middleware and handlers see it, through all three transports.
 */
import { describe, expect, it } from 'vitest';
import { API, Request, z } from '../src/index.js';
import { type Case, runTable, serve, TRANSPORTS } from './helpers.js';

function build(): API {
  const app = new API({ logger: false });
  // Reads the body before the handler, and leaves something in state.
  app.addMiddleware(async (request, callNext) => {
    if (request.path.startsWith('/inspect')) {
      request.state.seenByMiddleware = await request.json();
      request.state.order = ['middleware'];
    }
    return callNext(request);
  });
  app.post('/inspect/{kind}/{id}', { params: { id: z.int() } }, async ({ kind, id }, request) => {
    const first = await request.json();
    const second = await request.json();
    const text = await request.text();
    const bytes = await request.bytes();
    (request.state.order as string[]).push('handler');
    return {
      input: { kind, id },
      sameJson: first === second,
      json: first,
      text,
      bytes: { length: bytes.byteLength, isUint8Array: bytes instanceof Uint8Array, first: bytes[0] },
      method: request.method,
      path: request.path,
      url: { pathname: request.url.pathname, search: request.url.search, isURL: request.url instanceof URL },
      queryParams: {
        isURLSearchParams: request.queryParams instanceof URLSearchParams,
        tag: request.queryParams.getAll('tag'),
        q: request.queryParams.get('q'),
        missing: request.queryParams.get('missing'),
      },
      pathParams: request.pathParams,
      route: request.route,
      headers: {
        lower: request.headers.get('x-custom'),
        upper: request.headers.get('X-CUSTOM'),
        mixed: request.headers.get('X-Custom'),
        has: request.headers.has('X-Custom'),
        hasNot: request.headers.has('x-absent'),
        absent: request.headers.get('x-absent'),
        iterated: [...request.headers].filter(([name]) => name === 'x-custom'),
      },
      cookies: request.cookies,
      state: request.state,
    };
  });
  app.get('/client', (_input, request) => ({
    address: request.client.address ?? null,
    hasPort: typeof request.client.port === 'number',
  }));
  app.get('/cookies', (_input, request) => request.cookies);
  app.get('/method', (_input, request) => ({ method: request.method, aborted: request.signal.aborted }));
  app.post('/raw', async (_input, request) => {
    const bytes = await request.bytes();
    return { hex: Buffer.from(bytes).toString('hex'), text: await request.text() };
  });
  app.post('/json-empty', async (_input, request) => request.json());
  app.post('/json-bad', async (_input, request) => request.json());
  return app;
}

const payload = { hello: 'wörld', list: [1, 2] };
const payloadText = JSON.stringify(payload);

const cases: Case[] = [
  {
    name: 'every member of the request',
    call: {
      method: 'POST',
      path: '/inspect/book/42?tag=a&tag=b&q=x%20y',
      headers: { 'X-Custom': 'value', cookie: 'session=abc; theme=dark%20mode' },
      json: payload,
    },
    status: 200,
    json: {
      input: { kind: 'book', id: 42 },
      sameJson: true,
      json: payload,
      text: payloadText,
      bytes: { length: Buffer.byteLength(payloadText), isUint8Array: true, first: '{'.charCodeAt(0) },
      method: 'POST',
      path: '/inspect/book/42',
      url: { pathname: '/inspect/book/42', search: '?tag=a&tag=b&q=x%20y', isURL: true },
      queryParams: { isURLSearchParams: true, tag: ['a', 'b'], q: 'x y', missing: null },
      pathParams: { kind: 'book', id: '42' },
      route: '/inspect/{kind}/{id}',
      headers: {
        lower: 'value',
        upper: 'value',
        mixed: 'value',
        has: true,
        hasNot: false,
        absent: null,
        iterated: [['x-custom', 'value']],
      },
      cookies: { session: 'abc', theme: 'dark mode' },
      state: { seenByMiddleware: payload, order: ['middleware', 'handler'] },
    },
  },
  {
    name: 'pathParams are raw strings, percent-decoded',
    call: { method: 'POST', path: '/inspect/a%20b/7', json: {} },
    status: 200,
    check: (reply) => expect(reply.json().pathParams).toEqual({ kind: 'a b', id: '7' }),
  },
  { name: 'no Cookie header is no cookies', call: { path: '/cookies' }, status: 200, json: {} },
  { name: 'method is upper-case', call: { path: '/method' }, status: 200, json: { method: 'GET', aborted: false } },
  {
    name: 'bytes() and text() are the raw body',
    call: { method: 'POST', path: '/raw', body: 'plain text, not JSON', headers: { 'content-type': 'text/plain' } },
    status: 200,
    json: { hex: Buffer.from('plain text, not JSON').toString('hex'), text: 'plain text, not JSON' },
  },
  {
    name: 'json() of an empty body is 400',
    call: { method: 'POST', path: '/json-empty', headers: { 'content-type': 'application/json' } },
    status: 400,
    json: { type: 'about:blank', title: 'Bad Request', status: 400, detail: 'Request body is empty; expected JSON' },
  },
  {
    name: 'json() of a malformed body is 400',
    call: { method: 'POST', path: '/json-bad', headers: { 'content-type': 'application/json' }, body: '[1,' },
    status: 400,
    check: (reply) => expect(reply.json().detail).toMatch(/^Malformed JSON body: /),
  },
];

describe('the Request object', () => {
  const served = serve(build);
  runTable(served, cases);

  it.each(TRANSPORTS)('client.address where known (%s)', async (transport) => {
    const res = await served.send(transport, { path: '/client' });
    expect(res.status).toBe(200);
    const expected = {
      http: { address: '127.0.0.1', hasPort: true },
      inject: { address: '127.0.0.1', hasPort: false },
      // A Web Request carries no peer address.
      fetch: { address: null, hasPort: false },
    }[transport];
    expect(res.json()).toEqual(expected);
  });

  it('request.url is built from the Host header', async () => {
    const app = new API({ logger: false });
    app.get('/where', (_input, request) => ({ href: request.url.href }));
    const res = await app.inject({ url: '/where?x=1', headers: { host: 'api.example:8080' } });
    expect(res.json()).toEqual({ href: 'http://api.example:8080/where?x=1' });
  });
});

describe('Request built directly', () => {
  it('buffers the body once for every reader', async () => {
    const request = new Request({
      method: 'post',
      path: '/x',
      query: 'a=1',
      headers: { 'content-type': 'application/json' },
      body: '{"n":1}',
    });
    expect(request.method).toBe('POST');
    const [a, b] = await Promise.all([request.json(), request.json()]);
    expect(a).toEqual({ n: 1 });
    expect(a).toBe(b);
    expect(await request.text()).toBe('{"n":1}');
    expect(await request.bytes()).toBe(await request.bytes());
    expect(request.queryParams.get('a')).toBe('1');
  });

  it('state is one bag per request', () => {
    const one = new Request({ method: 'GET', path: '/' });
    const two = new Request({ method: 'GET', path: '/' });
    one.state.x = 1;
    expect(one.state).toEqual({ x: 1 });
    expect(two.state).toEqual({});
  });

  it('abort() aborts signal, before or after it was read', () => {
    const early = new Request({ method: 'GET', path: '/' });
    const signal = early.signal;
    early.abort(new Error('first'));
    expect(signal.aborted).toBe(true);
    expect((signal.reason as Error).message).toBe('first');
    const late = new Request({ method: 'GET', path: '/' });
    late.abort('why');
    expect(late.signal.aborted).toBe(true);
    expect(late.signal.reason).toBe('why');
  });
});

describe('queryValues', () => {
  // What the binder reads must be what `queryParams` (URLSearchParams) says, whichever parser built it.
  const QUERIES = [
    '',
    'a=1',
    'a=1&a=2&a=3',
    'page=1&limit=20',
    'b=x+y&c=+',
    '&&a=1&',
    'a==b&e&=f',
    'a=1;b=2',
    '__proto__=1&constructor=2&toString=3',
    'a[]=1&a[]=2',
    'q=caf%C3%A9&q=%E2%9C%93',
    'a=%E2%9C&b=%&c=%C3%A9%&d=%zz',
    'x%20y=1&x+y=2',
  ];
  it.each(QUERIES)('%j', (query) => {
    const request = new Request({ method: 'GET', path: '/', query });
    const expected: Record<string, string[]> = Object.create(null);
    for (const [key, value] of request.queryParams) (expected[key] ??= []).push(value);
    const actual: Record<string, string[]> = Object.create(null);
    for (const key of Object.keys(request.queryValues)) {
      const value = request.queryValues[key];
      actual[key] = typeof value === 'string' ? [value] : [...value];
    }
    expect(actual).toEqual(expected);
    // No Object.prototype behind it: `constructor` or `toString` in a query are ordinary keys.
    expect(request.queryValues instanceof Object).toBe(false);
  });
});
