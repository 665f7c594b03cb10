/**
 * The documentation an app serves: `/openapi.json` (valid OpenAPI 3.1, describing exactly the
 * endpoints registered and how they bind), its caching and rebuilding, and the `/docs` and `/redoc`
 * pages with their assets (on, off, moved; CSP and cache headers).
 */
import { API, body, Router, z } from '@fnapi/core';
import { jsonLines } from '@fnapi/test-support';
import { pino } from 'pino';
import { TestClient } from '@fnapi/core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCustomValidationApp, createEverythingApp, CustomValidationError, SLOW_TIMEOUT } from './support/docs-apps.js';
import { type Doc, operation, operationKeys, parameter, parameterList, refsIn, statuses, validateOpenAPI } from './support/openapi.js';

const PROBLEM = 'application/problem+json';
const ASSET_CACHE = 'public, max-age=31536000, immutable';

/** A small app with the docs on (the example app's own document is tested in examples/basic). */
function createExampleApp(options: ConstructorParameters<typeof API>[0] = {}): API {
  const app = new API({ title: 'fnapi example', version: '1.0.0', ...options });
  app.get('/hello/{name}', { params: { greeting: z.string().optional() } }, ({ name, greeting = 'Hello' }) => ({
    message: `${greeting}, ${name}!`,
  }));
  return app;
}

/** Started clients, closed after each test of the blocks that use `started()`. */
const open: TestClient[] = [];
async function started(app: API): Promise<TestClient> {
  const client = await TestClient.start(app);
  open.push(client);
  return client;
}
async function closeAll() {
  await Promise.all(open.splice(0).map((client) => client.close()));
}

async function served(client: TestClient, path = '/openapi.json'): Promise<Doc> {
  const res = await client.get(path);
  expect(res.status, `GET ${path}`).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  return res.json<Doc>();
}

/** The URLs of the scripts, styles and icons a docs page loads. */
function assetUrls(html: string): string[] {
  return [...html.matchAll(/<(?:script|link)\b[^>]*\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&'));
}

describe('/openapi.json of an app using every endpoint option', () => {
  let app: API;
  let client: TestClient;
  let doc: Doc;
  beforeAll(async () => {
    app = createEverythingApp();
    client = await TestClient.start(app);
    doc = await served(client);
  });
  afterAll(() => client?.close());

  it('is valid OpenAPI 3.1 (schema-base dialect)', async () => {
    const result = await validateOpenAPI(doc);
    expect(result.errors).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.info).toEqual({ title: 'Everything', version: '2.0.0', description: 'Every endpoint option at once' });
  });

  it('lists exactly the documented endpoints: not the includeInSchema: false one, not the docs routes', async () => {
    expect(operationKeys(doc)).toEqual(
      [
        'DELETE /items/{item_id}',
        'GET /admin/audit/events',
        'GET /admin/users/{user_id}',
        'GET /health',
        'GET /items',
        'GET /items/{item_id}',
        'GET /slow',
        'PATCH /items/{item_id}/note',
        'POST /admin/reset',
        'POST /items',
        'PUT /items/{item_id}',
      ].sort(),
    );
    expect(doc.paths['/internal/stats']).toBeUndefined();
    // ... though it is served, as are the docs routes.
    expect((await client.get('/internal/stats')).status).toBe(200);
    expect((await client.get('/docs')).status).toBe(200);
    expect(app.routes.map((r) => `${r.method} ${r.route}`)).toContain('GET /internal/stats');
  });

  it('documents path, query, header and cookie parameters with their names, locations and required flags', () => {
    const read = operation(doc, 'GET', '/items/{item_id}');
    expect(parameterList(read)).toEqual([
      ['path', 'item_id', true],
      ['query', 'verbose', false],
      ['header', 'x-request-id', false],
      ['cookie', 'session', true],
    ]);
    expect(parameter(read, 'path', 'item_id').schema).toEqual({ type: 'integer', minimum: 1 });
    expect(parameter(read, 'query', 'verbose').schema).toEqual({ type: 'boolean', default: false });

    for (const [method, path] of [
      ['PUT', '/items/{item_id}'],
      ['DELETE', '/items/{item_id}'],
      ['PATCH', '/items/{item_id}/note'],
      ['GET', '/admin/users/{user_id}'],
    ] as const) {
      const params = parameterList(operation(doc, method, path));
      expect(
        params.filter(([location]) => location !== 'path'),
        `${method} ${path}`,
      ).toEqual([]);
      expect(params.length, `${method} ${path}`).toBe(1);
    }
    expect(parameterList(operation(doc, 'GET', '/admin/audit/events'))).toEqual([['query', 'since', false]]);
    for (const [method, path] of [
      ['GET', '/slow'],
      ['GET', '/health'],
      ['POST', '/items'],
      ['POST', '/admin/reset'],
    ] as const) {
      expect(operation(doc, method, path).parameters ?? [], `${method} ${path}`).toEqual([]);
    }
  });

  it('documents query constraints, enums, defaults and arrays', () => {
    const list = operation(doc, 'GET', '/items');
    expect(parameterList(list)).toEqual([
      ['query', 'q', false],
      ['query', 'page', false],
      ['query', 'limit', true],
      ['query', 'sort', false],
      ['query', 'tag', false],
    ]);
    expect(parameter(list, 'query', 'q').schema).toEqual({ type: 'string', minLength: 2, maxLength: 50 });
    expect(parameter(list, 'query', 'page').schema).toEqual({ type: 'integer', minimum: 1, default: 1 });
    expect(parameter(list, 'query', 'limit').schema).toEqual({ type: 'integer', minimum: 1, maximum: 100 });
    expect(parameter(list, 'query', 'sort').schema).toEqual({ type: 'string', enum: ['asc', 'desc'], default: 'asc' });
    expect(parameter(list, 'query', 'tag').schema).toEqual({ type: 'array', items: { type: 'string' } });
  });

  it('documents request bodies: a whole-body model as ONE component shared by two endpoints, named fields inline', () => {
    const itemRef = { $ref: '#/components/schemas/Item' };
    for (const [method, path] of [
      ['POST', '/items'],
      ['PUT', '/items/{item_id}'],
    ] as const) {
      expect(operation(doc, method, path).requestBody, `${method} ${path}`).toEqual({
        required: true,
        content: { 'application/json': { schema: itemRef } },
      });
    }
    const schemas = doc.components?.schemas ?? {};
    expect(Object.keys(schemas).sort()).toEqual([
      'Item',
      'Problem400',
      'Problem404',
      'Problem413',
      'Problem415',
      'Problem504',
      'ValidationProblem',
    ]);
    expect(schemas.Item).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 80 },
        price: { type: 'number', minimum: 0 },
        tags: { type: 'array', items: { type: 'string' }, default: [] },
      },
      required: ['name', 'price'],
    });
    const itemUsers = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, op]) => refsIn(op.requestBody).includes(itemRef.$ref))
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(itemUsers.sort()).toEqual(['POST /items', 'PUT /items/{item_id}']);

    // header()/cookie()/query() are not body fields; body() and implicit fields of a PATCH are.
    const note = operation(doc, 'PATCH', '/items/{item_id}/note');
    expect(note.requestBody?.required).toBe(true);
    const noteSchema = note.requestBody?.content['application/json']?.schema;
    expect(noteSchema).toMatchObject({ type: 'object', required: ['note'] });
    expect(Object.keys(noteSchema.properties).sort()).toEqual(['note', 'pinned']);
    expect(noteSchema.properties.note).toEqual({ type: 'string', maxLength: 200 });

    for (const [method, path] of [
      ['GET', '/items/{item_id}'],
      ['GET', '/items'],
      ['DELETE', '/items/{item_id}'],
      ['GET', '/slow'],
      ['POST', '/admin/reset'],
    ] as const) {
      expect(operation(doc, method, path).requestBody, `${method} ${path}`).toBeUndefined();
    }
  });

  it('documents the success status, the response model, 422 where input is validated, 404 for path params, 504 for a timeout', () => {
    const expected: Record<string, string[]> = {
      'GET /items/{item_id}': ['200', '404', '422'],
      // Neither a model nor a status: the handler may answer 200 or, returning nothing, 204.
      'GET /items': ['200', '204', '422'],
      'POST /items': ['201', '400', '413', '415', '422'],
      'PUT /items/{item_id}': ['200', '400', '404', '413', '415', '422'],
      'PATCH /items/{item_id}/note': ['200', '204', '400', '404', '413', '415', '422'],
      'DELETE /items/{item_id}': ['204', '404', '422'],
      'GET /slow': ['200', '204', '504'],
      'GET /health': ['200', '204'],
      'GET /admin/users/{user_id}': ['200', '204', '404', '422'],
      'GET /admin/audit/events': ['200', '204', '422'],
      'POST /admin/reset': ['204'],
    };
    const actual = Object.fromEntries(
      operationKeys(doc).map((key) => {
        const [method, path] = key.split(' ') as [string, string];
        return [key, statuses(operation(doc, method, path))];
      }),
    );
    expect(actual).toEqual(expected);

    const created = operation(doc, 'POST', '/items').responses['201']!;
    expect(created.description).toBe('Created');
    const stored = created.content?.['application/json']?.schema;
    expect(stored).toMatchObject({ type: 'object', required: ['id', 'name', 'price', 'tags'] });
    expect(Object.keys(stored.properties)).toEqual(['id', 'name', 'price', 'tags']);
    expect(operation(doc, 'GET', '/items/{item_id}').responses['200']!.content?.['application/json']?.schema).toEqual(stored);
    // Without a model: any JSON.
    expect(operation(doc, 'GET', '/health').responses['200']!.content).toEqual({ 'application/json': { schema: {} } });
    // 204: no content.
    expect(operation(doc, 'DELETE', '/items/{item_id}').responses['204']).toEqual({ description: 'No Content' });
    expect(operation(doc, 'POST', '/admin/reset').responses['204']).toEqual({ description: 'No Content' });

    const validation = { content: { [PROBLEM]: { schema: { $ref: '#/components/schemas/ValidationProblem' } } } };
    const problem = (status: number) => ({ content: { [PROBLEM]: { schema: { $ref: `#/components/schemas/Problem${status}` } } } });
    expect(operation(doc, 'GET', '/items').responses['422']).toMatchObject(validation);
    expect(operation(doc, 'GET', '/items/{item_id}').responses['404']).toMatchObject(problem(404));
    expect(operation(doc, 'GET', '/slow').responses['504']).toMatchObject({ description: 'Gateway Timeout', ...problem(504) });
    expect(doc.components?.schemas?.Problem504?.properties?.status).toMatchObject({ type: 'integer', const: 504 });
    expect(doc.components?.schemas?.ValidationProblem?.required).toEqual(['type', 'title', 'status', 'detail', 'errors']);
  });

  it('documents tags from routers and options, summaries, descriptions, deprecated and operationIds', () => {
    const summary = (method: string, path: string) => {
      const op = operation(doc, method, path);
      return { operationId: op.operationId, tags: op.tags, deprecated: op.deprecated, summary: op.summary };
    };
    expect(summary('GET', '/items/{item_id}')).toEqual({
      operationId: 'readItem',
      tags: ['items'],
      deprecated: undefined,
      summary: 'Read an item',
    });
    expect(operation(doc, 'GET', '/items/{item_id}').description).toBe(
      'One item by id, with request metadata from a header, a cookie and the query.',
    );
    expect(summary('GET', '/items')).toEqual({ operationId: 'listItems', tags: ['items'], deprecated: undefined, summary: 'List items' });
    expect(summary('DELETE', '/items/{item_id}')).toEqual({
      operationId: 'deleteItem',
      tags: ['items'],
      deprecated: true,
      summary: 'Delete an item',
    });
    expect(summary('GET', '/health')).toEqual({ operationId: 'get_health', tags: undefined, deprecated: undefined, summary: undefined });
    expect(summary('GET', '/slow')).toMatchObject({ operationId: 'slow', tags: undefined });
    expect(summary('GET', '/admin/users/{user_id}')).toMatchObject({ operationId: 'adminGetUser', tags: ['admin', 'users'] });
    expect(summary('GET', '/admin/audit/events')).toMatchObject({ operationId: 'listAuditEvents', tags: ['admin', 'audit'] });
    expect(summary('POST', '/admin/reset')).toMatchObject({ operationId: 'adminReset', tags: ['admin'] });

    const ids = operationKeys(doc).map((key) => {
      const [method, path] = key.split(' ') as [string, string];
      return operation(doc, method, path).operationId;
    });
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.tags).toEqual([{ name: 'items' }, { name: 'admin' }, { name: 'users' }, { name: 'audit' }]);
  });

  it('behaves as documented', async () => {
    const read = await client.get('/items/1', { headers: { cookie: 'session=s1', 'x-request-id': 'r1' } });
    expect(read.status).toBe(200);
    expect(read.json()).toEqual({ id: 1, name: 'Pen', price: 1.5, tags: [] });
    expect((await client.get('/items/99', { headers: { cookie: 'session=s1' } })).status).toBe(404);
    const noCookie = await client.get('/items/1');
    expect(noCookie.status).toBe(422);
    expect(noCookie.json()).toMatchObject({ errors: [{ in: 'cookie', path: ['session'] }] });
    expect((await client.get('/items?limit=5&tag=a&tag=b')).json()).toMatchObject({ page: 1, limit: 5, sort: 'asc', tag: ['a', 'b'] });
    expect((await client.get('/items?limit=5&sort=up')).status).toBe(422);
    const created = await client.post('/items', { json: { name: 'Ink', price: 3 } });
    expect(created.status).toBe(201);
    expect(created.json()).toMatchObject({ name: 'Ink', price: 3, tags: [] });
    expect((await client.put('/items/1', { json: { name: 'Pencil', price: 1 } })).json()).toEqual({
      id: 1,
      name: 'Pencil',
      price: 1,
      tags: [],
    });
    expect((await client.patch('/items/1/note', { json: { note: 'hi' } })).json()).toEqual({ item_id: 1, note: 'hi', pinned: false });
    expect((await client.delete('/items/2')).status).toBe(204);
    expect((await client.get('/admin/users/7')).json()).toEqual({ user_id: 7 });
    expect((await client.post('/admin/reset')).status).toBe(204);
    const before = performance.now();
    const slow = await client.get('/slow');
    expect(slow.status).toBe(504);
    expect(slow.headers['content-type']).toBe(PROBLEM);
    expect(performance.now() - before).toBeLessThan(SLOW_TIMEOUT * 1000 + 2_000);
  });
});

describe('/openapi.json with a custom validationError', () => {
  let client: TestClient;
  let doc: Doc;
  beforeAll(async () => {
    client = await TestClient.start(createCustomValidationApp());
    doc = await served(client);
  });
  afterAll(() => client?.close());

  it('is valid OpenAPI 3.1 (schema-base dialect)', async () => {
    const result = await validateOpenAPI(doc);
    expect(result.errors).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('documents the custom 422 schema on every validated endpoint, routers included', async () => {
    const custom = doc.components?.schemas?.ValidationProblem;
    expect(custom).toEqual({
      type: 'object',
      properties: { message: { type: 'string' }, fields: { type: 'array', items: { type: 'string' } } },
      required: ['message', 'fields'],
    });
    expect(JSON.stringify(doc)).not.toContain('"errors"');
    for (const [method, path] of [
      ['POST', '/things'],
      ['GET', '/r/things/{id}'],
    ] as const) {
      expect(operation(doc, method, path).responses['422'], `${method} ${path}`).toEqual({
        description: 'Validation Error',
        content: { [PROBLEM]: { schema: { $ref: '#/components/schemas/ValidationProblem' } } },
      });
    }
    expect(operation(doc, 'GET', '/r/things/{id}').tags).toEqual(['routed']);

    // The served 422 bodies fit the documented schema.
    const bad = await client.post('/things', { json: { name: '', price: -1 } });
    expect(bad.status).toBe(422);
    expect(CustomValidationError.parse(bad.json())).toEqual({ message: 'invalid input', fields: ['body.name', 'body.price'] });
    const routed = await client.get('/r/things/x');
    expect(routed.status).toBe(422);
    expect(CustomValidationError.parse(routed.json())).toEqual({ message: 'invalid input', fields: ['path.id'] });
  });
});

describe('the document is built once and rebuilt when routes change', () => {
  afterEach(closeAll);

  it('returns the same object until a route is added', () => {
    const app = createEverythingApp();
    const first = app.openapi();
    expect(app.openapi()).toBe(first);
    app.api({ route: '/added/{id}', method: 'POST', params: { id: z.int(), label: z.string() } }, function addedLater({ id, label }) {
      return { id, label };
    });
    const second = app.openapi();
    expect(second).not.toBe(first);
    expect(app.openapi()).toBe(second);
    const doc = second as Doc;
    expect(operation(doc, 'POST', '/added/{id}').operationId).toBe('addedLater');
    expect((first as Doc).paths['/added/{id}']).toBeUndefined();
  });

  it('rebuilds for routes added to an included router, and for a running server', async () => {
    const app = new API({ logger: false });
    const router = new Router();
    app.includeRouter(router);
    const client = await started(app);
    expect((await served(client)).paths).toEqual({});
    router.get('/late', { tags: ['late'] }, function late() {
      return 'late';
    });
    const doc = await served(client);
    expect(operationKeys(doc)).toEqual(['GET /late']);
    expect(operation(doc, 'GET', '/late').tags).toEqual(['late']);
    expect((await validateOpenAPI(doc)).valid).toBe(true);
  });

  it('serves the document with no-cache, for GET and HEAD', async () => {
    const client = await started(createExampleApp({ logger: false }));
    const res = await client.get('/openapi.json');
    expect(res.headers['cache-control']).toBe('no-cache');
    const head = await client.head('/openapi.json');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
  });
});

describe('docs routes: on, off and moved', () => {
  afterEach(closeAll);

  const ok = async (client: TestClient, path: string) => expect((await client.get(path)).status, path).toBe(200);
  const gone = async (client: TestClient, path: string) => expect((await client.get(path)).status, path).toBe(404);

  it('serves /openapi.json, /docs and /redoc by default, the pages pointing at the document', async () => {
    const client = await started(createExampleApp({ logger: false }));
    const docs = await client.get('/docs');
    expect(docs.status).toBe(200);
    expect(docs.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(docs.body).toContain('data-openapi-url="/openapi.json"');
    expect(docs.body).toContain('<title>fnapi example - Swagger UI</title>');
    const redoc = await client.get('/redoc');
    expect(redoc.status).toBe(200);
    expect(redoc.body).toContain('<redoc spec-url="/openapi.json">');
    await ok(client, '/openapi.json');
  });

  it('docsUrl: null turns Swagger UI off and keeps ReDoc', async () => {
    const app = new API({ logger: false, docsUrl: null });
    const client = await started(app);
    await gone(client, '/docs');
    await ok(client, '/redoc');
    await ok(client, '/openapi.json');
    expect(app.docsUrl).toBeNull();
  });

  it('redocUrl: null turns ReDoc off and keeps Swagger UI', async () => {
    const client = await started(new API({ logger: false, redocUrl: null }));
    await gone(client, '/redoc');
    await ok(client, '/docs');
    await ok(client, '/openapi.json');
  });

  it('docsUrl and redocUrl null: no pages and no assets, the document stays', async () => {
    const assets = assetUrls((await (await started(new API({ logger: false }))).get('/docs')).body);
    const client = await started(new API({ logger: false, docsUrl: null, redocUrl: null }));
    await gone(client, '/docs');
    await gone(client, '/redoc');
    await ok(client, '/openapi.json');
    for (const asset of assets) await gone(client, asset);
  });

  it('openapiUrl: null turns the document, both pages and their assets off', async () => {
    const reference = await started(new API({ logger: false }));
    const assets = [...assetUrls((await reference.get('/docs')).body), ...assetUrls((await reference.get('/redoc')).body)];
    expect(assets.length).toBeGreaterThan(0);
    const app = new API({ logger: false, openapiUrl: null, docsUrl: '/docs', redocUrl: '/redoc' });
    app.get('/ping', () => 'pong');
    const client = await started(app);
    await gone(client, '/openapi.json');
    await gone(client, '/docs');
    await gone(client, '/redoc');
    for (const asset of assets) await gone(client, asset);
    await ok(client, '/ping');
    expect(app.docsUrl).toBeNull();
    expect(app.redocUrl).toBeNull();
    // The document is still available in process.
    expect(operationKeys(app.openapi() as Doc)).toEqual(['GET /ping']);
  });

  it('custom paths are served, and the default ones are not', async () => {
    const app = createExampleApp({ logger: false });
    const moved = new API({ logger: false, openapiUrl: '/api/schema.json', docsUrl: '/api/docs', redocUrl: '/api/redoc' });
    moved.includeRouter(routerOf(app));
    const client = await started(moved);
    const doc = await served(client, '/api/schema.json');
    expect(operationKeys(doc)).toContain('GET /hello/{name}');
    expect((await client.get('/api/docs')).body).toContain('data-openapi-url="/api/schema.json"');
    expect((await client.get('/api/redoc')).body).toContain('<redoc spec-url="/api/schema.json">');
    await gone(client, '/openapi.json');
    await gone(client, '/docs');
    await gone(client, '/redoc');
    for (const path of Object.keys(doc.paths)) expect(path).not.toMatch(/^\/(api|_fnapi)\//);
  });

  it('a user endpoint on a docs path wins over the page', async () => {
    const app = new API({ logger: false });
    app.get('/docs', function myDocs() {
      return { mine: true };
    });
    const client = await started(app);
    expect((await client.get('/docs')).json()).toEqual({ mine: true });
    expect(operationKeys(await served(client))).toEqual(['GET /docs']);
  });
});

describe('docs pages and assets: headers', () => {
  let client: TestClient;
  beforeAll(async () => {
    client = await TestClient.start(createExampleApp({ logger: false }));
  });
  afterAll(() => client?.close());

  it('the pages carry a strict Content-Security-Policy and are not cached without revalidation', async () => {
    for (const path of ['/docs', '/redoc']) {
      const res = await client.get(path);
      const policy = String(res.headers['content-security-policy'] ?? '');
      expect(policy, path).toContain("default-src 'none'");
      expect(policy, path).toContain("script-src 'self'");
      expect(policy, path).toContain("connect-src 'self'");
      expect(policy, path).toContain("base-uri 'none'");
      expect(policy, path).toContain("frame-ancestors 'self'");
      expect(policy, path).not.toMatch(/script-src[^;]*'unsafe-inline'/);
      expect(res.headers['cache-control'], path).toBe('no-cache');
      expect(res.headers['x-content-type-options'], path).toBe('nosniff');
      expect(res.headers['referrer-policy'], path).toBe('same-origin');
      // No inline scripts: every <script> has a src.
      expect(res.body, path).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    }
    expect(String((await client.get('/redoc')).headers['content-security-policy'])).toContain("worker-src 'self' blob:");
  });

  it('every asset a page loads is served locally with long-lived immutable caching', async () => {
    const urls = new Set<string>();
    for (const path of ['/docs', '/redoc']) for (const url of assetUrls((await client.get(path)).body)) urls.add(url);
    expect(urls.size).toBeGreaterThanOrEqual(5);
    const types: string[] = [];
    for (const url of urls) {
      expect(url, 'assets are same-origin paths').toMatch(/^\/_fnapi\/docs\/[^/]+@[^/]+\//);
      const res = await client.get(url);
      expect(res.status, url).toBe(200);
      expect(res.headers['cache-control'], url).toBe(ASSET_CACHE);
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      expect(res.body.length, url).toBeGreaterThan(0);
      types.push(String(res.headers['content-type']));
    }
    expect(types).toEqual(expect.arrayContaining(['text/javascript; charset=utf-8', 'text/css; charset=utf-8', 'image/png']));
  });
});

/** A router holding the example app's endpoints (so they can be served under another app). */
function routerOf(app: API): Router {
  const router = new Router();
  for (const entry of app.routeEntries()) router.include(entry.definition);
  return router;
}

describe('a document that cannot fail as a whole', () => {
  it('documents z.json(), z.any(), z.unknown(), recursive and lazy schemas as open schemas', async () => {
    interface Tree {
      name: string;
      children: Tree[];
    }
    const Tree: z.ZodType<Tree> = z.lazy(() => z.object({ name: z.string(), children: z.array(Tree) }));
    const app = new API({ logger: false });
    app.post('/json', { params: { payload: body(z.json(), { whole: true }) } }, ({ payload }) => payload);
    app.post('/any', { params: { a: z.any(), u: z.unknown() } }, (input) => input);
    app.post('/tree', { params: { tree: Tree } }, ({ tree }) => tree);
    app.get('/hello', () => 'hello');
    const res = await app.inject('/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.json<{ paths: Record<string, unknown> }>();
    expect(Object.keys(doc.paths).sort()).toEqual(['/any', '/hello', '/json', '/tree']);
  });

  it('logs a schema that still fails, naming the endpoint and the parameter, and serves the rest', async () => {
    const { stream, lines } = jsonLines();
    const app = new API({ logger: pino(stream) });
    // Builds while the endpoint is registered and compiled, then breaks: a schema that fails only
    // when the document is generated.
    let broken = false;
    const Broken = z.lazy((): z.ZodString => {
      if (broken) throw new Error('this schema cannot be built');
      return z.string();
    });
    app.get('/broken', { params: { q: Broken } }, ({ q }) => q);
    app.get('/fine', { params: { n: z.int() } }, ({ n }) => n);
    void app.routes;
    broken = true;
    const res = await app.inject('/openapi.json');
    expect(res.status).toBe(200);
    expect(Object.keys(res.json<{ paths: object }>().paths)).toEqual(['/fine']);
    const logged = lines.find((line) => String(line.msg).startsWith('OpenAPI: parameters of GET /broken'));
    expect(logged).toMatchObject({ method: 'GET', path: '/broken', parameter: 'parameters', level: 50 });
    expect(String(logged!.msg)).toContain('GET /broken');
  });
});
