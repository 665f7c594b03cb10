/**
 * Deprecation and sunset: `Deprecation` (RFC 9745), `Sunset` (RFC 8594) and `Link; rel="deprecation"`
 * on every answer of a deprecated endpoint, errors included, over real HTTP; and the document.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { API, HTTPError, Router, z } from '../src/index.js';
import { TestClient } from '../src/server/testing.js';

let client: TestClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

type Json = Record<string, any>;

function build(): API {
  const app = new API({ logger: false });
  app.api(
    {
      route: '/old/{id}',
      method: 'GET',
      params: { id: z.int() },
      deprecated: '2026-12-01',
      sunset: '2027-06-30',
      deprecationLink: 'https://example.com/migrate',
      response: z.object({ id: z.int() }),
      responses: { 409: 'Taken' },
    },
    ({ id }) => {
      if (id === 0) throw new HTTPError(409, 'taken');
      if (id === 1) throw new Error('boom');
      return { id };
    },
  );
  app.get('/flagged', { deprecated: true }, () => ({ ok: true }));
  app.get('/when', { deprecated: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)) }, () => ({ ok: true }));
  app.get('/current', () => ({ ok: true }));
  return app;
}

describe('deprecation headers', () => {
  it('are sent on every answer of the endpoint: success, 404-less 422, declared and thrown errors, a 500', async () => {
    client = await TestClient.start(build());
    const deprecation = `@${Date.UTC(2026, 11, 1) / 1000}`;
    for (const [path, status] of [
      ['/old/5', 200],
      ['/old/x', 422],
      ['/old/0', 409],
      ['/old/1', 500],
    ] as const) {
      const res = await client.get(path);
      expect(res.status, path).toBe(status);
      expect(res.headers.deprecation, path).toBe(deprecation);
      expect(res.headers.sunset, path).toBe('Wed, 30 Jun 2027 00:00:00 GMT');
      expect(res.headers.link, path).toBe('<https://example.com/migrate>; rel="deprecation"');
    }
    // HEAD of a GET too.
    const head = await client.head('/old/5');
    expect(head.headers.deprecation).toBe(deprecation);
  });

  it('`deprecated: true` sends no Deprecation header; a Date is its instant; others send none', async () => {
    client = await TestClient.start(build());
    expect((await client.get('/flagged')).headers.deprecation).toBeUndefined();
    expect((await client.get('/when')).headers.deprecation).toBe(`@${Date.UTC(2026, 0, 2, 3, 4, 5) / 1000}`);
    const current = await client.get('/current');
    expect(current.headers.deprecation).toBeUndefined();
    expect(current.headers.sunset).toBeUndefined();
    expect(current.headers.link).toBeUndefined();
  });

  it('are documented: deprecated, x-sunset, and the headers under each response', () => {
    const doc = build().openapi() as Json;
    const op = doc.paths['/old/{id}'].get;
    expect(op.deprecated).toBe(true);
    expect(op['x-sunset']).toBe('2027-06-30');
    expect(Object.keys(op.responses).sort()).toEqual(['200', '404', '409', '422']);
    for (const response of Object.values(op.responses) as Json[]) {
      expect(Object.keys(response.headers)).toEqual(['Deprecation', 'Sunset', 'Link']);
      expect(response.headers.Deprecation).toMatchObject({ required: true, schema: { type: 'string' } });
      expect(response.headers.Sunset.schema.examples).toEqual(['Wed, 30 Jun 2027 00:00:00 GMT']);
    }
    expect(doc.paths['/flagged'].get.deprecated).toBe(true);
    expect(doc.paths['/flagged'].get.responses['200'].headers).toBeUndefined();
    expect(doc.paths['/current'].get.deprecated).toBeUndefined();
    // A future date still marks the operation deprecated from the start.
    const app = new API({ logger: false });
    app.get('/later', { deprecated: '2099-01-01' }, () => null);
    expect((app.openapi() as Json).paths['/later'].get.deprecated).toBe(true);
  });

  it('refuses a date it cannot read at registration, naming the option', () => {
    const app = new API({ logger: false });
    expect(() => app.get('/a', { deprecated: 'soon' as never }, () => null)).toThrow(/GET \/a: deprecated is a date/);
    expect(() => app.get('/b', { sunset: '2027-02-30' }, () => null)).toThrow(/sunset is a date/);
    expect(() => app.get('/c', { deprecationLink: 'has space' }, () => null)).toThrow(/deprecationLink is a URL/);
  });
});

describe('router options', () => {
  it('responses, deprecated, sunset, deprecationLink and includeInSchema apply to each endpoint; the endpoint wins', async () => {
    const app = new API({ logger: false });
    const old = new Router({
      prefix: '/v1',
      responses: { 404: 'Not found', 418: { description: 'Teapot', schema: z.object({ brew: z.string() }) } },
      deprecated: '2026-01-01',
      sunset: '2027-01-01',
      deprecationLink: 'https://example.com/v2',
    });
    old.get('/a', () => ({ a: 1 }));
    old.get('/b', { responses: { 404: 'No such b' }, deprecated: false, sunset: '2028-01-01' }, () => ({ b: 1 }));
    const inner = new Router({ prefix: '/inner', includeInSchema: false });
    inner.get('/hidden', () => ({ hidden: true }));
    inner.get('/shown', { includeInSchema: true }, () => ({ shown: true }));
    old.includeRouter(inner);
    app.includeRouter(old);
    // Added after inclusion: the router's options hold for it too.
    old.get('/late', () => ({ late: true }));

    const doc = app.openapi() as Json;
    const a = doc.paths['/v1/a'].get;
    expect(a.deprecated).toBe(true);
    expect(a['x-sunset']).toBe('2027-01-01');
    expect(a.responses['404'].description).toBe('Not found');
    expect(a.responses['418'].content['application/json'].schema.properties.brew).toEqual({ type: 'string' });
    const b = doc.paths['/v1/b'].get;
    expect(b.deprecated).toBeUndefined();
    expect(b['x-sunset']).toBe('2028-01-01');
    expect(b.responses['404'].description).toBe('No such b');
    expect(b.responses['418'].description).toBe('Teapot');
    expect(doc.paths['/v1/inner/hidden']).toBeUndefined();
    expect(doc.paths['/v1/inner/shown'].get.deprecated).toBe(true);
    expect(doc.paths['/v1/late'].get.deprecated).toBe(true);

    client = await TestClient.start(app);
    const resA = await client.get('/v1/a');
    expect(resA.headers.deprecation).toBe(`@${Date.UTC(2026, 0, 1) / 1000}`);
    expect(resA.headers.link).toBe('<https://example.com/v2>; rel="deprecation"');
    const resB = await client.get('/v1/b');
    expect(resB.headers.deprecation).toBeUndefined();
    expect(resB.headers.sunset).toBe('Sat, 01 Jan 2028 00:00:00 GMT');
    const hidden = await client.get('/v1/inner/hidden');
    expect(hidden.status).toBe(200);
    expect(hidden.headers.sunset).toBe('Fri, 01 Jan 2027 00:00:00 GMT');
    expect((await client.get('/v1/late')).headers.deprecation).toBeDefined();
  });
});
