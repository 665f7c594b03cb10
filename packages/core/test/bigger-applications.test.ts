/**
 * FastAPI's "Bigger Applications - Multiple Files" tutorial (docs_src/bigger_applications/app), ported:
 * a users router, an items router with a prefix, tags and router-wide `responses`, an admin router
 * included with its own `responses`, and the token checks as router and app dependencies. The requests
 * and the document checks follow FastAPI's test of that tutorial.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, dependency, ForbiddenError, HTTPError, header, NotFoundError, query, Router, z } from '../src/index.js';
import { TestClient } from '../src/server/testing.js';

type Json = Record<string, any>;

// dependencies.py: get_token_header and get_query_token, as dependencies with parameters of their own.
const tokenHeader = dependency(
  { params: { x_token: header(z.string()) }, responses: { 400: 'X-Token header invalid' } },
  function get_token_header({ x_token }) {
    if (x_token !== 'fake-super-secret-token') throw new HTTPError(400, 'X-Token header invalid');
  },
);
const queryToken = dependency(
  { params: { token: query(z.string()) }, responses: { 400: 'No Jessica token provided' } },
  function get_query_token({ token }) {
    if (token !== 'jessica') throw new HTTPError(400, 'No Jessica token provided');
  },
);

function build(): API {
  // routers/users.py
  const users = new Router();
  users.get('/users/', { tags: ['users'] }, function read_users() {
    return [{ username: 'Rick' }, { username: 'Morty' }];
  });
  users.get('/users/me', { tags: ['users'] }, function read_user_me() {
    return { username: 'fakecurrentuser' };
  });
  users.get('/users/{username}', { tags: ['users'] }, function read_user({ username }) {
    return { username };
  });

  // routers/items.py
  const fakeItemsDb: Record<string, { name: string }> = { plumbus: { name: 'Plumbus' }, gun: { name: 'Portal Gun' } };
  const items = new Router({
    prefix: '/items',
    tags: ['items'],
    dependencies: [tokenHeader],
    responses: { 404: { description: 'Not found' } },
  });
  items.get('/', function read_items() {
    return fakeItemsDb;
  });
  items.get('/{item_id}', function read_item({ item_id }) {
    const item = fakeItemsDb[item_id];
    if (item === undefined) throw new NotFoundError('Item not found');
    return { name: item.name, item_id };
  });
  items.put(
    '/{item_id}',
    { tags: ['custom'], responses: { 403: { description: 'Operation forbidden' } } },
    function update_item({ item_id }) {
      if (item_id !== 'plumbus') throw new ForbiddenError('You can only update the item: plumbus');
      return { item_id, name: 'The great Plumbus' };
    },
  );

  // internal/admin.py, included by main.py with a prefix, tags, the token check and a 418.
  const admin = new Router({
    prefix: '/admin',
    tags: ['admin'],
    dependencies: [tokenHeader],
    responses: { 418: { description: "I'm a teapot" } },
  });
  admin.post('/', function update_admin() {
    return { message: 'Admin getting schwifty' };
  });

  // main.py
  const app = new API({ logger: false, dependencies: [queryToken] });
  app.includeRouter(users);
  app.includeRouter(items);
  app.includeRouter(admin);
  app.get('/', function root() {
    return { message: 'Hello Bigger Applications!' };
  });
  return app;
}

let client: TestClient;
beforeAll(async () => {
  client = await TestClient.start(build());
});
afterAll(() => client.close());

const token = { headers: { 'x-token': 'fake-super-secret-token' } };

describe('bigger applications', () => {
  it.each([
    ['/users/?token=jessica', {}, 200, [{ username: 'Rick' }, { username: 'Morty' }]],
    ['/users/foo?token=jessica', {}, 200, { username: 'foo' }],
    ['/users/me?token=jessica', {}, 200, { username: 'fakecurrentuser' }],
    ['/items/?token=jessica', token, 200, { plumbus: { name: 'Plumbus' }, gun: { name: 'Portal Gun' } }],
    ['/items/plumbus?token=jessica', token, 200, { name: 'Plumbus', item_id: 'plumbus' }],
    ['/?token=jessica', {}, 200, { message: 'Hello Bigger Applications!' }],
  ] as const)('GET %s', async (path, options, status, body) => {
    const res = await client.get(path, options);
    expect(res.status).toBe(status);
    expect(res.json()).toEqual(body);
  });

  it('answers the checks and the handlers’ errors', async () => {
    const missing = await client.get('/items/bar?token=jessica', token);
    expect(missing.status).toBe(404);
    expect(missing.json<Json>().detail).toBe('Item not found');
    // A missing header or query token is the binder's 422, a wrong one the check's 400, as in FastAPI.
    const noHeader = await client.get('/items/plumbus?token=jessica');
    expect(noHeader.status).toBe(422);
    expect(noHeader.json<Json>().errors).toEqual([expect.objectContaining({ in: 'header', path: ['x-token'], code: 'missing' })]);
    const badHeader = await client.get('/items/plumbus?token=jessica', { headers: { 'x-token': 'wrong' } });
    expect(badHeader.status).toBe(400);
    expect(badHeader.json<Json>().detail).toBe('X-Token header invalid');
    const noQuery = await client.get('/users/foo');
    expect(noQuery.status).toBe(422);
    expect(noQuery.json<Json>().errors).toEqual([expect.objectContaining({ in: 'query', path: ['token'], code: 'missing' })]);
    const wrongQuery = await client.get('/users/foo?token=monica');
    expect(wrongQuery.status).toBe(400);
    expect(wrongQuery.json<Json>().detail).toBe('No Jessica token provided');
    const put = await client.put('/items/plumbus?token=jessica', token);
    expect([put.status, put.json()]).toEqual([200, { item_id: 'plumbus', name: 'The great Plumbus' }]);
    const forbidden = await client.put('/items/bar?token=jessica', token);
    expect(forbidden.status).toBe(403);
    expect(forbidden.json<Json>().detail).toBe('You can only update the item: plumbus');
    const admin = await client.post('/admin/?token=jessica', token);
    expect([admin.status, admin.json()]).toEqual([200, { message: 'Admin getting schwifty' }]);
    expect((await client.post('/admin/?token=jessica')).status).toBe(422);
    expect((await client.post('/admin/?token=jessica', { headers: { 'x-token': 'wrong' } })).status).toBe(400);
  });

  it("documents the routers' responses beside the endpoints' own", () => {
    const doc = build().openapi() as Json;
    const readItems = doc.paths['/items/'].get;
    expect(readItems.tags).toEqual(['items']);
    expect(readItems.responses['404'].description).toBe('Not found');
    const update = doc.paths['/items/{item_id}'].put;
    expect(update.tags).toEqual(['items', 'custom']);
    expect(update.responses['403'].description).toBe('Operation forbidden');
    expect(update.responses['404'].description).toBe('Not found');
    expect(doc.paths['/items/{item_id}'].get.responses['404'].description).toBe('Not found');
    const adminOp = doc.paths['/admin/'].post;
    expect(adminOp.tags).toEqual(['admin']);
    expect(adminOp.responses['418'].description).toBe("I'm a teapot");
    expect(adminOp.responses['418'].content['application/problem+json'].schema).toBeDefined();
    expect(adminOp.responses['400']).toBeDefined();
    // The dependencies' parameters are the operations' own: FastAPI documents them the same way.
    const names = (operation: Json) => operation.parameters.map((p: Json) => `${p.in}:${p.name}`).sort();
    expect(names(adminOp)).toEqual(['header:x-token', 'query:token']);
    expect(names(doc.paths['/users/{username}'].get)).toEqual(['path:username', 'query:token']);
    // The users router declares none.
    expect(doc.paths['/users/{username}'].get.responses['404'].description).toBe('Not Found');
    expect(doc.paths['/users/'].get.responses['418']).toBeUndefined();
  });
});
