/**
 * A document per version (`documents`), served with its docs pages beside the whole one, and the
 * Scalar page (`docsUi: 'scalar'`): its assets served by the app, and the error without the package.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { API, Router, z } from '../src/index.js';
import { TestClient } from '../src/server/testing.js';

type Json = Record<string, any>;

let client: TestClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

function versioned(options: ConstructorParameters<typeof API>[0] = {}) {
  const v1 = new Router({ prefix: '/v1', deprecated: '2026-12-01', sunset: '2027-06-30' });
  const v2 = new Router({ prefix: '/v2' });
  const admin = new Router({ prefix: '/admin' });
  const app = new API({
    title: 'Versions',
    logger: false,
    documents: { v1: { routers: [v1] }, v2: { routers: [v2], version: '2.0.0', title: 'Versions, v2' } },
    ...options,
  });
  v1.get('/users/{id}', { params: { id: z.int() } }, ({ id }) => ({ id }));
  const nested = new Router({ prefix: '/reports' });
  nested.get('/{id}', () => ({ report: true }));
  v2.includeRouter(nested);
  v2.get('/users/{id}', { params: { id: z.int() } }, ({ id }) => ({ id, v: 2 }));
  admin.get('/stats', () => ({}));
  app.includeRouter(v1);
  app.includeRouter(v2);
  app.includeRouter(admin);
  return { app, v1, v2 };
}

describe('documents', () => {
  it('serves a document and docs pages per key beside the whole one, paths written in full', async () => {
    const { app } = versioned();
    client = await TestClient.start(app);
    const whole = (await client.get('/openapi.json')).json<Json>();
    expect(Object.keys(whole.paths).sort()).toEqual(['/admin/stats', '/v1/users/{id}', '/v2/reports/{id}', '/v2/users/{id}']);
    const v1 = await client.get('/v1/openapi.json');
    expect(v1.status).toBe(200);
    expect(Object.keys(v1.json<Json>().paths)).toEqual(['/v1/users/{id}']);
    expect(v1.json<Json>().paths['/v1/users/{id}'].get.deprecated).toBe(true);
    const v2 = (await client.get('/v2/openapi.json')).json<Json>();
    expect(Object.keys(v2.paths).sort()).toEqual(['/v2/reports/{id}', '/v2/users/{id}']);
    expect(v2.info).toMatchObject({ title: 'Versions, v2', version: '2.0.0' });
    for (const page of ['/v1/docs', '/v1/redoc', '/v2/docs', '/v2/redoc', '/docs', '/redoc']) {
      const res = await client.get(page);
      expect(res.status, page).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
    }
    expect((await client.get('/v1/docs')).body).toContain('data-openapi-url="/v1/openapi.json"');
    expect((await client.get('/v2/redoc')).body).toContain('spec-url="/v2/openapi.json"');
    // The pages' assets are served once, for all of them.
    const script = /src="([^"]*swagger-ui-bundle\.js)"/.exec((await client.get('/v1/docs')).body)![1]!;
    expect((await client.get(script)).status).toBe(200);
    expect(app.openapi('v1')).toEqual(v1.json());
  });

  it('refuses a route that collides with a document path, and an unknown key', () => {
    const { app, v1 } = versioned();
    const other = new Router({ prefix: '/v1' });
    other.get('/openapi.json', () => ({}));
    expect(() => app.includeRouter(other)).toThrow(/GET \/v1\/openapi\.json collides with the document of document "v1"/);
    expect(() => app.get('/v2/docs', () => ({}))).toThrow(/collides with the docs page of document "v2"/);
    // A POST there is another route.
    expect(() => v1.post('/docs', () => ({}))).not.toThrow();
    expect(() => app.openapi('v3')).toThrow(/No document "v3": the app's documents are "v1", "v2"/);
  });

  it('refuses documents it cannot serve, at construction', () => {
    expect(() => new API({ documents: { 'a/b': { routers: [new Router()] } } })).toThrow(/one path segment/);
    expect(() => new API({ documents: { v1: { routers: [] } } })).toThrow(/documents\.v1: routers is a list/);
    expect(() => new API({ documents: { v1: { routers: [new Router()] } }, openapiUrl: null })).toThrow(/openapiUrl is null/);
  });
});

describe("docsUi: 'scalar'", () => {
  it('serves the Scalar page and its bundle from the installed package, with a policy for it', async () => {
    const app = new API({ logger: false, docsUi: 'scalar' });
    app.get('/ping', () => ({ pong: true }));
    client = await TestClient.start(app);
    const page = await client.get('/docs');
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>fnapi - API Reference</title>');
    const [script, init] = [...page.body.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]!);
    expect(script).toMatch(/^\/_fnapi\/docs\/@scalar\/api-reference@[\d.]+\/dist\/browser\/standalone\.js$/);
    expect(page.body).not.toContain('integrity=');
    const bundle = await client.get(script!);
    expect(bundle.status).toBe(200);
    expect(bundle.headers['content-type']).toMatch(/javascript/);
    expect(bundle.body).toContain('createApiReference');
    const start = await client.get(init!);
    expect(start.body).toContain('withDefaultFonts: false');
    expect(start.body).not.toContain('proxyUrl');
    expect(page.headers['content-security-policy']).toContain("connect-src 'self'");
    // ReDoc stays at /redoc.
    expect((await client.get('/redoc')).body).toContain('redoc.standalone.js');
  });

  it('loads the pinned bundle from a CDN with SRI when docsCdn says so', async () => {
    const app = new API({ logger: false, docsUi: 'scalar', docsCdn: 'https://cdn.jsdelivr.net/npm' });
    const page = await app.inject('/docs');
    expect(page.body).toMatch(
      /<script src="https:\/\/cdn\.jsdelivr\.net\/npm\/@scalar\/api-reference@[\d.]+\/dist\/browser\/standalone\.js" integrity="sha384-[^"]+" crossorigin="anonymous"><\/script>/,
    );
    const own = new API({ logger: false, docsUi: 'scalar', docsAssetsUrl: '/static/docs' });
    expect((await own.inject('/docs')).body).toContain('<script src="/static/docs/standalone.js"></script>');
  });

  it('without @scalar/api-reference installed is an error at construction naming it', () => {
    const here = fileURLToPath(new URL('.', import.meta.url));
    const run = (preload: string[]) =>
      spawnSync(process.execPath, [...preload, '--import', 'tsx', '--conditions=@fnapi/source', `${here}fixtures/scalar-app.ts`], {
        encoding: 'utf8',
        timeout: 60_000,
      });
    const missing = run(['--require', `${here}fixtures/without-scalar.cjs`]);
    expect(missing.stdout).toMatch(/refused: docsUi: 'scalar' needs the package @scalar\/api-reference/);
    expect(run([]).stdout).toContain('constructed');
    expect(() => new API({ docsUi: 'other' as never })).toThrow(/docsUi is 'swagger' or 'scalar'/);
  });
});
