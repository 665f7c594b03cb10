/**
 * What a handler returns and what the client receives, through all three transports.
 */
import { describe, expect, it } from 'vitest';
import { API, HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response, StreamingResponse, z } from '../src/index.js';
import { type Case, GENERIC_500, HTML_TYPE, JSON_TYPE, runTable, serve, TEXT_TYPE, withoutStack } from './helpers.js';

const Public = z.object({ id: z.int(), name: z.string() });

function build(debug: boolean): API {
  const app = new API({ logger: false, debug });
  // plain values → JSON with statusCode
  app.get('/object', () => ({ a: 1, nested: { b: [true, null] } }));
  app.get('/array', () => [1, 'two', { three: 3 }]);
  app.get('/string', () => 'hello');
  app.get('/number', () => 42.5);
  app.get('/zero', () => 0);
  app.get('/boolean', () => false);
  app.get('/null', () => null);
  app.get('/async', async () => {
    await Promise.resolve();
    return { async: true };
  });
  app.post('/created', { statusCode: 201 }, () => ({ id: 1 }));
  app.get('/created-string', { statusCode: 202 }, () => 'accepted');
  // tuples
  app.get('/tuple', () => [{ queued: true }, 202]);
  app.get('/tuple-string', () => ['teapot', 418]);
  app.get('/tuple-null', () => [null, 409]);
  app.get('/not-a-tuple/float', () => [1, 200.5]);
  app.get('/not-a-tuple/range', () => [1, 600]);
  app.get('/not-a-tuple/three', () => [1, 200, 3]);
  app.get('/tuple-of-response', () => [new PlainTextResponse('made'), 201]);
  app.get('/array-model', { response: z.array(z.int()) }, () => [1, 200]);
  app.get('/array-model-empty', { response: z.array(z.int()) }, () => []);
  // response models
  app.get('/filtered', { response: Public }, () => ({ id: 1, name: 'Ada', password: 'hunter2' }));
  const bob = { id: 2, name: 'Bob', token: 't' };
  app.get('/filtered-tuple', { response: Public }, () => [bob, 201]);
  // @ts-expect-error: the compiler refuses a body that does not fit; served anyway to pin the run-time 500
  app.get('/misfit', { response: Public }, () => ({ id: 'one', name: 'Ada' }));
  app.get('/model-defaults', { response: z.object({ id: z.int(), tags: z.array(z.string()).default([]) }) }, () => ({ id: 3 }));
  // undefined
  app.get('/nothing', () => undefined);
  app.delete('/nothing-async', async () => {});
  app.get('/nothing-202', { statusCode: 202 }, () => undefined);
  // the Response family
  app.get('/response/json', () => new JSONResponse({ x: 1 }, { statusCode: 201, headers: { 'x-extra': 'yes' } }));
  app.get('/response/json-string', () => new JSONResponse('text'));
  app.get('/response/html', () => new HTMLResponse('<h1>Hi</h1>'));
  app.get('/response/text', () => new PlainTextResponse('plain words', { statusCode: 203 }));
  app.get('/response/redirect', () => new RedirectResponse('/elsewhere?x=1'));
  app.get('/response/redirect-301', () => new RedirectResponse('https://example.com/', 301));
  app.get('/response/plain-object', () => new Response({ ok: true }, { statusCode: 418 }));
  app.get('/response/plain-string', () => new Response('words'));
  app.get('/response/plain-bytes', () => new Response(new Uint8Array([104, 105, 33])));
  app.get('/response/custom-type', () => new Response('a,b\n1,2\n', { mediaType: 'text/csv' }));
  app.get('/response/header-type', () => new Response('{"raw":true}', { headers: { 'content-type': 'application/vnd.x+json' } }));
  app.get('/response/cookies', () => {
    const response = new Response({ ok: true }, { headers: { 'set-cookie': ['a=1; Path=/', 'b=2; Secure'] } });
    response.headers.append('set-cookie', 'c=3');
    return response;
  });
  app.get('/bytes', () => new Uint8Array([0x61, 0x62, 0x63]));
  app.get(
    '/stream/generator',
    () =>
      new StreamingResponse(
        (async function* () {
          yield 'one,';
          await new Promise((resolve) => setImmediate(resolve));
          yield new TextEncoder().encode('two,');
          yield 'three';
        })(),
        { mediaType: 'text/plain; charset=utf-8', headers: { 'x-stream': '1' } },
      ),
  );
  app.get(
    '/stream/readable',
    () =>
      new StreamingResponse(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('{"streamed":'));
            controller.enqueue(new TextEncoder().encode('true}'));
            controller.close();
          },
        }),
        { mediaType: 'application/json', statusCode: 206 },
      ),
  );
  app.get(
    '/stream/default-type',
    () =>
      new StreamingResponse(
        (async function* () {
          yield 'x';
        })(),
      ),
  );
  // Web Response
  app.get('/web', () => {
    const headers = new Headers({ 'content-type': 'text/plain', 'x-web': 'yes' });
    headers.append('set-cookie', 'a=1; Path=/; HttpOnly');
    headers.append('set-cookie', 'b=2; Path=/');
    return new globalThis.Response('from the web', { status: 201, headers });
  });
  app.get('/web-empty', () => new globalThis.Response(null, { status: 204, headers: { 'x-empty': '1' } }));
  app.get('/web-json', async () => globalThis.Response.json({ web: true }, { status: 202 }));
  return app;
}

const cases: Case[] = [
  { name: 'an object is JSON', call: { path: '/object' }, status: 200, text: '{"a":1,"nested":{"b":[true,null]}}' },
  { name: 'an array is JSON', call: { path: '/array' }, status: 200, json: [1, 'two', { three: 3 }] },
  { name: 'a string is JSON', call: { path: '/string' }, status: 200, text: '"hello"' },
  { name: 'a number is JSON', call: { path: '/number' }, status: 200, text: '42.5' },
  { name: 'zero is JSON', call: { path: '/zero' }, status: 200, text: '0' },
  { name: 'a boolean is JSON', call: { path: '/boolean' }, status: 200, text: 'false' },
  { name: 'null is JSON', call: { path: '/null' }, status: 200, text: 'null' },
  { name: 'an async handler', call: { path: '/async' }, status: 200, json: { async: true } },
  { name: 'statusCode: 201', call: { method: 'POST', path: '/created' }, status: 201, json: { id: 1 } },
  { name: 'statusCode with a string', call: { path: '/created-string' }, status: 202, text: '"accepted"' },
  { name: 'a [body, status] tuple', call: { path: '/tuple' }, status: 202, json: { queued: true } },
  { name: 'a [string, status] tuple', call: { path: '/tuple-string' }, status: 418, text: '"teapot"', contentType: JSON_TYPE },
  { name: 'a [null, status] tuple', call: { path: '/tuple-null' }, status: 409, text: 'null', contentType: JSON_TYPE },
  { name: 'a non-integer second item is data', call: { path: '/not-a-tuple/float' }, status: 200, json: [1, 200.5] },
  { name: 'a second item outside 100–599 is data', call: { path: '/not-a-tuple/range' }, status: 200, json: [1, 600] },
  { name: 'three items are data', call: { path: '/not-a-tuple/three' }, status: 200, json: [1, 200, 3] },
  { name: 'a [Response, status] tuple', call: { path: '/tuple-of-response' }, status: 201, text: 'made', contentType: TEXT_TYPE },
  { name: 'an array response model keeps a 2-item array as data', call: { path: '/array-model' }, status: 200, json: [1, 200] },
  { name: 'an array response model, empty', call: { path: '/array-model-empty' }, status: 200, text: '[]' },
  { name: 'a response model drops unknown keys', call: { path: '/filtered' }, status: 200, text: '{"id":1,"name":"Ada"}' },
  { name: 'a response model filters a tuple body', call: { path: '/filtered-tuple' }, status: 201, text: '{"id":2,"name":"Bob"}' },
  { name: 'a response model applies defaults', call: { path: '/model-defaults' }, status: 200, json: { id: 3, tags: [] } },
  {
    name: 'a value that does not fit the model is a 500 without the reason',
    call: { path: '/misfit' },
    status: 500,
    json: GENERIC_500,
  },
  { name: 'undefined is 204 with no body', call: { path: '/nothing' }, status: 204, text: '', contentType: null },
  {
    name: 'an async handler resolving to undefined',
    call: { method: 'DELETE', path: '/nothing-async' },
    status: 204,
    text: '',
    contentType: null,
  },
  {
    name: 'undefined with statusCode set keeps that status',
    call: { path: '/nothing-202' },
    status: 202,
    text: '',
    contentType: null,
    headers: { 'content-length': '0' },
  },
  {
    name: 'JSONResponse with status and headers',
    call: { path: '/response/json' },
    status: 201,
    text: '{"x":1}',
    headers: { 'x-extra': 'yes' },
  },
  { name: 'JSONResponse of a string', call: { path: '/response/json-string' }, status: 200, text: '"text"' },
  { name: 'HTMLResponse', call: { path: '/response/html' }, status: 200, text: '<h1>Hi</h1>', contentType: HTML_TYPE },
  { name: 'PlainTextResponse', call: { path: '/response/text' }, status: 203, text: 'plain words', contentType: TEXT_TYPE },
  {
    name: 'RedirectResponse defaults to 307',
    call: { path: '/response/redirect' },
    status: 307,
    text: '',
    contentType: null,
    headers: { location: '/elsewhere?x=1' },
  },
  {
    name: 'RedirectResponse with a status',
    call: { path: '/response/redirect-301' },
    status: 301,
    text: '',
    contentType: null,
    headers: { location: 'https://example.com/' },
  },
  {
    name: 'Response of an object is JSON',
    call: { path: '/response/plain-object' },
    status: 418,
    json: { ok: true },
    contentType: JSON_TYPE,
  },
  { name: 'Response of a string is text', call: { path: '/response/plain-string' }, status: 200, text: 'words', contentType: TEXT_TYPE },
  {
    name: 'Response of bytes is application/octet-stream',
    call: { path: '/response/plain-bytes' },
    status: 200,
    text: 'hi!',
    contentType: 'application/octet-stream',
    headers: { 'content-length': '3' },
  },
  { name: 'Response with a mediaType', call: { path: '/response/custom-type' }, status: 200, text: 'a,b\n1,2\n', contentType: 'text/csv' },
  {
    name: 'a content-type header wins',
    call: { path: '/response/header-type' },
    status: 200,
    text: '{"raw":true}',
    contentType: 'application/vnd.x+json',
  },
  {
    name: 'Response keeps every Set-Cookie',
    call: { path: '/response/cookies' },
    status: 200,
    json: { ok: true },
    headers: { 'set-cookie': ['a=1; Path=/', 'b=2; Secure', 'c=3'] },
  },
  {
    name: 'returned bytes are application/octet-stream',
    call: { path: '/bytes' },
    status: 200,
    text: 'abc',
    contentType: 'application/octet-stream',
  },
  {
    name: 'StreamingResponse from an async generator',
    call: { path: '/stream/generator' },
    status: 200,
    text: 'one,two,three',
    contentType: TEXT_TYPE,
    headers: { 'x-stream': '1' },
  },
  {
    name: 'StreamingResponse from a ReadableStream',
    call: { path: '/stream/readable' },
    status: 206,
    json: { streamed: true },
    contentType: JSON_TYPE,
  },
  {
    name: 'StreamingResponse defaults to application/octet-stream',
    call: { path: '/stream/default-type' },
    status: 200,
    text: 'x',
    contentType: 'application/octet-stream',
  },
  {
    name: 'a Web Response keeps status, headers and every Set-Cookie',
    call: { path: '/web' },
    status: 201,
    text: 'from the web',
    contentType: 'text/plain',
    headers: { 'x-web': 'yes', 'set-cookie': ['a=1; Path=/; HttpOnly', 'b=2; Path=/'] },
  },
  {
    name: 'a Web Response without a body',
    call: { path: '/web-empty' },
    status: 204,
    text: '',
    contentType: null,
    headers: { 'x-empty': '1' },
  },
  { name: 'Response.json()', call: { path: '/web-json' }, status: 202, json: { web: true }, contentType: JSON_TYPE },
];

describe('return values', () => {
  const served = serve(() => build(false));
  runTable(served, cases);
});

describe('return values with debug: true', () => {
  const served = serve(() => build(true));
  runTable(served, [
    {
      name: 'a value that does not fit the model shows the reason',
      call: { path: '/misfit' },
      status: 500,
      comparable: withoutStack,
      check: (reply) => {
        const body = reply.json();
        expect(body).toMatchObject({ ...GENERIC_500, debug: { name: 'ResponseValidationError' } });
        expect(body.debug.message).toBe(
          'GET /misfit returned a value that does not match its response model: id: Invalid input: expected number, received string',
        );
      },
    },
    { name: 'valid values are unaffected', call: { path: '/filtered' }, status: 200, json: { id: 1, name: 'Ada' } },
  ]);
});

describe('bodies of endpoints with a response model', () => {
  const Item = z.object({ id: z.int(), name: z.string(), tags: z.array(z.string()), note: z.string().nullable().optional() });
  const items = [
    { id: 1, name: 'quote " backslash \\ newline \n', tags: ['a\u2028b', '\ud83d\ude00', 'lone \ud800'], cost: 3 },
    { id: 2, name: 'é', tags: [], note: null },
    { id: 3, name: '', tags: ['x'], note: 'n', extra: true },
  ];
  const served = serve(() => {
    const app = new API({ logger: false });
    app.addMiddleware(async (request, callNext) => {
      const response = await callNext(request);
      if (request.path === '/items/replaced') response.content = { replaced: true, count: (response.content as unknown[]).length };
      // Read, then changed in place: the model's output (unknown keys dropped), and the change is sent.
      if (request.path === '/items/grown') (response.content as { id: number; cost?: number }[]).push({ id: 4, cost: 1 });
      return response;
    });
    app.get('/items', { response: z.array(Item) }, () => items);
    app.get('/items/replaced', { response: z.array(Item) }, () => items);
    app.get('/items/grown', { response: z.array(Item) }, () => items);
    return app;
  });

  it('are written byte for byte as JSON.stringify writes the model output', async () => {
    const reply = await served.client.get('/items');
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe(JSON_TYPE);
    expect(reply.body).toBe(JSON.stringify(z.array(Item).parse(items)));
    expect(reply.headers['content-length']).toBe(String(Buffer.byteLength(reply.body)));
  });

  it('follow a content that middleware replaced', async () => {
    const reply = await served.client.get('/items/replaced');
    expect(reply.json()).toEqual({ replaced: true, count: 3 });
  });

  it('show middleware the model output, and send what it changed in it', async () => {
    const reply = await served.client.get('/items/grown');
    const sent = reply.json() as { id: number }[];
    expect(sent).toHaveLength(4);
    expect(sent.slice(0, 3)).toEqual(JSON.parse(JSON.stringify(z.array(Item).parse(items))));
    expect(sent[3]).toEqual({ id: 4, cost: 1 });
    expect(items).toHaveLength(3);
  });
});
