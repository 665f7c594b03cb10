/**
 * Routers: prefixes, tags, late endpoints, nesting and router middleware, through all three transports.
 */
import { describe, expect, it } from 'vitest';
import { API, NotFoundError, Router, z } from '../src/index.js';
import { type Case, problem, recorder, runTable, serve, TRANSPORTS, viaInject } from './helpers.js';

type Operation = { operationId: string; tags?: string[] };
type Doc = { paths: Record<string, Record<string, Operation>> };

const log: string[] = [];

function build(): API {
  const app = new API({ logger: false });
  app.addMiddleware(recorder('app1', log));
  app.addMiddleware(recorder('app2', log));
  app.get('/root', () => {
    log.push('handler');
    return { root: true };
  });

  const users = new Router({ prefix: '/users', tags: ['users'] });
  users.addMiddleware(recorder('users', log));
  users.api({ route: '/{user_id}', params: { user_id: z.int() }, tags: ['people'] }, function getUser({ user_id }) {
    log.push('handler');
    if (user_id === 0) throw new NotFoundError('no user 0');
    return { user_id };
  });
  users.get('', function listUsers() {
    return [{ user_id: 1 }];
  });
  app.includeRouter(users);
  // Added after inclusion: served too.
  users.post('/', { params: { name: z.string() }, statusCode: 201 }, function createUser({ name }) {
    return { name };
  });

  const v1 = new Router({ prefix: '/v1', tags: ['v1'] });
  v1.addMiddleware(recorder('v1', log));
  const items = new Router({ prefix: '/items/', tags: ['items'] });
  items.addMiddleware(recorder('items', log));
  items.get('/{item_id}', function getItem({ item_id }) {
    log.push('handler');
    return { item_id };
  });
  v1.includeRouter(items);
  v1.get('/status', function status() {
    log.push('handler');
    return { v: 1 };
  });
  app.includeRouter(v1);
  // The child router gains an endpoint after both inclusions.
  items.delete('/{item_id}', function deleteItem() {
    return undefined;
  });
  return app;
}

const cases: Case[] = [
  { name: 'router endpoint under its prefix', call: { path: '/users/5' }, status: 200, json: { user_id: 5 } },
  { name: 'router endpoint validation', call: { path: '/users/x' }, status: 422 },
  { name: 'an empty route is the prefix itself', call: { path: '/users' }, status: 200, json: [{ user_id: 1 }] },
  {
    name: 'an endpoint added after includeRouter is served',
    call: { method: 'POST', path: '/users/', json: { name: 'Ada' } },
    status: 201,
    json: { name: 'Ada' },
  },
  { name: 'nested routers join prefixes', call: { path: '/v1/items/abc' }, status: 200, json: { item_id: 'abc' } },
  {
    name: 'an endpoint added to a nested router after inclusion is served',
    call: { method: 'DELETE', path: '/v1/items/abc' },
    status: 204,
    text: '',
    contentType: null,
  },
  { name: 'the parent router endpoint', call: { path: '/v1/status' }, status: 200, json: { v: 1 } },
  {
    name: 'the route without the prefix is not served',
    call: { path: '/items/abc' },
    status: 404,
    json: problem(404, 'Not Found', 'No endpoint for GET /items/abc'),
  },
  {
    name: 'an HTTPError from a router endpoint is a problem response',
    call: { path: '/users/0' },
    status: 404,
    json: problem(404, 'Not Found', 'no user 0'),
    headers: { 'x-through': 'users, app2, app1' },
  },
];

describe('routers', () => {
  const served = serve(build);
  runTable(served, cases);

  it('carries tags into the OpenAPI document', () => {
    const doc = served.app.openapi() as Doc;
    expect(doc.paths['/users/{user_id}']!.get).toMatchObject({ operationId: 'getUser', tags: ['users', 'people'] });
    expect(doc.paths['/users']!.get).toMatchObject({ operationId: 'listUsers', tags: ['users'] });
    expect(doc.paths['/users/']!.post).toMatchObject({ operationId: 'createUser', tags: ['users'] });
    expect(doc.paths['/v1/items/{item_id}']!.get).toMatchObject({ operationId: 'getItem', tags: ['v1', 'items'] });
    expect(doc.paths['/v1/items/{item_id}']!.delete).toMatchObject({ operationId: 'deleteItem', tags: ['v1', 'items'] });
    expect(doc.paths['/v1/status']!.get).toMatchObject({ operationId: 'status', tags: ['v1'] });
    expect(doc.paths['/root']!.get!.tags).toBeUndefined();
  });

  it('lists router endpoints in app.routes', () => {
    expect(served.app.routes.map((r) => `${r.method} ${r.route}`).sort()).toEqual(
      [
        'DELETE /v1/items/{item_id}',
        'GET /root',
        'GET /users',
        'GET /users/{user_id}',
        'GET /v1/items/{item_id}',
        'GET /v1/status',
        'POST /users/',
      ].sort(),
    );
  });

  it.each(TRANSPORTS)('router middleware runs only for its endpoints, inside the app middleware (%s)', async (transport) => {
    log.length = 0;
    const root = await served.send(transport, { path: '/root' });
    expect(root.headers['x-through']).toBe('app2, app1');
    expect(log).toEqual(['app1:in', 'app2:in', 'handler', 'app2:out', 'app1:out']);

    log.length = 0;
    const user = await served.send(transport, { path: '/users/3' });
    expect(user.headers['x-through']).toBe('users, app2, app1');
    expect(log).toEqual(['app1:in', 'app2:in', 'users:in', 'handler', 'users:out', 'app2:out', 'app1:out']);

    log.length = 0;
    const item = await served.send(transport, { path: '/v1/items/9' });
    expect(item.headers['x-through']).toBe('items, v1, app2, app1');
    expect(log).toEqual(['app1:in', 'app2:in', 'v1:in', 'items:in', 'handler', 'items:out', 'v1:out', 'app2:out', 'app1:out']);

    log.length = 0;
    const status = await served.send(transport, { path: '/v1/status' });
    expect(status.headers['x-through']).toBe('v1, app2, app1');
    expect(log).toEqual(['app1:in', 'app2:in', 'v1:in', 'handler', 'v1:out', 'app2:out', 'app1:out']);
  });

  it('router middleware does not run for unknown paths under its prefix', async () => {
    log.length = 0;
    const res = await served.send('inject', { path: '/users/1/missing' });
    expect(res.status).toBe(404);
    expect(log).toEqual(['app1:in', 'app2:in', 'app2:out', 'app1:out']);
  });
});

describe('router inclusion', () => {
  it('router endpoints are not served before inclusion', async () => {
    const app = new API({ logger: false });
    const router = new Router({ prefix: '/late' });
    router.get('/hello', () => ({ hello: true }));
    expect((await viaInject(app, { path: '/late/hello' })).status).toBe(404);
    app.includeRouter(router);
    const res = await viaInject(app, { path: '/late/hello' });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ hello: true });
  });

  it('a nested router included in a router that is not included is not served', async () => {
    const app = new API({ logger: false });
    const parent = new Router({ prefix: '/p' });
    const child = new Router({ prefix: '/c' });
    child.get('/x', () => 'x');
    parent.includeRouter(child);
    expect((await viaInject(app, { path: '/p/c/x' })).status).toBe(404);
    app.includeRouter(parent);
    expect((await viaInject(app, { path: '/p/c/x' })).status).toBe(200);
  });

  it('router middleware added after inclusion applies', async () => {
    const app = new API({ logger: false });
    const router = new Router({ prefix: '/r' });
    router.get('/x', () => 'x');
    app.includeRouter(router);
    router.addMiddleware(async (request, callNext) => {
      const response = await callNext(request);
      response.headers.set('x-late', '1');
      return response;
    });
    expect((await viaInject(app, { path: '/r/x' })).headers['x-late']).toBe('1');
  });

  it('the same router can be mounted under two routers', async () => {
    const app = new API({ logger: false });
    const shared = new Router({ prefix: '/shared' });
    shared.get('/ping', () => 'pong');
    const a = new Router({ prefix: '/a' });
    const b = new Router({ prefix: '/b' });
    a.includeRouter(shared);
    b.includeRouter(shared);
    app.includeRouter(a);
    app.includeRouter(b);
    expect((await viaInject(app, { path: '/a/shared/ping' })).body).toBe('"pong"');
    expect((await viaInject(app, { path: '/b/shared/ping' })).body).toBe('"pong"');
    expect(app.routes.map((r) => r.operationId)).toEqual(['get_a_shared_ping', 'get_b_shared_ping']);
  });

  it('a named handler mounted twice needs explicit operationIds', () => {
    const app = new API({ logger: false });
    const shared = new Router({ prefix: '/shared' });
    shared.get('/ping', function ping() {
      return 'pong';
    });
    const a = new Router({ prefix: '/a' });
    const b = new Router({ prefix: '/b' });
    a.includeRouter(shared);
    b.includeRouter(shared);
    app.includeRouter(a);
    app.includeRouter(b);
    // One function on two routes: the second default carries its method and path.
    expect(app.routes.map((r) => r.operationId)).toEqual(['ping', 'ping_get_b_shared_ping']);
  });

  it('refuses a router that includes itself', () => {
    const a = new Router({ prefix: '/a' });
    const b = new Router({ prefix: '/b' });
    a.includeRouter(b);
    expect(() => b.includeRouter(a)).toThrow(/cannot include itself/);
    expect(() => a.includeRouter(a)).toThrow(/cannot include itself/);
  });

  it('a prefix must start with a slash', () => {
    expect(() => new Router({ prefix: 'users' })).toThrow(/starts with "\/"/);
  });

  it('a route clash inside a router is reported when it is included', () => {
    const app = new API({ logger: false });
    app.get('/users/{id}', { operationId: 'appUser' }, () => 1);
    const router = new Router({ prefix: '/users' });
    router.get('/{id}', { operationId: 'routerUser' }, () => 2);
    expect(() => app.includeRouter(router)).toThrow('GET /users/{id} is registered twice');
  });
});
