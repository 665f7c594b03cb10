/**
 * Every status an operation can answer is in the document, from the one list core computes: the
 * 200-or-204 of a handler without a model or status, declared `responses` (descriptions, schemas,
 * headers), statuses middleware declare, 504 of a timeout, a custom 422 schema; each error body is
 * the problem schema with `status` a const. Each documented status is also provoked on the wire and
 * its body checked against the documented schema with a JSON Schema 2020-12 validator.
 */
import { validate } from '@hyperjump/json-schema/openapi-3-1';
import { API, ConflictError, HTTPError, JSONResponse, type Middleware, NotFoundError, Router, z } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type Json = Record<string, any>;

const Book = z.object({ id: z.int(), title: z.string() }).meta({ id: 'Book' });
const BookIn = z.object({ title: z.string().min(1) });
const Conflict = z.object({ existing: z.int() }).meta({ id: 'TitleConflict' });

/** A limiter in the shape every status-declaring middleware has: `responses` beside `dispatch`. */
function quota(header: string): Middleware {
  return {
    responses: { 429: 'Too many requests' },
    async dispatch(request, callNext) {
      if (request.headers.get(header) === 'exhausted') throw new HTTPError(429, 'Slow down');
      return callNext(request);
    },
  };
}

function createApp(): API {
  const app = new API({ title: 'Statuses', version: '1.0.0', logger: false });
  const books = new Map([[1, { id: 1, title: 'Dune' }]]);
  app.addMiddleware(quota('x-quota'));
  app.api(
    {
      route: '/books/{book_id}',
      params: { book_id: z.int() },
      response: Book,
      responses: {
        404: 'No such book',
        410: { description: 'Withdrawn', headers: { 'X-Withdrawn-At': 'When it was withdrawn' } },
      },
    },
    function getBook({ book_id }) {
      if (book_id === 13) throw new HTTPError(410, 'Withdrawn', undefined, { headers: { 'x-withdrawn-at': '2020' } });
      const book = books.get(book_id);
      if (!book) throw new NotFoundError(`No book ${book_id}`);
      return book;
    },
  );
  app.api(
    {
      route: '/books',
      method: 'POST',
      params: { book: BookIn },
      response: Book,
      statusCode: 201,
      responses: { 409: { description: 'Title taken', schema: Conflict } },
    },
    function addBook({ book }) {
      const existing = [...books.values()].find((b) => b.title === book.title);
      if (existing) throw new ConflictError('Title taken', { existing: existing.id });
      const stored = { id: books.size + 1, ...book };
      books.set(stored.id, stored);
      return stored;
    },
  );
  app.api({ route: '/books/{book_id}', method: 'DELETE', params: { book_id: z.int() } }, function removeBook({ book_id }) {
    books.delete(book_id);
  });
  app.api({ route: '/slow', timeout: 0.02, response: z.object({ done: z.boolean() }) }, async function slow(_input, request) {
    await new Promise((resolve) => request.signal.addEventListener('abort', resolve));
    return { done: true };
  });
  // The same named model as input and output: two components.
  app.api({ route: '/books/echo', method: 'PUT', params: { book: Book }, response: Book }, function echoBook({ book }) {
    return book;
  });
  // Entries that give only headers or only a schema: the description OpenAPI requires is the status's.
  app.post(
    '/echo',
    {
      params: { text: z.string() },
      response: z.object({ text: z.string() }),
      responses: { 200: { headers: { 'X-Echo': z.string() } }, 409: { schema: Conflict } },
    },
    function echo({ text }) {
      return new JSONResponse({ text }, { headers: { 'X-Echo': text } });
    },
  );
  const admin = new Router({ prefix: '/admin' });
  admin.addMiddleware(quota('x-admin-quota'));
  admin.get('/ping', { statusCode: 200 }, function ping() {
    return { pong: true };
  });
  app.includeRouter(admin);
  return app;
}

describe('the document lists every status, from one list', () => {
  let client: TestClient;
  let doc: Json;
  const op = (path: string, method: string): Json => doc.paths[path][method];
  const statuses = (path: string, method: string) => Object.keys(op(path, method).responses);

  /** Validates `body` against the schema the document gives for that status. */
  async function matchesDocument(path: string, method: string, status: number, body: unknown) {
    const content = op(path, method).responses[String(status)].content;
    const schema = Object.values(content as Record<string, { schema: unknown }>)[0]!.schema;
    const uri = `https://fnapi.test/${method}${path.replace(/[{}]/g, '_')}/${status}.json`;
    const wrapped = {
      $schema: 'https://spec.openapis.org/oas/3.1/dialect/base',
      $id: uri,
      components: doc.components,
      ...(schema as object),
    };
    const { registerSchema, validate: check, unregisterSchema } = await import('@hyperjump/json-schema/openapi-3-1');
    registerSchema(JSON.parse(JSON.stringify(wrapped).replaceAll('"#/components/', `"${uri}#/components/`)) as never, uri);
    try {
      return (await check(uri, body as never)).valid;
    } finally {
      unregisterSchema(uri);
    }
  }

  beforeAll(async () => {
    client = await TestClient.start(createApp());
    doc = (await client.get('/openapi.json')).json<Json>();
  });
  afterAll(() => client?.close());

  it('is valid OpenAPI 3.1', async () => {
    const output = await validate('https://spec.openapis.org/oas/3.1/schema-base', doc as never, 'BASIC');
    expect(output.valid ? [] : output.errors).toEqual([]);
  });

  it('lists the framework statuses, the declared ones and the middleware ones per operation', () => {
    expect(statuses('/books/{book_id}', 'get')).toEqual(['200', '404', '410', '422', '429']);
    expect(statuses('/books', 'post')).toEqual(['201', '400', '409', '413', '415', '422', '429']);
    expect(statuses('/slow', 'get')).toEqual(['200', '429', '504']);
    // Router middleware only on the router's operations.
    expect(statuses('/admin/ping', 'get')).toEqual(['200', '429']);
    expect(op('/books/{book_id}', 'get').responses['404'].description).toBe('No such book');
    expect(op('/books/{book_id}', 'get').responses['429'].description).toBe('Too many requests');
  });

  it('lists 200 and a 204 without content for a handler with neither a model nor a status', async () => {
    expect(op('/books/{book_id}', 'delete').responses['204']).toEqual({ description: 'No Content' });
    expect(statuses('/books/{book_id}', 'delete')).toEqual(['200', '204', '404', '422', '429']);
    const res = await client.request('DELETE', '/books/2');
    expect(res.status).toBe(204);
  });

  it('documents declared response headers and schemas', () => {
    expect(op('/books/{book_id}', 'get').responses['410'].headers).toEqual({
      'X-Withdrawn-At': {
        description: 'When it was withdrawn',
        required: false,
        schema: { type: 'string', description: 'When it was withdrawn' },
      },
    });
    expect(op('/books', 'post').responses['409'].content).toEqual({
      'application/json': { schema: { $ref: '#/components/schemas/TitleConflict' } },
    });
  });

  it('describes a declared entry that gives only headers or a schema by its status', () => {
    const responses = op('/echo', 'post').responses;
    expect(responses['200'].description).toBe('OK');
    expect(responses['200'].headers['X-Echo']).toMatchObject({ schema: { type: 'string' } });
    expect(responses['200'].content['application/json'].schema).toMatchObject({ type: 'object' });
    expect(responses['409'].description).toBe('Conflict');
    expect(responses['409'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/TitleConflict' });
  });

  it('gives each error its own problem component with `status` a const', () => {
    for (const status of [400, 404, 410, 413, 415, 429, 504]) {
      expect(doc.components.schemas[`Problem${status}`].properties.status).toEqual({
        type: 'integer',
        const: status,
        description: 'The HTTP status code',
      });
    }
    expect(doc.components.schemas.ValidationProblem.properties.errors.items.required).toEqual(['in', 'path', 'message', 'code']);
    expect(doc.components.schemas.ProblemDetails).toBeUndefined();
  });

  it('names components from ids only, and never shares one between input and output', () => {
    const names = Object.keys(doc.components.schemas);
    expect(names).toContain('Book');
    expect(names).toContain('BookInput');
    expect(op('/books/echo', 'put').requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/BookInput' });
    expect(op('/books/echo', 'put').responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Book' });
    // `params: { book: BookIn }` (no id) is inlined, not named after the parameter.
    expect(op('/books', 'post').requestBody.content['application/json'].schema).toMatchObject({ type: 'object', required: ['title'] });
    expect(names.filter((name) => !/^Problem\d{3}$/.test(name)).sort()).toEqual([
      'Book',
      'BookInput',
      'TitleConflict',
      'ValidationProblem',
    ]);
  });

  it('answers each provoked status with a body the document describes', async () => {
    const cases: Array<[string, string, Json, number]> = [
      ['GET', '/books/99', {}, 404],
      ['GET', '/books/13', {}, 410],
      ['GET', '/books/x', {}, 422],
      ['GET', '/books/1', { headers: { 'x-quota': 'exhausted' } }, 429],
      ['POST', '/books', { body: '{', headers: { 'content-type': 'application/json' } }, 400],
      ['POST', '/books', { body: 'title', headers: { 'content-type': 'text/plain' } }, 415],
      ['POST', '/books', { json: { title: '' } }, 422],
      ['GET', '/slow', {}, 504],
      ['GET', '/admin/ping', { headers: { 'x-admin-quota': 'exhausted' } }, 429],
    ];
    for (const [method, path, options, status] of cases) {
      const res = await client.request(method, path, options);
      expect(res.status, `${method} ${path}`).toBe(status);
      const template = path.startsWith('/books/') && method === 'GET' ? '/books/{book_id}' : path;
      expect(await matchesDocument(template, method.toLowerCase(), status, res.json()), `${method} ${path} ${res.body}`).toBe(true);
    }
    const ok = await client.get('/books/1');
    expect(await matchesDocument('/books/{book_id}', 'get', 200, ok.json())).toBe(true);
    // The wrong status's schema refuses the body: the check can fail.
    const missing = await client.get('/books/99');
    expect(await matchesDocument('/books/{book_id}', 'get', 410, missing.json())).toBe(false);
  });
});
