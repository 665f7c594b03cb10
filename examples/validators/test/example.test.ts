/**
 * The validators example over real HTTP: valibot, arktype and zod endpoints side by side — strict
 * conversion, 422 bodies with each library's codes, response models — and a document that is valid
 * OpenAPI 3.1 with every schema described.
 */
import { validate } from '@hyperjump/json-schema/openapi-3-1';
import { TestClient } from '@fnapi/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';

type Problem = { status: number; errors: { in: string; path: (string | number)[]; message: string; code: string }[] };

describe('the validators example', () => {
  let client: TestClient;
  const app = createApp();
  beforeAll(async () => {
    client = await TestClient.start(app);
  });
  afterAll(async () => client?.close());

  it('valibot: query and path converted, the response model applied', async () => {
    const list = await client.get('/books?limit=5&author=Frank%20Herbert');
    expect(list.status).toBe(200);
    expect(list.json()).toEqual([{ id: 1, title: 'Dune', author: 'Frank Herbert', year: 1965 }]);
    expect((await client.get('/books/1')).json()).toMatchObject({ title: 'Dune' });
    expect((await client.get('/books/99')).status).toBe(404);
    const bad = await client.get('/books?limit=500');
    expect(bad.status).toBe(422);
    expect(bad.json<Problem>().errors).toEqual([
      { in: 'query', path: ['limit'], message: 'Invalid value: Expected <=100 but received 500', code: 'max_value' },
    ]);
    expect((await client.get('/books/abc')).json<Problem>().errors).toEqual([
      { in: 'path', path: ['book_id'], message: 'Expected an integer, got "abc"', code: 'number' },
    ]);
  });

  it('arktype: the body model, its issues and a missing field', async () => {
    const created = await client.post('/books', { json: { title: 'Emma', author: 'Jane Austen', year: 1815 } });
    expect(created.status).toBe(201);
    expect(created.json()).toEqual({ id: 2, title: 'Emma', author: 'Jane Austen', year: 1815 });
    const bad = await client.post('/books', { json: { title: '', year: 1815.5 } });
    expect(bad.status).toBe(422);
    expect(bad.json<Problem>().errors.map((e) => [e.path.join('.'), e.code])).toEqual([
      ['author', 'missing'],
      ['title', 'minLength'],
      ['year', 'divisor'],
    ]);
  });

  it('zod, valibot and arktype in one endpoint', async () => {
    const ok = await client.post('/books/1/reviews?notify=true', { json: { stars: 5 } });
    expect(ok.status).toBe(201);
    expect(ok.json()).toEqual({ book_id: 1, count: 1, notify: true });
    const bad = await client.post('/books/x/reviews?notify=maybe', { json: { stars: 9 } });
    expect(bad.json<Problem>().errors.map((e) => [e.in, e.path.join('.'), e.code])).toEqual([
      ['path', 'book_id', 'invalid_type'],
      ['query', 'notify', 'union'],
      ['body', 'stars', 'too_big'],
    ]);
  });

  it('documents every schema from its library and stays valid OpenAPI 3.1', async () => {
    const doc = (await client.get('/openapi.json')).json<any>();
    expect(doc.paths['/books'].get.parameters).toContainEqual({
      in: 'query',
      name: 'limit',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    });
    expect(doc.paths['/books'].post.requestBody.content['application/json'].schema.properties.year).toEqual({
      type: 'integer',
      minimum: 1000,
      maximum: 2100,
    });
    expect(doc.paths['/books/{book_id}'].get.responses['200'].content['application/json'].schema.required).toEqual([
      'id',
      'title',
      'author',
    ]);
    const output = await validate('https://spec.openapis.org/oas/3.1/schema-base', doc, 'BASIC');
    expect(output.valid ? [] : output.errors).toEqual([]);
  });
});
