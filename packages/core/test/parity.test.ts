import { mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, binary, cookie, FileResponse, header, query, Response, sseEvent, z } from '../src/index.js';
import { TestClient } from '../src/server/testing.js';

// Behaviours FastAPI users rely on, ported from its tutorial: partial-update answers, cookies,
// path converters, header/cookie/query models, parameter options, QUERY, files out.

const dir = mkdtempSync(join(tmpdir(), 'fnapi-parity-'));
const pdf = join(dir, 'report.pdf');
writeFileSync(pdf, 'PDF-0123456789');
utimesSync(pdf, new Date('2025-01-02T03:04:05Z'), new Date('2025-01-02T03:04:05Z'));

const Item = z.object({
  name: z.string().optional(),
  description: z.string().nullable().optional(),
  price: z.number().optional(),
  tax: z.number().default(10.5),
  tags: z.array(z.string()).default([]),
});

function build() {
  const app = new API({ logger: false });
  const items: Record<string, z.output<typeof Item>> = {
    foo: { name: 'Foo', price: 50.2, tax: 10.5, tags: [] },
    bar: { name: 'Bar', description: 'The bartenders', price: 62, tax: 20.2, tags: [] },
  };
  app.get('/items/{item_id}', { response: Item, responseExcludeUnset: true }, ({ item_id }) => {
    const { tax: _tax, tags: _tags, ...set } = items[item_id]!;
    return item_id === 'bar' ? items.bar! : set;
  });
  app.get('/items-all/{item_id}', { response: Item }, () => ({ name: 'Foo' }));
  const ItemUpdate = z.object({ name: z.string().optional(), price: z.number().optional() });
  app.patch('/items/{item_id}', { params: { item: ItemUpdate }, response: Item, responseExcludeUnset: true }, ({ item }) => item);
  app.get('/login', {}, (_input, request) => {
    request.setCookie('session', 'abc 123', { maxAge: 60 });
    request.setCookie('theme', 'dark', { httpOnly: false, sameSite: 'strict' });
    request.responseHeaders.set('x-extra', 'yes');
    return { ok: true };
  });
  app.get('/logout', {}, (_input, request) => {
    request.deleteCookie('session');
    return [{ ok: true }, 202];
  });
  app.get('/bad-cookie', {}, (_input, request) => {
    request.setCookie('bad name', 'x');
    return {};
  });
  app.get('/web', {}, (_input, request) => {
    request.setCookie('a', '1');
    return new Response('text').setCookie('b', '2', { secure: true });
  });
  app.get('/files/{file_path:path}', {}, ({ file_path }) => ({ file_path }));
  app.get('/headers', { params: { h: header(z.object({ x_token: z.string(), traceparent: z.string().optional() })) } }, ({ h }) => h);
  app.get(
    '/cookies',
    { params: { c: cookie(z.object({ session_id: z.string(), fatebook_tracker: z.string().optional() })) } },
    ({ c }) => c,
  );
  app.get('/strict-cookies', { params: { c: cookie(z.strictObject({ session_id: z.string() })) } }, ({ c }) => c);
  app.get(
    '/search',
    {
      params: {
        filter: query(
          z.strictObject({ limit: z.int().max(100).default(100), order_by: z.enum(['created_at', 'updated_at']).default('created_at') }),
        ),
        page: z.int().optional(),
      },
    },
    ({ filter, page }) => ({ ...filter, page }),
  );
  app.get('/loose', { params: { filter: z.object({ limit: z.int().default(10) }) } }, ({ filter }) => filter);
  app.get(
    '/aliased',
    {
      params: {
        q: query(z.string().optional(), { alias: 'item-query' }),
        legacy: header(z.string().optional(), { alias: 'x_legacy_token' }),
        strange: header(z.string().optional()),
        hidden: query(z.string().optional(), { includeInSchema: false }),
      },
    },
    (input) => input,
  );
  app.query('/find', { params: { terms: z.array(z.string()), limit: z.int().default(10) } }, ({ terms, limit }) => ({ terms, limit }));
  app.get('/events', { events: z.object({ n: z.int() }), ping: 0 }, async function* () {
    yield sseEvent({ comment: 'hello\nworld' });
    yield sseEvent({ data: 'line one\nline two', raw: true, event: 'text' });
    yield { n: 1 };
  });
  app.get(
    '/named',
    { events: { welcome: z.object({ hi: z.string() }), message: z.object({ text: z.string() }) }, ping: 0 },
    async function* () {
      yield sseEvent({ event: 'welcome', data: { hi: 'there' } });
      yield sseEvent({ event: 'message', data: { text: 'x' } });
    },
  );
  app.get('/report', { response: binary(['application/pdf']) }, () => new FileResponse(pdf));
  app.get(
    '/report/{name}',
    { response: binary(['application/pdf']) },
    ({ name }) => new FileResponse(join(dir, name), { filename: 'Résumé été.pdf' }),
  );
  app.get(
    '/inline',
    { response: binary(['text/plain']) },
    () => new FileResponse(new TextEncoder().encode('hello'), { filename: 'a.txt', inline: true }),
  );
  app.get(
    '/blob',
    { response: binary(['image/png']) },
    () => new FileResponse(new Blob([new Uint8Array([1, 2, 3, 4])], { type: 'image/png' })),
  );
  app.get('/stream-file', { response: binary(['text/csv']) }, () => {
    async function* rows() {
      yield 'a,b\n';
      yield '1,2\n';
    }
    return new FileResponse(rows(), { filename: 'rows.csv', size: 8 });
  });
  app.get('/not-binary', { response: binary(['application/pdf']) }, () => ({ no: 1 }) as never);
  return app;
}

let client: TestClient;
beforeAll(async () => {
  client = await TestClient.start(build());
});
afterAll(() => client.close());

describe('responseExcludeUnset', () => {
  it('leaves out what the handler did not set, defaults included', async () => {
    const foo = await client.get('/items/foo');
    expect(foo.json()).toEqual({ name: 'Foo', price: 50.2 });
    expect((await client.get('/items/bar')).json()).toEqual({ name: 'Bar', description: 'The bartenders', price: 62, tax: 20.2, tags: [] });
    expect((await client.get('/items-all/foo')).json()).toEqual({ name: 'Foo', tax: 10.5, tags: [] });
    const patched = await client.patch('/items/foo', { json: { price: 3 } });
    expect(patched.json()).toEqual({ price: 3 });
  });
});

describe('cookies and response headers', () => {
  it('sets cookies with safe defaults, as several Set-Cookie lines', async () => {
    const res = await client.get('/login');
    const lines = res.headers['set-cookie'] as string[];
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe('session=abc%20123; Max-Age=60; Path=/; HttpOnly; SameSite=Lax');
    expect(lines[1]).toBe('theme=dark; Path=/; SameSite=Strict');
    expect(res.headers['x-extra']).toBe('yes');
  });
  it('expires a cookie on a tuple answer', async () => {
    const res = await client.get('/logout');
    expect(res.status).toBe(202);
    expect(res.headers['set-cookie']).toMatch(
      /^session=; Max-Age=0; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax$/,
    );
  });
  it('an invalid cookie name is a server bug (500)', async () => {
    expect((await client.get('/bad-cookie')).status).toBe(500);
  });
  it('merges the request cookies into a returned Response with its own', async () => {
    const res = await client.get('/web');
    expect(res.body).toBe('text');
    expect(res.headers['set-cookie']).toEqual(['b=2; Path=/; HttpOnly; Secure; SameSite=Lax', 'a=1; Path=/; HttpOnly; SameSite=Lax']);
  });
});

describe('binding', () => {
  it('{name:path} matches the rest of the path', async () => {
    expect((await client.get('/files/docs/a/b.txt')).json()).toEqual({ file_path: 'docs/a/b.txt' });
    expect((await client.get('/files/home%2Fx/y%20z')).json()).toEqual({ file_path: 'home/x/y z' });
    expect((await client.get('/files/')).json()).toEqual({ file_path: '' });
  });
  it('header models spread their fields over headers', async () => {
    const res = await client.get('/headers', { headers: { 'x-token': 't1' } });
    expect(res.json()).toEqual({ x_token: 't1' });
    const missing = await client.get('/headers');
    expect(missing.status).toBe(422);
    expect(missing.json<any>().errors).toEqual([{ in: 'header', path: ['x_token'], message: 'Field required', code: 'missing' }]);
  });
  it('cookie models spread their fields over cookies; a strict one refuses others', async () => {
    const res = await client.get('/cookies', { headers: { cookie: 'session_id=123; fatebook_tracker=456; other=1' } });
    expect(res.json()).toEqual({ session_id: '123', fatebook_tracker: '456' });
    expect((await client.get('/strict-cookies', { headers: { cookie: 'session_id=1' } })).json()).toEqual({ session_id: '1' });
    const extra = await client.get('/strict-cookies', { headers: { cookie: 'session_id=1; santa_tracker=good' } });
    expect(extra.status).toBe(422);
    expect(extra.json<any>().errors).toEqual([
      { in: 'cookie', path: ['santa_tracker'], message: 'Unrecognized key: "santa_tracker"', code: 'unrecognized_keys' },
    ]);
  });
  it('a strict query model answers an unknown key with 422; an ordinary one ignores it', async () => {
    expect((await client.get('/search?limit=5&page=2')).json()).toEqual({ limit: 5, order_by: 'created_at', page: 2 });
    const unknown = await client.get('/search?limit=5&tool=plumbus');
    expect(unknown.status).toBe(422);
    expect(unknown.json<any>().errors).toEqual([
      { in: 'query', path: ['tool'], message: 'Unrecognized key: "tool"', code: 'unrecognized_keys' },
    ]);
    expect((await client.get('/loose?limit=3&tool=plumbus')).json()).toEqual({ limit: 3 });
  });
  it('alias names the key or header on the wire; underscores are read as written', async () => {
    const res = await client.get('/aliased?item-query=foo&hidden=h', { headers: { x_legacy_token: 'old', strange: 's' } });
    expect(res.json()).toEqual({ q: 'foo', legacy: 'old', strange: 's', hidden: 'h' });
  });
});

describe('QUERY', () => {
  it('is bound like POST and answered', async () => {
    const res = await client.query('/find', { json: { terms: ['a', 'b'] } });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ terms: ['a', 'b'], limit: 10 });
    expect((await client.query('/find', { json: { terms: 'a' } })).status).toBe(422);
  });
});

describe('sseEvent comment and raw', () => {
  it('sends comment lines and raw data lines', async () => {
    const res = await client.get('/events');
    expect(res.body).toBe(': hello\n: world\n\nevent: text\ndata: line one\ndata: line two\n\ndata: {"n":1}\n\n');
  });
  it('named events parse their data by name', async () => {
    const res = await client.get('/named');
    expect(res.body).toBe('event: welcome\ndata: {"hi":"there"}\n\nevent: message\ndata: {"text":"x"}\n\n');
  });
});

describe('FileResponse', () => {
  it('sends a file from a path with its name, type, length, ETag and Last-Modified', async () => {
    const res = await client.get('/report');
    expect(res.status).toBe(200);
    expect(res.body).toBe('PDF-0123456789');
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-length']).toBe('14');
    expect(res.headers['content-disposition']).toBe('attachment; filename="report.pdf"');
    expect(res.headers['last-modified']).toBe('Thu, 02 Jan 2025 03:04:05 GMT');
    expect(res.headers['accept-ranges']).toBe('bytes');
    const etag = res.headers.etag as string;
    expect(etag).toMatch(/^".+"$/);
    const again = await client.get('/report', { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);
    expect((await client.get('/report', { headers: { 'if-modified-since': 'Thu, 02 Jan 2025 03:04:05 GMT' } })).status).toBe(304);
    expect((await client.get('/report', { headers: { 'if-modified-since': 'Wed, 01 Jan 2025 00:00:00 GMT' } })).status).toBe(200);
    const head = await client.head('/report');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe('14');
  });
  it('answers one range with 206, past the end with 416', async () => {
    const part = await client.get('/report', { headers: { range: 'bytes=4-7' } });
    expect(part.status).toBe(206);
    expect(part.body).toBe('0123');
    expect(part.headers['content-range']).toBe('bytes 4-7/14');
    expect(part.headers['content-length']).toBe('4');
    const suffix = await client.get('/report', { headers: { range: 'bytes=-3' } });
    expect(suffix.body).toBe('789');
    const open = await client.get('/report', { headers: { range: 'bytes=10-' } });
    expect(open.body).toBe('6789');
    const past = await client.get('/report', { headers: { range: 'bytes=100-200' } });
    expect(past.status).toBe(416);
    expect(past.headers['content-range']).toBe('bytes */14');
    const several = await client.get('/report', { headers: { range: 'bytes=0-1,4-5' } });
    expect(several.status).toBe(200);
  });
  it('encodes a name that is not plain ASCII with filename* (RFC 6266)', async () => {
    const res = await client.get('/report/report.pdf');
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="R_sum_ _t_.pdf"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%C3%A9t%C3%A9.pdf`,
    );
    expect((await client.get('/report/missing.pdf')).status).toBe(404);
  });
  it('sends bytes inline, a Blob, and a stream with its size', async () => {
    const inline = await client.get('/inline');
    expect(inline.headers['content-disposition']).toBe('inline; filename="a.txt"');
    expect(inline.body).toBe('hello');
    const blob = await client.get('/blob', { headers: { range: 'bytes=1-2' } });
    expect(blob.status).toBe(206);
    expect(blob.headers['content-type']).toBe('image/png');
    const streamed = await client.get('/stream-file');
    expect(streamed.body).toBe('a,b\n1,2\n');
    expect(streamed.headers['content-length']).toBe('8');
    expect(streamed.headers['content-type']).toBe('text/csv; charset=utf-8');
  });
  it('a binary() endpoint that answers with data is a server bug', async () => {
    expect((await client.get('/not-binary')).status).toBe(500);
  });
});

describe('the document', () => {
  it('documents {name:path}, QUERY, binary answers and wrapper options', () => {
    const app = build();
    const doc = app.openapi() as any;
    expect(doc.paths['/files/{file_path}'].get.parameters[0]).toMatchObject({ name: 'file_path', in: 'path', required: true });
    expect(doc.paths['/find']['x-query']).toBeDefined();
    expect(doc.paths['/report'].get.responses['200'].content).toEqual({
      'application/pdf': { schema: { type: 'string', format: 'binary' } },
    });
    expect(doc.paths['/report'].get.responses['204']).toBeUndefined();
    const names = doc.paths['/aliased'].get.parameters.map((p: any) => `${p.in}:${p.name}`);
    expect(names).toEqual(['query:item-query', 'header:x_legacy_token', 'header:strange']);
    const v32 = new API({ logger: false, openapiVersion: '3.2.0' });
    v32.query('/find', { params: { q: z.string() } }, ({ q }) => ({ q }));
    expect(Object.keys((v32.openapi() as any).paths['/find'])).toEqual(['query']);
  });

  it("renders a parameter's title as its schema's title and its description beside it", () => {
    const app = new API({ logger: false });
    app.get(
      '/items',
      {
        params: {
          q: query(z.string().meta({ title: 'Query string' }).describe('Words to look for').optional(), { deprecated: true }),
          t: z.string().meta({ title: 'Only a title' }).optional(),
          old: z.string().meta({ deprecated: true, description: 'Use q' }).optional(),
          h: header(z.object({ x_token: z.string() })),
        },
      },
      () => ({}),
    );
    const parameters = (app.openapi() as any).paths['/items'].get.parameters;
    expect(parameters).toEqual([
      {
        name: 'q',
        in: 'query',
        required: false,
        description: 'Words to look for',
        deprecated: true,
        schema: { type: 'string', title: 'Query string' },
      },
      { name: 't', in: 'query', required: false, schema: { type: 'string', title: 'Only a title' } },
      { name: 'old', in: 'query', required: false, description: 'Use q', deprecated: true, schema: { type: 'string' } },
      { name: 'x-token', in: 'header', required: true, schema: { type: 'string' } },
    ]);
  });

  it('requires defaulted fields in output schemas, keeps them optional in input', () => {
    const app = new API({ logger: false });
    const User = z
      .object({ name: z.string(), role: z.string().default('user'), tags: z.array(z.string()).default([]) })
      .meta({ id: 'User' });
    app.post('/users', { params: { user: User }, response: User }, ({ user }) => user);
    const doc = app.openapi() as any;
    expect(doc.components.schemas.User.required).toEqual(['name', 'role', 'tags']);
    expect(doc.components.schemas.UserInput.required).toEqual(['name']);
  });

  it('describes events as OpenAPI 3.2 does, one branch per name; an app without schemes says security: [] once, at the root', () => {
    const app = new API({ logger: false, openapiVersion: '3.2.0' });
    const Welcome = z.object({ latest: z.int() }).meta({ id: 'Welcome' });
    const Message = z.object({ text: z.string() }).meta({ id: 'Message' });
    app.get('/feed', { events: { welcome: Welcome, message: Message } }, async function* () {});
    app.get('/rows', { lines: Message }, async function* () {});
    const doc = app.openapi() as any;
    const item = doc.paths['/feed'].get.responses['200'].content['text/event-stream'].itemSchema;
    expect(item.oneOf).toHaveLength(2);
    expect(item.oneOf[0]).toEqual({
      type: 'object',
      required: ['data', 'event'],
      properties: {
        data: { type: 'string', contentMediaType: 'application/json', contentSchema: { $ref: '#/components/schemas/Welcome' } },
        event: { type: 'string', const: 'welcome' },
        id: { type: 'string' },
        retry: { type: 'integer', minimum: 0 },
      },
    });
    expect(doc.paths['/rows'].get.responses['200'].content['application/jsonl'].itemSchema).toEqual({
      $ref: '#/components/schemas/Message',
    });
    expect(doc.security).toEqual([]);
    expect(doc.paths['/feed'].get.security).toBeUndefined();
  });

  it('documents declared response headers and examples', () => {
    const app = new API({ logger: false });
    const Echo = z.object({ text: z.string().meta({ examples: ['hello'] }) }).meta({ id: 'Echo' });
    app.post(
      '/echo',
      { params: { text: z.string() }, response: Echo, responses: { 200: { description: 'The text', headers: { 'X-Echo': z.string() } } } },
      ({ text }) => ({ text }),
    );
    const doc = app.openapi() as any;
    const ok = doc.paths['/echo'].post.responses['200'];
    expect(ok.description).toBe('The text');
    expect(ok.headers['X-Echo']).toMatchObject({ schema: { type: 'string' } });
    expect(ok.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Echo' });
    expect(doc.components.schemas.Echo.properties.text.examples).toEqual(['hello']);
  });
});
