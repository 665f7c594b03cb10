/**
 * Any validator: valibot and arktype schemas beside zod ones, served over real HTTP — binding and
 * strict conversion, 422 bodies with the library's codes, response models, streams, forms, and the
 * document (JSON Schema from each library, `{}` with one warning for a schema that offers none).
 */
import { Writable } from 'node:stream';
import { validate as validateOpenAPI } from '@hyperjump/json-schema/openapi-3-1';
import { type } from 'arktype';
import { pino } from 'pino';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, body, file, form, header, type StandardSchemaV1, z } from '../src/index.js';
import { TestClient } from '../src/server/testing.js';

/** A Standard Schema with no JSON Schema: a string of even length. */
const evenLength: StandardSchemaV1<string, string> = {
  '~standard': {
    version: 1,
    vendor: 'handmade',
    validate: (input) =>
      typeof input === 'string' && input.length % 2 === 0 ? { value: input } : { issues: [{ message: 'Expected an even length' }] },
  },
};

const Item = v.object({ id: v.pipe(v.number(), v.integer()), name: v.string() });
const NewItem = type({ name: 'string >= 2', 'price?': 'number >= 0' });
const Tick = v.object({ n: v.number() });

function build(logLines: Record<string, unknown>[]): API {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) logLines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const app = new API({ logger: pino({ level: 'warn' }, sink) });
  app.get(
    '/v/items/{id}',
    { params: { id: v.pipe(v.number(), v.integer(), v.minValue(1)), verbose: v.optional(v.boolean(), false) }, response: Item },
    ({ id, verbose }) => ({ id, name: verbose ? 'long name' : 'n', secret: 'dropped' }),
  );
  app.get('/v/broken', { response: Item }, () => ({ id: 'x' }) as never);
  app.post(
    '/a/items',
    { params: { item: NewItem, x_trace: header(type('string | undefined')) }, statusCode: 201 },
    ({ item, x_trace }) => ({
      ...item,
      trace: x_trace ?? null,
    }),
  );
  app.get(
    '/z/mixed/{id}',
    { params: { id: z.int(), tag: v.array(v.string()), limit: type('number.integer | undefined') } },
    (input) => input,
  );
  app.post(
    '/v/login',
    { params: { login: form(v.object({ user: v.string(), remember: v.optional(v.boolean(), false) })) } },
    ({ login }) => login,
  );
  app.post('/v/fields', { params: { a: v.number(), b: body(type('string')) } }, ({ a, b }) => ({ a, b }));
  app.get('/v/ticks', { params: { count: v.pipe(v.number(), v.integer()) }, lines: Tick }, function* ({ count }) {
    for (let n = 0; n < count; n++) yield { n, extra: true } as { n: number };
  });
  app.post(
    '/v/upload/{id}',
    { params: { id: type('number.integer'), doc: file(), pages: v.pipe(v.number(), v.integer()), note: v.optional(v.string()) } },
    async ({ id, doc, pages, note }) => ({ id, size: doc.size, text: await doc.text(), pages, note: note ?? null }),
  );
  app.get('/h/{word}', { params: { word: evenLength }, responses: { 404: { description: 'None', schema: Item } } }, ({ word }) => ({
    word,
  }));
  return app;
}

describe('Standard Schema endpoints over HTTP', () => {
  const logLines: Record<string, unknown>[] = [];
  let app: API;
  let client: TestClient;
  beforeAll(async () => {
    app = build(logLines);
    client = await TestClient.start(app);
  });
  afterAll(async () => {
    await client.close();
  });

  it('valibot: path and query converted strictly, response model filters', async () => {
    const ok = await client.get('/v/items/7?verbose=1');
    expect(ok.status).toBe(200);
    expect(ok.json()).toEqual({ id: 7, name: 'long name' });
    const bad = await client.get('/v/items/7x?verbose=yes');
    expect(bad.status).toBe(422);
    expect(bad.json()).toMatchObject({
      status: 422,
      errors: [
        { in: 'path', path: ['id'], message: 'Expected an integer, got "7x"', code: 'number' },
        { in: 'query', path: ['verbose'], message: 'Expected a boolean (true, false, 1 or 0), got "yes"', code: 'boolean' },
      ],
    });
    const small = await client.get('/v/items/0');
    expect(small.json<{ errors: unknown[] }>().errors).toEqual([
      { in: 'path', path: ['id'], message: 'Invalid value: Expected >=1 but received 0', code: 'min_value' },
    ]);
  });

  it('a value that does not fit a Standard Schema response model is a 500', async () => {
    expect((await client.get('/v/broken')).status).toBe(500);
  });

  it('arktype: a whole-body model and a header, missing fields reported as missing', async () => {
    const created = await client.post('/a/items', { json: { name: 'Lamp', price: 3 }, headers: { 'x-trace': 't1' } });
    expect(created.status).toBe(201);
    expect(created.json()).toEqual({ name: 'Lamp', price: 3, trace: 't1' });
    const bad = await client.post('/a/items', { json: { price: -1 } });
    expect(bad.status).toBe(422);
    expect(bad.json<{ errors: unknown[] }>().errors).toEqual([
      { in: 'body', path: ['name'], message: 'Field required', code: 'missing' },
      { in: 'body', path: ['price'], message: 'price must be non-negative (was -1)', code: 'min' },
    ]);
    expect((await client.post('/a/items', { body: '{"name":', headers: { 'content-type': 'application/json' } })).status).toBe(400);
  });

  it('zod, valibot and arktype in one endpoint', async () => {
    const ok = await client.get('/z/mixed/3?tag=a&tag=b&limit=10');
    expect(ok.json()).toEqual({ id: 3, tag: ['a', 'b'], limit: 10 });
    const bad = await client.get('/z/mixed/x?limit=1.5');
    expect(bad.json<{ errors: unknown[] }>().errors).toEqual([
      { in: 'path', path: ['id'], message: 'Expected an integer, got "x"', code: 'invalid_type' },
      { in: 'query', path: ['tag'], message: 'Field required', code: 'missing' },
      { in: 'query', path: ['limit'], message: 'Expected an integer, got "1.5"', code: 'predicate' },
    ]);
  });

  it('form(valibot) reads an urlencoded form, converting its fields', async () => {
    const res = await client.post('/v/login', {
      body: 'user=ada&remember=true',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ user: 'ada', remember: true });
  });

  it('body fields by name with valibot and arktype', async () => {
    expect((await client.post('/v/fields', { json: { a: 1, b: 'x' } })).json()).toEqual({ a: 1, b: 'x' });
    const bad = await client.post('/v/fields', { json: { a: '1' } });
    expect(bad.json<{ errors: unknown[] }>().errors).toEqual([
      { in: 'body', path: ['a'], message: 'Invalid type: Expected number but received "1"', code: 'number' },
      { in: 'body', path: ['b'], message: 'Field required', code: 'missing' },
    ]);
  });

  it('JSON Lines items are parsed through a valibot schema (unknown keys dropped)', async () => {
    const res = await client.get('/v/ticks?count=2');
    expect(res.body).toBe('{"n":0}\n{"n":1}\n');
  });

  it('multipart: valibot text fields beside a file, converted as strictly as query strings', async () => {
    const fd = new FormData();
    fd.append('doc', new Blob(['hello'], { type: 'text/plain' }), 'a.txt');
    fd.append('pages', '12');
    const ok = await client.post('/v/upload/3', { form: fd });
    expect(ok.status).toBe(200);
    expect(ok.json()).toEqual({ id: 3, size: 5, text: 'hello', pages: 12, note: null });
    const bad = new FormData();
    bad.append('doc', new Blob(['x']), 'b.txt');
    bad.append('pages', '1.5');
    const refused = await client.post('/v/upload/3', { form: bad });
    expect(refused.status).toBe(422);
    expect(refused.json<{ errors: unknown[] }>().errors).toEqual([
      { in: 'body', path: ['pages'], message: 'Invalid type: Expected number but received "1.5"', code: 'number' },
    ]);
  });

  it('a schema without a JSON Schema still validates, and is named in one warning', async () => {
    expect((await client.get('/h/ab')).json()).toEqual({ word: 'ab' });
    const bad = await client.get('/h/abc');
    expect(bad.json<{ errors: unknown[] }>().errors).toEqual([
      { in: 'path', path: ['word'], message: 'Expected an even length', code: 'invalid' },
    ]);
    const warnings = logLines.filter((line) => String(line.msg).includes('no JSON Schema'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.schemas).toEqual(['GET /h/{word}: params.word (handmade)']);
    app.openapi();
    expect(logLines.filter((line) => String(line.msg).includes('no JSON Schema'))).toHaveLength(1);
  });

  it('documents each schema by its JSON Schema, and the document is valid OpenAPI 3.1', async () => {
    const doc = app.openapi() as any;
    const get = doc.paths['/v/items/{id}'].get;
    expect(get.parameters).toEqual([
      { in: 'path', name: 'id', required: true, schema: { type: 'integer', minimum: 1 } },
      { in: 'query', name: 'verbose', required: false, schema: { type: 'boolean', default: false } },
    ]);
    expect(get.responses['200'].content['application/json'].schema).toEqual({
      type: 'object',
      properties: { id: { type: 'integer' }, name: { type: 'string' } },
      required: ['id', 'name'],
    });
    const post = doc.paths['/a/items'].post;
    expect(post.requestBody.required).toBe(true);
    expect(post.requestBody.content['application/json'].schema).toEqual({
      type: 'object',
      properties: { name: { type: 'string', minLength: 2 }, price: { type: 'number', minimum: 0 } },
      required: ['name'],
    });
    const fields = doc.paths['/v/fields'].post.requestBody.content['application/json'].schema;
    expect(fields).toEqual({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'string' } }, required: ['a', 'b'] });
    expect(doc.paths['/v/login'].post.requestBody.content['application/x-www-form-urlencoded'].schema).toMatchObject({
      type: 'object',
      properties: { user: { type: 'string' }, remember: { type: 'boolean' } },
    });
    expect(doc.paths['/h/{word}'].get.parameters[0].schema).toEqual({});
    expect(doc.paths['/v/ticks'].get.responses['200'].content['application/jsonl']['x-itemSchema']).toEqual({
      type: 'object',
      properties: { n: { type: 'number' } },
      required: ['n'],
    });
    const upload = doc.paths['/v/upload/{id}'].post.requestBody.content['multipart/form-data'].schema;
    expect(upload.properties.pages).toEqual({ type: 'integer' });
    expect(upload.required).toEqual(['doc', 'pages']);
    expect(doc.paths['/h/{word}'].get.responses['404'].content['application/json'].schema).toMatchObject({ type: 'object' });
    const output = await validateOpenAPI('https://spec.openapis.org/oas/3.1/schema-base', JSON.parse(JSON.stringify(doc)), 'BASIC');
    expect(output.valid ? [] : output.errors).toEqual([]);
  });
});
