/**
 * Error statuses of API.md: every case through real HTTP, `inject` and `fetch`.
 */
import { describe, expect, it } from 'vitest';
import {
  API,
  BadRequestError,
  ConflictError,
  ForbiddenError,
  HTTPError,
  InternalServerError,
  NotFoundError,
  Response,
  ServiceUnavailableError,
  TooManyRequestsError,
  UnauthorizedError,
  ValidationError,
  z,
} from '../src/index.js';
import { type Case, GENERIC_500, JSON_TYPE, problem, runTable, serve, withoutStack } from './helpers.js';

const SUBCLASSES = [
  ['BadRequestError', BadRequestError, 400, 'Bad Request'],
  ['UnauthorizedError', UnauthorizedError, 401, 'Unauthorized'],
  ['ForbiddenError', ForbiddenError, 403, 'Forbidden'],
  ['NotFoundError', NotFoundError, 404, 'Not Found'],
  ['ConflictError', ConflictError, 409, 'Conflict'],
  ['ValidationError', ValidationError, 422, 'Unprocessable Content'],
  ['TooManyRequestsError', TooManyRequestsError, 429, 'Too Many Requests'],
  ['InternalServerError', InternalServerError, 500, 'Internal Server Error'],
  ['ServiceUnavailableError', ServiceUnavailableError, 503, 'Service Unavailable'],
] as const;

const LIMIT = 1024;

function nested(depth: number): string {
  return `{"a":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
}

function build(debug: boolean): API {
  const app = new API({ logger: false, debug, bodyLimit: LIMIT });
  for (const [name, Cls] of SUBCLASSES) {
    app.api({ route: `/errors/${name}`, operationId: `raise_${name}` }, () => {
      throw new Cls(`${name} raised`, { user_id: 7, reason: name });
    });
    app.api({ route: `/errors/${name}/plain`, operationId: `raise_plain_${name}` }, () => {
      throw new Cls(`${name} without details`);
    });
  }
  app.get('/errors/teapot', async () => {
    await Promise.resolve();
    throw new HTTPError(418, 'No coffee here', ['espresso']);
  });
  app.get('/errors/default-message', () => {
    throw new NotFoundError();
  });
  app.get('/users/{user_id}', { params: { user_id: z.int() } }, ({ user_id }) => {
    throw new NotFoundError(`User ${user_id} not found`, { user_id });
  });
  app.get('/crash', () => {
    throw new TypeError('boom: secret internals');
  });
  app.get('/crash-async', async () => {
    await new Promise((resolve) => setImmediate(resolve));
    throw new RangeError('async boom');
  });
  app.get('/crash-non-error', () => {
    throw 'a string was thrown';
  });
  app.post('/echo', { params: { a: z.unknown().optional() } }, ({ a }) => ({ a: a ?? null }));
  app.get('/hello', () => ({ hello: 'world' }));
  app.get('/bad-header', () => new Response('x', { headers: { 'x-injected': 'a\r\nset-cookie: evil=1' } }));
  app.get('/bad-header-lf', () => {
    const response = new Response({ ok: true });
    response.headers.set('x-next', 'line\nbreak');
    response.headers.set('x-fine', 'ok');
    return response;
  });
  app.get('/bad-header-name', () => new Response('x', { headers: { 'x bad': 'v' } }));
  app.get('/bad-header-colon', () => new Response('x', { headers: { 'x:colon': 'v' } }));
  app.get('/bad-header-control', () => new Response('x', { headers: { 'x-control': 'a\u0001b' } }));
  app.get('/bad-header-wide', () => new Response('x', { headers: { 'x-wide': 'smile \u{1F600}' } }));
  app.get('/bad-header-middleware', () => ({ fine: true }));
  app.addMiddleware(async (request, callNext) => {
    const response = await callNext(request);
    if (request.path === '/bad-header-middleware') response.headers.set('x-from-middleware', 'a\r\n\r\ninjected body');
    return response;
  });
  app.get('/errors/with-headers', () => {
    throw new UnauthorizedError('token missing', undefined, { headers: { 'www-authenticate': 'Bearer realm="api"' } });
  });
  return app;
}

const subclassCases: Case[] = SUBCLASSES.flatMap(([name, , status, title]): Case[] => [
  {
    name: `${name} → ${status} with details`,
    call: { path: `/errors/${name}` },
    status,
    json: problem(status, title, `${name} raised`, { details: { user_id: 7, reason: name } }),
  },
  {
    name: `${name} → ${status} without details`,
    call: { path: `/errors/${name}/plain` },
    status,
    json: problem(status, title, `${name} without details`),
  },
]);

const JSON_HEADERS = { 'content-type': 'application/json' };

const cases: Case[] = [
  ...subclassCases,
  {
    name: 'HTTPError with any status',
    call: { path: '/errors/teapot' },
    status: 418,
    json: problem(418, "I'm a Teapot", 'No coffee here', { details: ['espresso'] }),
  },
  {
    name: 'an HTTPError without a message uses the title',
    call: { path: '/errors/default-message' },
    status: 404,
    json: problem(404, 'Not Found', 'Not Found'),
  },
  {
    name: 'the example of API.md',
    call: { path: '/users/7' },
    status: 404,
    text: '{"type":"about:blank","title":"Not Found","status":404,"detail":"User 7 not found","details":{"user_id":7}}',
  },
  // body problems
  {
    name: 'malformed JSON is 400',
    call: { method: 'POST', path: '/echo', headers: JSON_HEADERS, body: '{"a":' },
    status: 400,
    check: (reply) => {
      expect(reply.json()).toMatchObject(problem(400, 'Bad Request', expect.stringMatching(/^Malformed JSON body: /)));
    },
  },
  {
    name: 'JSON nested 256 levels is accepted',
    call: { method: 'POST', path: '/echo', headers: JSON_HEADERS, body: nested(256) },
    status: 200,
    check: (reply) => expect(reply.body).toBe(`{"a":${'['.repeat(255)}${']'.repeat(255)}}`),
  },
  {
    name: 'JSON nested deeper than 256 levels is 400',
    call: { method: 'POST', path: '/echo', headers: JSON_HEADERS, body: nested(257) },
    status: 400,
    json: problem(400, 'Bad Request', 'Malformed JSON body: nested deeper than 256 levels'),
  },
  {
    name: 'brackets inside strings do not count as nesting',
    call: { method: 'POST', path: '/echo', json: { a: '['.repeat(300) } },
    status: 200,
    json: { a: '['.repeat(300) },
  },
  {
    name: 'a __proto__ key is 400',
    call: { method: 'POST', path: '/echo', headers: JSON_HEADERS, body: '{"a":{"b":1,"__proto__":{"polluted":true}}}' },
    status: 400,
    json: problem(400, 'Bad Request', 'Request body contains a forbidden "__proto__" or "constructor.prototype" key'),
  },
  {
    name: 'a constructor.prototype key is 400',
    call: { method: 'POST', path: '/echo', headers: JSON_HEADERS, body: '{"a":{"constructor":{"prototype":{"x":1}}}}' },
    status: 400,
    json: problem(400, 'Bad Request', 'Request body contains a forbidden "__proto__" or "constructor.prototype" key'),
  },
  {
    name: 'a __proto__ key written with unicode escapes is 400',
    call: { method: 'POST', path: '/echo', headers: JSON_HEADERS, body: '{"a":{"\\u005f_proto__":{"polluted":true}}}' },
    status: 400,
    json: problem(400, 'Bad Request', 'Request body contains a forbidden "__proto__" or "constructor.prototype" key'),
  },
  {
    name: 'a constructor.prototype key written with unicode escapes is 400',
    call: { method: 'POST', path: '/echo', headers: JSON_HEADERS, body: '{"a":{"\\u0063onstructor":{"prototyp\\u0065":{}}}}' },
    status: 400,
    json: problem(400, 'Bad Request', 'Request body contains a forbidden "__proto__" or "constructor.prototype" key'),
  },
  {
    name: 'unicode escapes elsewhere are fine',
    call: { method: 'POST', path: '/echo', headers: JSON_HEADERS, body: '{"a":"caf\\u00e9"}' },
    status: 200,
    json: { a: 'café' },
  },
  {
    name: 'a "__proto__" string value is fine',
    call: { method: 'POST', path: '/echo', json: { a: '__proto__' } },
    status: 200,
    json: { a: '__proto__' },
  },
  {
    name: 'a body over bodyLimit is 413',
    call: { method: 'POST', path: '/echo', json: { a: 'x'.repeat(LIMIT) } },
    status: 413,
    json: problem(413, 'Content Too Large', `Request body exceeds the limit of ${LIMIT} bytes`),
  },
  {
    name: 'a body of exactly bodyLimit bytes is accepted',
    call: { method: 'POST', path: '/echo', json: { a: 'x'.repeat(LIMIT - 8) } },
    status: 200,
    json: { a: 'x'.repeat(LIMIT - 8) },
  },
  {
    name: 'a non-JSON body on a body-binding endpoint is 415',
    call: { method: 'POST', path: '/echo', headers: { 'content-type': 'text/plain' }, body: '{"a":1}' },
    status: 415,
    json: problem(415, 'Unsupported Media Type', 'Expected a JSON body (application/json), got "text/plain"'),
  },
  {
    name: 'a body without a content type is 415',
    call: { method: 'POST', path: '/echo', body: '{"a":1}' },
    status: 415,
    json: problem(415, 'Unsupported Media Type', 'Expected a JSON body (application/json), got no content type'),
  },
  {
    name: 'an empty body with a non-JSON content type is fine',
    call: { method: 'POST', path: '/echo', headers: { 'content-type': 'text/plain' }, body: '' },
    status: 200,
    json: { a: null },
  },
  {
    name: 'an empty JSON body is no body',
    call: { method: 'POST', path: '/echo', headers: JSON_HEADERS, body: '' },
    status: 200,
    json: { a: null },
  },
  {
    name: '*/*+json is JSON',
    call: { method: 'POST', path: '/echo', headers: { 'content-type': 'application/merge-patch+json' }, body: '{"a":2}' },
    status: 200,
    json: { a: 2 },
  },
  {
    name: 'application/json with a charset is JSON',
    call: { method: 'POST', path: '/echo', headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{"a":3}' },
    status: 200,
    json: { a: 3 },
  },
  // routing
  {
    name: 'an unknown path is 404',
    call: { path: '/nowhere' },
    status: 404,
    json: problem(404, 'Not Found', 'No endpoint for GET /nowhere'),
  },
  {
    name: 'a known path with another method is 404',
    call: { method: 'DELETE', path: '/hello' },
    status: 404,
    json: problem(404, 'Not Found', 'No endpoint for DELETE /hello'),
  },
  {
    name: 'POST to a GET route is 404',
    call: { method: 'POST', path: '/hello', json: {} },
    status: 404,
    json: problem(404, 'Not Found', 'No endpoint for POST /hello'),
  },
  {
    name: 'HEAD is served for GET routes, without a body',
    call: { method: 'HEAD', path: '/hello' },
    status: 200,
    text: '',
    contentType: JSON_TYPE,
    headers: { 'content-length': String('{"hello":"world"}'.length) },
  },
  {
    name: 'HEAD of an unknown path is 404 without a body',
    call: { method: 'HEAD', path: '/nowhere' },
    status: 404,
    text: '',
  },
  // unexpected exceptions
  {
    name: 'an unexpected exception is a generic 500',
    call: { path: '/crash' },
    status: 500,
    json: GENERIC_500,
    check: (reply) => {
      expect(reply.body).not.toContain('boom');
      expect(reply.body).not.toContain('.ts:');
    },
  },
  { name: 'an async handler rejecting is a generic 500', call: { path: '/crash-async' }, status: 500, json: GENERIC_500 },
  { name: 'a thrown non-Error is a generic 500', call: { path: '/crash-non-error' }, status: 500, json: GENERIC_500 },
  {
    name: 'a header value with CR/LF is never written',
    call: { path: '/bad-header' },
    status: 500,
    json: GENERIC_500,
    headers: { 'x-injected': null, 'set-cookie': null },
  },
  {
    name: 'a header value with LF set through headers.set is never written',
    call: { path: '/bad-header-lf' },
    status: 500,
    json: GENERIC_500,
    headers: { 'x-next': null, 'x-fine': null },
  },
  ...(
    [
      ['a header name with a space', '/bad-header-name', 'x bad'],
      ['a header name with a colon', '/bad-header-colon', 'x:colon'],
      ['a header value with a control character', '/bad-header-control', 'x-control'],
      ['a header value past 0xFF', '/bad-header-wide', 'x-wide'],
      ['a header value with CR/LF set by middleware', '/bad-header-middleware', 'x-from-middleware'],
    ] as const
  ).map(
    ([what, path, header]): Case => ({
      name: `${what} is never written: 500`,
      call: { path },
      status: 500,
      json: GENERIC_500,
      headers: { [header]: null },
    }),
  ),
  {
    name: 'an HTTPError carries its headers',
    call: { path: '/errors/with-headers' },
    status: 401,
    json: problem(401, 'Unauthorized', 'token missing'),
    headers: { 'www-authenticate': 'Bearer realm="api"' },
  },
];

describe('error statuses', () => {
  const served = serve(() => build(false));
  runTable(served, cases);
});

describe('error statuses with debug: true', () => {
  const served = serve(() => build(true));
  runTable(served, [
    {
      name: 'an unexpected exception carries debug.name, debug.message and debug.stack',
      call: { path: '/crash' },
      status: 500,
      comparable: withoutStack,
      check: (reply) => {
        const body = reply.json();
        expect(body).toMatchObject({ ...GENERIC_500, debug: { name: 'TypeError', message: 'boom: secret internals' } });
        expect(Object.keys(body.debug).sort()).toEqual(['message', 'name', 'stack']);
        expect(body.debug.stack).toMatch(/^TypeError: boom: secret internals\n\s+at /);
      },
    },
    {
      name: 'a thrown non-Error in debug',
      call: { path: '/crash-non-error' },
      status: 500,
      comparable: withoutStack,
      check: (reply) => expect(reply.json()).toMatchObject({ ...GENERIC_500, debug: { name: 'Error', message: 'a string was thrown' } }),
    },
    {
      name: 'HTTP errors are unchanged by debug',
      call: { path: '/users/3' },
      status: 404,
      json: problem(404, 'Not Found', 'User 3 not found', { details: { user_id: 3 } }),
    },
    {
      name: 'a header value with CR/LF in debug still never reaches the client',
      call: { path: '/bad-header' },
      status: 500,
      comparable: withoutStack,
      headers: { 'x-injected': null, 'set-cookie': null },
      check: (reply) => expect(reply.json().debug.name).toBe('TypeError'),
    },
  ]);
});

describe('error classes', () => {
  it.each(SUBCLASSES.map((s) => [s[0], s] as const))('%s is an HTTPError of its status', (_name, [name, Cls, status]) => {
    const error = new Cls('m', { d: 1 });
    expect(error).toBeInstanceOf(HTTPError);
    expect(error).toBeInstanceOf(Error);
    expect(error.statusCode).toBe(status);
    expect(error.message).toBe('m');
    expect(error.details).toEqual({ d: 1 });
    expect(error.name).toBe(name);
  });
});
