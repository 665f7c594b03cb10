/**
 * FastAPI's own tests of dependencies, ported: tutorial012 (dependencies in the path operation,
 * header params, 400 from a dependency, one 422 for all), test_dependency_cache (per request, sub-
 * dependencies, use_cache=False), tutorial008b–d (yield with the handler's error thrown in) and
 * testing_dependencies tutorial001 (an override that declares other params).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, dependency, header, HTTPError, NotFoundError, z } from '../src/index.js';
import { TestClient } from '../src/server/testing.js';

describe('tutorial012: dependencies in path operation decorators', () => {
  const verifyToken = dependency(
    { params: { x_token: header(z.string()) }, responses: { 400: 'X-Token header invalid' } },
    ({ x_token }) => {
      if (x_token !== 'fake-super-secret-token') throw new HTTPError(400, 'X-Token header invalid');
    },
  );
  const verifyKey = dependency({ params: { x_key: header(z.string()) }, responses: { 400: 'X-Key header invalid' } }, ({ x_key }) => {
    if (x_key !== 'fake-super-secret-key') throw new HTTPError(400, 'X-Key header invalid');
    return x_key;
  });
  const app = new API({ logger: false, dependencies: [verifyToken, verifyKey] });
  app.get('/items/', () => [{ item: 'Portal Gun' }, { item: 'Plumbus' }]);
  app.get('/users/', () => [{ username: 'Rick' }, { username: 'Morty' }]);
  let client: TestClient;
  beforeAll(async () => {
    client = await TestClient.start(app);
  });
  afterAll(() => client.close());
  const good = { 'x-token': 'fake-super-secret-token', 'x-key': 'fake-super-secret-key' };

  it.each(['/items/', '/users/'])('%s without headers: one 422 naming both', async (path) => {
    const res = await client.get(path);
    expect(res.status).toBe(422);
    expect(res.json<{ errors: { in: string; path: string[] }[] }>().errors.map((e) => `${e.in}:${e.path.join('.')}`)).toEqual([
      'header:x-token',
      'header:x-key',
    ]);
  });
  it.each(['/items/', '/users/'])('%s with a bad token or key: 400', async (path) => {
    expect((await client.get(path, { headers: { ...good, 'x-token': 'invalid' } })).json()).toMatchObject({
      status: 400,
      detail: 'X-Token header invalid',
    });
    expect((await client.get(path, { headers: { ...good, 'x-key': 'invalid' } })).json()).toMatchObject({
      status: 400,
      detail: 'X-Key header invalid',
    });
  });
  it('with both: 200', async () => {
    expect((await client.get('/items/', { headers: good })).json()).toEqual([{ item: 'Portal Gun' }, { item: 'Plumbus' }]);
  });
  it('documents the headers and the 400 on every operation', () => {
    const doc = app.openapi() as {
      paths: Record<string, { get: { parameters: { name: string; in: string; required: boolean }[]; responses: object } }>;
    };
    for (const path of ['/items/', '/users/']) {
      expect(doc.paths[path]!.get.parameters.map((p) => [p.in, p.name, p.required])).toEqual([
        ['header', 'x-token', true],
        ['header', 'x-key', true],
      ]);
      expect(Object.keys(doc.paths[path]!.get.responses)).toEqual(expect.arrayContaining(['200', '400', '422']));
    }
  });
});

describe('test_dependency_cache', () => {
  let counter = 0;
  const depCounter = dependency({}, () => ++counter);
  const freshCounter = dependency({ cache: false }, () => ++counter);
  const superDep = dependency({ uses: { count: depCounter } }, ({ count }) => count);
  const superFresh = dependency({ uses: { count: freshCounter } }, ({ count }) => count);
  const app = new API({ logger: false });
  app.get('/counter/', { uses: { count: depCounter } }, ({ count }) => ({ counter: count }));
  app.get('/sub-counter/', { uses: { subCounter: superDep, count: depCounter } }, ({ subCounter, count }) => ({
    counter: count,
    subcounter: subCounter,
  }));
  app.get('/sub-counter-no-cache/', { uses: { subCounter: superFresh, count: freshCounter } }, ({ subCounter, count }) => ({
    counter: count,
    subcounter: subCounter,
  }));
  let client: TestClient;
  beforeAll(async () => {
    counter = 0;
    client = await TestClient.start(app);
  });
  afterAll(() => client.close());

  it('normal counter', async () => {
    expect((await client.get('/counter/')).json()).toEqual({ counter: 1 });
    expect((await client.get('/counter/')).json()).toEqual({ counter: 2 });
  });
  it('sub-counter: one value per request', async () => {
    expect((await client.get('/sub-counter/')).json()).toEqual({ counter: 3, subcounter: 3 });
    expect((await client.get('/sub-counter/')).json()).toEqual({ counter: 4, subcounter: 4 });
  });
  it('sub-counter without cache: a run per use', async () => {
    expect((await client.get('/sub-counter-no-cache/')).json()).toEqual({ counter: 6, subcounter: 5 });
    expect((await client.get('/sub-counter-no-cache/')).json()).toEqual({ counter: 8, subcounter: 7 });
  });
});

describe("tutorial008b–d: dependencies with yield and the handler's error", () => {
  class OwnerError extends Error {}
  const log: string[] = [];
  const data: Record<string, { description: string; owner: string }> = {
    plumbus: { description: 'Freshly pickled plumbus', owner: 'Morty' },
    'portal-gun': { description: 'Gun to create portals', owner: 'Rick' },
  };
  const username = dependency({}, function* () {
    try {
      yield 'Rick';
    } catch (error) {
      if (error instanceof OwnerError) throw new HTTPError(400, `Owner error: ${error.message}`);
      log.push(`Oops, we didn't raise again: ${(error as Error).message}`);
    }
  });
  const app = new API({ logger: false });
  app.get('/items/{item_id}', { uses: { username } }, ({ item_id, username }) => {
    const item = data[item_id];
    if (!item) throw new NotFoundError('Item not found');
    if (item.owner !== username) throw new OwnerError(username);
    return item;
  });
  let client: TestClient;
  beforeAll(async () => {
    client = await TestClient.start(app);
  });
  afterAll(() => client.close());

  it('get item', async () => {
    expect((await client.get('/items/portal-gun')).json()).toEqual(data['portal-gun']);
  });
  it('owner error: translated by the dependency to 400', async () => {
    const res = await client.get('/items/plumbus');
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({ detail: 'Owner error: Rick' });
  });
  it('not found: the dependency swallows it, the 404 still answers (008c)', async () => {
    const res = await client.get('/items/foo');
    expect(res.status).toBe(404);
    expect(log).toEqual(["Oops, we didn't raise again: Item not found"]);
  });
});

describe('testing_dependencies tutorial001: an override with params of its own', () => {
  const commonParameters = dependency(
    { params: { q: z.string().optional(), skip: z.coerce.number().int().default(0), limit: z.coerce.number().int().default(100) } },
    ({ q, skip, limit }) => ({ q, skip, limit }),
  );
  const app = new API({ logger: false });
  app.get('/items/', { uses: { commons: commonParameters } }, ({ commons }) => ({ message: 'Hello Items!', params: commons }));
  app.get('/users/', { uses: { commons: commonParameters } }, ({ commons }) => ({ message: 'Hello Users!', params: commons }));
  const override = dependency({ params: { q: z.string().optional() } }, ({ q }) => ({ q: q ?? null, skip: 5, limit: 10 }));

  it("overrides in the items and users endpoints, with the override's params bound", async () => {
    const client = await TestClient.start(app, { overrides: [[commonParameters, override as never]] });
    try {
      expect((await client.get('/items/')).json()).toEqual({ message: 'Hello Items!', params: { q: null, skip: 5, limit: 10 } });
      expect((await client.get('/items/?q=foo')).json()).toEqual({ message: 'Hello Items!', params: { q: 'foo', skip: 5, limit: 10 } });
      expect((await client.get('/items/?q=foo&skip=100&limit=200')).json()).toEqual({
        message: 'Hello Items!',
        params: { q: 'foo', skip: 5, limit: 10 },
      });
      expect((await client.get('/users/')).json()).toEqual({ message: 'Hello Users!', params: { q: null, skip: 5, limit: 10 } });
    } finally {
      await client.close();
    }
  });

  it('normal app without overrides', async () => {
    const client = await TestClient.start(app);
    try {
      expect((await client.get('/items/?q=foo&skip=100&limit=200')).json()).toEqual({
        message: 'Hello Items!',
        params: { q: 'foo', skip: 100, limit: 200 },
      });
    } finally {
      await client.close();
    }
  });
});
