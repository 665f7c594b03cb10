/**
 * Route segments with a parameter and fixed text (`/reports/{id}.csv`, `/v{major}/items`): matched over
 * real HTTP with the documented precedence (fixed text, then fixed text with a parameter, then a bare
 * parameter), never empty, converted like any path parameter, documented as written; a segment fnapi
 * cannot match is refused where it is registered; `{p:path}` matches the empty rest.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, Router, z } from '../src/index.js';
import { TestClient } from '../src/server/testing.js';

function build(): API {
  const app = new API();
  app.get('/reports/latest.csv', () => ({ kind: 'static' }));
  app.get('/reports/{export_id}.csv', ({ export_id }) => ({ kind: 'csv', export_id }));
  app.get('/reports/{export_id}.tar.gz', ({ export_id }) => ({ kind: 'tar.gz', export_id }));
  app.get('/reports/{name}', ({ name }) => ({ kind: 'bare', name }));
  app.get('/v{major}/items', { params: { major: z.int() } }, ({ major }) => ({ major }));
  app.get('/img/thumb-{id}.png', { params: { id: z.int().min(1) } }, ({ id }) => ({ id }));
  app.get('/files/{file_path:path}', ({ file_path }) => ({ file_path }));
  return app;
}

describe('route segments with fixed text around a parameter', () => {
  let client: TestClient;
  beforeAll(async () => {
    client = await TestClient.start(build());
  });
  afterAll(async () => {
    await client.close();
  });

  it('the parameter takes the rest between the fixed text: /reports/a.b.csv → a.b', async () => {
    expect((await client.get('/reports/42.csv')).json()).toEqual({ kind: 'csv', export_id: '42' });
    expect((await client.get('/reports/a.b.csv')).json()).toEqual({ kind: 'csv', export_id: 'a.b' });
    expect((await client.get('/reports/a%20b.csv')).json()).toEqual({ kind: 'csv', export_id: 'a b' });
  });

  it('fixed text wins over fixed text with a parameter, which wins over a bare parameter', async () => {
    expect((await client.get('/reports/latest.csv')).json()).toEqual({ kind: 'static' });
    expect((await client.get('/reports/x.json')).json()).toEqual({ kind: 'bare', name: 'x.json' });
    // The longer fixed text first: `.tar.gz` before a bare parameter.
    expect((await client.get('/reports/x.tar.gz')).json()).toEqual({ kind: 'tar.gz', export_id: 'x' });
  });

  it('the parameter is never empty: /reports/.csv is the bare parameter', async () => {
    expect((await client.get('/reports/.csv')).json()).toEqual({ kind: 'bare', name: '.csv' });
  });

  it('fixed text before the parameter, converted by its schema: /v{major}/items', async () => {
    expect((await client.get('/v2/items')).json()).toEqual({ major: 2 });
    const bad = await client.get('/vx/items');
    expect(bad.status).toBe(422);
    expect(bad.json<{ errors: unknown[] }>().errors).toEqual([
      { in: 'path', path: ['major'], message: 'Expected an integer, got "x"', code: 'invalid_type' },
    ]);
    expect((await client.get('/v/items')).status).toBe(404);
    expect((await client.get('/img/thumb-7.png')).json()).toEqual({ id: 7 });
    expect((await client.get('/img/thumb-0.png')).status).toBe(422);
    expect((await client.get('/img/thumb-7.jpg')).status).toBe(404);
  });

  it('the document keeps the segment as written, with its parameter', async () => {
    const doc = (await client.get('/openapi.json')).json<any>();
    const op = doc.paths['/reports/{export_id}.csv'].get;
    expect(op.parameters).toEqual([expect.objectContaining({ name: 'export_id', in: 'path', required: true })]);
    const v = doc.paths['/v{major}/items'].get;
    expect(v.parameters).toEqual([
      expect.objectContaining({ name: 'major', in: 'path', schema: expect.objectContaining({ type: 'integer' }) }),
    ]);
  });

  it('{p:path} matches the empty rest, and /files is redirected there', async () => {
    expect((await client.get('/files/docs/a/b.txt')).json()).toEqual({ file_path: 'docs/a/b.txt' });
    expect((await client.get('/files/')).json()).toEqual({ file_path: '' });
    const bare = await client.get('/files');
    expect(bare.status).toBe(308);
    expect(bare.headers.location).toBe('/files/');
  });
});

describe('a segment fnapi cannot match is refused where it is registered', () => {
  const cases = ['/a/{x}{y}', '/a/{x}-{y}.csv', '/a/{x', '/a/x}', '/files/x{p:path}'];
  for (const route of cases) {
    it(`${route}: refused by router.get, the stack at the registering line`, () => {
      const router = new Router({ prefix: '/r' });
      let error: Error | undefined;
      try {
        router.get(route, () => ({})); // the registering line
      } catch (e) {
        error = e as Error;
      }
      expect(error?.message).toContain(`"${route}"`);
      // The call site in this file, not a later includeRouter.
      const frames = error!.stack!.split('\n').filter((l) => l.includes('route-segments.test.ts'));
      expect(frames.length).toBeGreaterThan(0);
      expect(error!.stack).not.toContain('includeRouter');
    });
  }

  it('says what to write', () => {
    expect(() => new API().get('/a/{x}{y}', () => ({}))).toThrow(/at most one parameter per segment.*\/reports\/\{id\}\.csv/);
    expect(() => new API().get('/files/x{p:path}', () => ({}))).toThrow(/fills its whole segment/);
  });

  it('two routes naming the parameter of the same fixed text differently conflict', () => {
    const app = new API();
    app.get('/r/{a}.csv', () => ({}));
    expect(() => app.get('/r/{b}.csv/x', () => ({}))).toThrow(/conflicts with \{a\}/);
  });
});
