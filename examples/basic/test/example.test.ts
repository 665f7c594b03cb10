import { TestClient } from '@fnapi/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';

describe('examples/basic: the seed endpoint set', () => {
  let client: TestClient;
  beforeAll(async () => {
    client = await TestClient.start(createApp({ logger: false }));
  });
  afterAll(() => client.close());

  it('GET /hello/{name} greets, with an optional greeting', async () => {
    expect((await client.get('/hello/Ada?greeting=Hi')).json()).toEqual({ message: 'Hi, Ada!' });
    expect((await client.get('/hello/Ada')).json()).toEqual({ message: 'Hello, Ada!' });
  });

  it('GET /users/{user_id}/posts/{post_id} takes two integers', async () => {
    expect((await client.get('/users/3/posts/14')).json()).toEqual({ user_id: 3, post_id: 14 });
    const bad = await client.get('/users/3/posts/abc');
    expect(bad.status).toBe(422);
    expect(bad.json()).toMatchObject({ errors: [{ in: 'path', path: ['post_id'] }] });
  });

  it('GET /search requires query and defaults page and limit', async () => {
    expect((await client.get('/search?query=fn')).json()).toEqual({ query: 'fn', page: 1, limit: 10, results: [] });
    expect((await client.get('/search?query=fn&page=2&limit=5')).json()).toMatchObject({ page: 2, limit: 5 });
    const missing = await client.get('/search');
    expect(missing.status).toBe(422);
    expect(missing.json()).toMatchObject({ errors: [{ in: 'query', path: ['query'], code: 'missing', message: 'Field required' }] });
  });

  it('POST /users validates the user model and answers 201', async () => {
    const created = await client.post('/users', { json: { name: 'Ada', email: 'ada@example.com', age: 36 } });
    expect(created.status).toBe(201);
    expect(created.json()).toMatchObject({ name: 'Ada', email: 'ada@example.com', age: 36, role: 'user', tags: [] });
    const invalid = await client.post('/users', { json: { name: 'A', email: 'nope', age: 17, role: 'root' } });
    expect(invalid.status).toBe(422);
    const paths = invalid.json<{ errors: { path: string[] }[] }>().errors.map((e) => e.path.join('.'));
    expect(paths.sort()).toEqual(['age', 'email', 'name', 'role']);
    const nested = await client.post('/users', {
      json: { name: 'Ada', email: 'ada@example.com', age: 36, address: { street: 'x', city: 1, country: 'UK', postal_code: 'N1' } },
    });
    expect(nested.json()).toMatchObject({ errors: [{ in: 'body', path: ['address', 'city'] }] });
  });

  it('POST /echo echoes the body with a custom header', async () => {
    const res = await client.post('/echo', { json: { any: ['thing', 1] } });
    expect(res.status).toBe(200);
    expect(res.headers['x-echo']).toBe('true');
    expect(res.json()).toEqual({ any: ['thing', 1] });
  });

  it('serves /docs, /redoc and /openapi.json', async () => {
    expect((await client.get('/docs')).status).toBe(200);
    expect((await client.get('/redoc')).status).toBe(200);
    const doc = (await client.get('/openapi.json')).json<{ openapi: string; paths: Record<string, unknown> }>();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual(['/echo', '/hello/{name}', '/search', '/users', '/users/{user_id}/posts/{post_id}']);
  });
});

describe('the example for a newcomer', () => {
  let client: TestClient;
  beforeAll(async () => {
    client = await TestClient.start(createApp({ logger: false }));
  });
  afterAll(() => client?.close());

  it('POST /echo echoes any JSON value as JSON', async () => {
    for (const value of ['a string', null, 42, [1, 'two'], { nested: { ok: true } }, false]) {
      const res = await client.post('/echo', { json: value });
      expect(res.status, JSON.stringify(value)).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.headers['x-echo']).toBe('true');
      expect(res.body).toBe(JSON.stringify(value));
    }
    expect((await client.post('/echo', { body: '{"broken', headers: { 'content-type': 'application/json' } })).status).toBe(400);
    const missing = await client.post('/echo');
    expect(missing.status).toBe(422);
    expect(missing.json()).toMatchObject({ errors: [{ in: 'body', path: [], code: 'missing', message: 'Field required' }] });
  });

  it('documents /echo’s body, its 400, and the API’s servers, contact, license, terms and tags', async () => {
    const doc = (await client.get('/openapi.json')).json<{
      info: Record<string, unknown>;
      servers: unknown[];
      tags: { name: string; description?: string }[];
      paths: Record<
        string,
        Record<string, { requestBody?: { required: boolean; content: Record<string, unknown> }; responses: Record<string, unknown> }>
      >;
      components: { schemas: Record<string, unknown> };
    }>();
    const echo = doc.paths['/echo']!.post!;
    expect(echo.requestBody?.required).toBe(true);
    // Any JSON value: an open schema, and no component named after the parameter.
    expect(echo.requestBody?.content['application/json']).toEqual({ schema: {} });
    expect(doc.components.schemas.Payload).toBeUndefined();
    expect(Object.keys(echo.responses)).toEqual(['200', '400', '413', '415', '422']);
    expect(doc.servers).toEqual([{ url: '/', description: 'The server serving this document' }]);
    expect(doc.info).toMatchObject({
      contact: { name: 'fnapi maintainers', email: 'maintainers@example.com' },
      license: { name: 'MIT', identifier: 'MIT' },
      termsOfService: 'https://example.com/terms',
    });
    expect(doc.tags.every((tag) => tag.description)).toBe(true);
  });

  it('redirects a path that differs by a trailing slash (308, query kept)', async () => {
    const res = await client.get('/search/?query=x');
    expect(res.status).toBe(308);
    expect(res.headers.location).toBe('/search?query=x');
  });
});
