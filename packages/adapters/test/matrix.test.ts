import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { HttpRequest, HttpResponse } from '@azure/functions';
import { TestClient } from '@fnapi/core/testing';
import * as functions from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AzureFunctionAdapter } from '../src/azure.js';
import { CloudFunctionAdapter } from '../src/cloud-function.js';
import { type ALBResult, type APIGatewayProxyResult, type APIGatewayProxyResultV2, LambdaAdapter } from '../src/lambda.js';
import { NetlifyAdapter, type NetlifyResult } from '../src/netlify.js';
import { VercelAdapter } from '../src/vercel.js';
import { createMatrixApp, PNG } from './fixtures/app.js';
import {
  albEvent,
  bodyBytes,
  functionUrlEvent,
  httpApiEvent,
  type MatrixRequest,
  netlifyEvent,
  requestHeaders,
  restEvent,
} from './fixtures/events.js';
import { close, listen, sendHttp, urlOf } from './support/http.js';
import { expectSame, headerMap, type Seen, seenAlb, seenV1, seenV2 } from './support/normalize.js';

const json = (value: unknown) => JSON.stringify(value);
const JSON_HEADERS = { 'content-type': 'application/json' };

/** The request matrix: every case goes through `app.run` (the reference) and through every adapter. */
const CASES: { name: string; request: MatrixRequest; status: number }[] = [
  {
    name: 'path + query with repeated keys',
    request: {
      method: 'GET',
      path: '/items/42',
      query: [
        ['q', 'hello world & more=1'],
        ['tag', 'a'],
        ['tag', 'b,c'],
      ],
    },
    status: 200,
  },
  {
    name: 'a comma in a query value',
    request: {
      method: 'GET',
      path: '/items/42',
      query: [
        ['q', 'hello world & more=1'],
        ['tag', 'b,c'],
      ],
    },
    status: 200,
  },
  { name: 'non-ASCII query value', request: { method: 'GET', path: '/items/7', query: [['q', 'café ✓']] }, status: 200 },
  {
    name: 'JSON body',
    request: { method: 'POST', path: '/users', headers: JSON_HEADERS, body: json({ name: 'Ada', age: 36 }) },
    status: 201,
  },
  { name: '422 from a path parameter', request: { method: 'GET', path: '/items/abc' }, status: 422 },
  {
    name: '422 from a body',
    request: { method: 'POST', path: '/users', headers: JSON_HEADERS, body: json({ name: 'A', age: -1 }) },
    status: 422,
  },
  { name: 'malformed JSON', request: { method: 'POST', path: '/users', headers: JSON_HEADERS, body: '{"name": "Ada",' }, status: 400 },
  { name: 'unknown route', request: { method: 'GET', path: '/missing' }, status: 404 },
  { name: 'a thrown HTTPError', request: { method: 'GET', path: '/conflict' }, status: 409 },
  { name: 'two Set-Cookie headers', request: { method: 'GET', path: '/cookies' }, status: 200 },
  { name: 'request cookies', request: { method: 'GET', path: '/session', cookies: ['session=s%201', 'other=x'] }, status: 200 },
  { name: 'binary response', request: { method: 'GET', path: '/image' }, status: 200 },
  { name: 'gzip-encoded response', request: { method: 'GET', path: '/compressed' }, status: 200 },
  {
    name: 'binary request body',
    request: { method: 'POST', path: '/upload', headers: { 'content-type': 'image/png' }, body: PNG },
    status: 200,
  },
  { name: 'streaming response', request: { method: 'GET', path: '/stream' }, status: 200 },
  { name: 'HEAD', request: { method: 'HEAD', path: '/items/1' }, status: 200 },
];

const reference = new Map<string, Seen>();

beforeAll(async () => {
  const { app } = createMatrixApp();
  const client = await TestClient.start(app);
  try {
    for (const { name, request, status } of CASES) {
      const seen = await sendHttp(client.url, request);
      expect(seen.status, name).toBe(status);
      expect(seen.headers.get('x-started'), name).toEqual(['true']);
      reference.set(name, seen);
    }
  } finally {
    await client.close();
  }
});

/**
 * What a single-value ALB target group can carry of the reference: of a repeated query key the
 * function gets only the last value, and of several Set-Cookie headers only the last goes out.
 */
function singleValueAlb(name: string, reference: Map<string, Seen>): Seen {
  const seen = reference.get(name === 'path + query with repeated keys' ? 'a comma in a query value' : name)!;
  const headers = new Map(seen.headers);
  const cookies = headers.get('set-cookie');
  if (cookies) headers.set('set-cookie', cookies.slice(-1));
  return { ...seen, headers };
}

describe.each([
  {
    kind: 'REST API (v1)',
    send: (a: LambdaAdapter, r: MatrixRequest) => a.handle(restEvent(r)).then((x) => seenV1(x as APIGatewayProxyResult)),
  },
  {
    kind: 'HTTP API (v2)',
    send: (a: LambdaAdapter, r: MatrixRequest) => a.handle(httpApiEvent(r)).then((x) => seenV2(x as APIGatewayProxyResultV2)),
  },
  {
    kind: 'Function URL',
    send: (a: LambdaAdapter, r: MatrixRequest) => a.handle(functionUrlEvent(r)).then((x) => seenV2(x as APIGatewayProxyResultV2)),
  },
  {
    kind: 'ALB, multi-value headers',
    send: (a: LambdaAdapter, r: MatrixRequest) => a.handle(albEvent(r, { multiValue: true })).then((x) => seenAlb(x as ALBResult, true)),
  },
  {
    kind: 'ALB, single-value headers',
    send: (a: LambdaAdapter, r: MatrixRequest) => a.handle(albEvent(r, { multiValue: false })).then((x) => seenAlb(x as ALBResult, false)),
    expected: singleValueAlb,
  },
])('LambdaAdapter, $kind', ({ send, expected }) => {
  const { app, startups } = createMatrixApp();
  const adapter = new LambdaAdapter(app);

  it.each(CASES)('$name', async ({ name, request }) => {
    expectSame(await send(adapter, request), expected ? expected(name, reference) : reference.get(name)!);
  });

  it('ran the startup callbacks once, before the first event', () => {
    expect(startups()).toBe(1);
  });
});

describe('CloudFunctionAdapter, through the functions framework', () => {
  const { app, startups } = createMatrixApp();
  let base: string;
  let server: ReturnType<typeof getTestServer>;
  beforeAll(async () => {
    // Express's request typings do not resolve in this workspace (their base type comes out empty),
    // so the handler is passed through `HttpFunction` here; at run time it is the framework's request.
    functions.http('matrix', new CloudFunctionAdapter(app).handle as unknown as functions.HttpFunction);
    server = getTestServer('matrix');
    base = await listen(server);
  });
  afterAll(() => close(server));

  it.each(CASES)('$name', async ({ name, request }) => {
    const seen = await sendHttp(base, request);
    const ref = reference.get(name)!;
    if (name === 'malformed JSON') {
      // The framework parses JSON bodies before the function runs and answers malformed ones itself.
      expect(seen.status).toBe(400);
      expect(seen.headers.get('content-type')?.[0]).not.toContain('application/problem+json');
      return;
    }
    expectSame(seen, ref);
  });

  it('ran the startup callbacks once', () => {
    expect(startups()).toBe(1);
  });
});

describe('VercelAdapter, Node runtime', () => {
  describe('reading the request stream', () => {
    const { app, startups } = createMatrixApp();
    const server = createServer(new VercelAdapter(app).handle);
    let base: string;
    beforeAll(async () => {
      base = await listen(server);
    });
    afterAll(() => close(server));

    it.each(CASES)('$name', async ({ name, request }) => {
      expectSame(await sendHttp(base, request), reference.get(name)!);
    });

    it('ran the startup callbacks once', () => {
      expect(startups()).toBe(1);
    });
  });

  describe('after Vercel’s helpers consumed the body into req.body', () => {
    const { app } = createMatrixApp();
    const adapter = new VercelAdapter(app);
    // As @vercel/node does: the body is read first, and `req.body` parses it lazily (throwing on bad JSON).
    const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const raw = Buffer.concat(chunks);
      Object.defineProperty(req, 'body', {
        get() {
          const type = req.headers['content-type'] ?? '';
          if (raw.byteLength === 0) return undefined;
          if (type.startsWith('application/json')) {
            try {
              return JSON.parse(raw.toString('utf8'));
            } catch {
              throw Object.assign(new Error('Invalid JSON'), { statusCode: 400 });
            }
          }
          if (type.startsWith('text/')) return raw.toString('utf8');
          return raw;
        },
      });
      await adapter.handle(req, res);
    });
    let base: string;
    beforeAll(async () => {
      base = await listen(server);
    });
    afterAll(() => close(server));

    it.each(CASES)('$name', async ({ name, request }) => {
      const seen = await sendHttp(base, request);
      if (name === 'malformed JSON') {
        // Only the parse error reaches the adapter, not the bytes: still a 400 problem, worded by the adapter.
        expect(seen.status).toBe(400);
        expect(JSON.parse(seen.body.toString('utf8'))).toMatchObject({ status: 400, detail: expect.stringContaining('Invalid JSON') });
        return;
      }
      expectSame(seen, reference.get(name)!);
    });
  });
});

describe('AzureFunctionAdapter, with @azure/functions HttpRequest and HttpResponse', () => {
  const { app, startups } = createMatrixApp();
  const adapter = new AzureFunctionAdapter(app);

  async function send(request: MatrixRequest): Promise<{ seen: Seen; response: HttpResponse }> {
    const { 'content-length': _length, ...headers } = requestHeaders(request);
    const azureRequest = new HttpRequest({
      method: request.method as 'GET',
      // A host.json with `routePrefix: ""`: the path is the app's own.
      url: `https://matrix.azurewebsites.net${urlOf(request)}`,
      headers,
      body: request.body === undefined ? undefined : { bytes: bodyBytes(request) },
    });
    const response = new HttpResponse(await adapter.handle(azureRequest, {}));
    const entries: [string, string][] = [];
    response.headers.forEach((value, name) => {
      entries.push([name, value]);
    });
    const body = Buffer.from(await response.arrayBuffer());
    return { seen: { status: response.status, headers: headerMap(entries), body }, response };
  }

  it.each(CASES)('$name', async ({ name, request }) => {
    const { seen, response } = await send(request);
    const ref = reference.get(name)!;
    // Cookies travel as objects in `cookies`, not as headers.
    expectSame(seen, ref, { ignoreHeaders: ['set-cookie'] });
    expect(response.cookies.length).toBe(ref.headers.get('set-cookie')?.length ?? 0);
  });

  it('turns each Set-Cookie into a cookie object with its attributes', async () => {
    const { response } = await send({ method: 'GET', path: '/cookies' });
    expect(response.cookies).toEqual([
      { name: 'session', value: 'abc123', path: '/', httpOnly: true, sameSite: 'Lax' },
      { name: 'theme', value: 'dark', path: '/', maxAge: 3600 },
    ]);
  });

  it('keeps the host’s route prefix in the path', async () => {
    const azureRequest = new HttpRequest({ method: 'GET', url: 'https://matrix.azurewebsites.net/api/items/1' });
    const response = await adapter.handle(azureRequest, {});
    expect(response.status).toBe(404);
  });

  it('ran the startup callbacks once', () => {
    expect(startups()).toBe(1);
  });
});

describe('NetlifyAdapter', () => {
  describe.each([
    { kind: 'Functions v1, rawQuery without ?', questionMark: false },
    { kind: 'Functions v1, rawQuery with ?', questionMark: true },
  ])('$kind', ({ questionMark }) => {
    const { app, startups } = createMatrixApp();
    const adapter = new NetlifyAdapter(app, { stripFunctionPath: true });

    it.each(CASES)('$name', async ({ name, request }) => {
      const result = (await adapter.handle(netlifyEvent(request, { questionMark }), {})) as NetlifyResult;
      expectSame(seenV1(result), reference.get(name)!);
    });

    it('ran the startup callbacks once', () => {
      expect(startups()).toBe(1);
    });
  });

  describe('Functions v2 (Web Request)', () => {
    const { app, startups } = createMatrixApp();
    const adapter = new NetlifyAdapter(app, { stripFunctionPath: true });

    it.each(CASES)('$name', async ({ name, request }) => {
      const { 'content-length': _length, ...headers } = requestHeaders(request);
      const web = new Request(`https://site.netlify.app/.netlify/functions/api${urlOf(request)}`, {
        method: request.method,
        headers,
        body: request.body === undefined ? undefined : new Uint8Array(bodyBytes(request)),
      });
      const response = await adapter.handle(web, {});
      const entries: [string, string][] = [];
      response.headers.forEach((value, name) => {
        if (name !== 'set-cookie') entries.push([name, value]);
      });
      for (const cookie of response.headers.getSetCookie()) entries.push(['set-cookie', cookie]);
      const seen = { status: response.status, headers: headerMap(entries), body: Buffer.from(await response.arrayBuffer()) };
      expectSame(seen, reference.get(name)!);
    });

    it('ran the startup callbacks once', () => {
      expect(startups()).toBe(1);
    });
  });
});
