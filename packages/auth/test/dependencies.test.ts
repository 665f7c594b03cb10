/**
 * Guards as dependencies, over real HTTP: `dependencies: [guard]` on an endpoint, a router or the
 * app guards them (401 before anything is read); `uses: { auth: guard }` gives the `AuthInfo`; the
 * app's guard leaves the document and the docs pages open; guards are documented and overridable.
 */
import { API, type AuthInfo, dependency, Router, z } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { apiKeyRequired, createToken, jwtRequired } from '../src/index.js';

const SECRET = 'a-long-test-secret-of-at-least-32-bytes!';
const guard = jwtRequired({ secret: SECRET, algorithm: 'HS256' });
const bearer = async (sub: string) => ({ authorization: `Bearer ${await createToken({ sub }, { secret: SECRET, algorithm: 'HS256' })}` });

const clients: TestClient[] = [];
async function start(app: API, options?: Parameters<typeof TestClient.start>[1]): Promise<TestClient> {
  const client = await TestClient.start(app, options);
  clients.push(client);
  return client;
}
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

type Doc = { paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, unknown> }>> };

describe('guards as dependencies', () => {
  it('dependencies: [guard] answers 401 before the parameters are read; a valid token passes', async () => {
    const app = new API({ logger: false });
    app.get('/items', { params: { limit: z.int() }, dependencies: [guard] }, ({ limit }, request) => ({
      limit,
      who: request.auth!.subject,
    }));
    const client = await start(app);
    const refused = await client.get('/items?limit=abc');
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toMatch(/^Bearer/);
    expect((await client.get('/items?limit=abc', { headers: await bearer('ada') })).status).toBe(422);
    expect((await client.get('/items?limit=3', { headers: await bearer('ada') })).json()).toEqual({ limit: 3, who: 'ada' });
  });

  it('uses: { auth: guard } gives the AuthInfo, and a dependency can use it too (the guard runs once)', async () => {
    let checks = 0;
    const counting = apiKeyRequired({ apiKeys: { k1: ['read'] } });
    const profile = dependency({ uses: { auth: counting } }, ({ auth }) => {
      checks++;
      return { name: auth.subject };
    });
    const app = new API({ logger: false });
    app.get('/me', { uses: { auth: counting, profile } }, ({ auth, profile }) => {
      expectTypeOf(auth).toEqualTypeOf<AuthInfo>();
      return { scheme: auth.scheme, permissions: auth.permissions, profile };
    });
    const client = await start(app);
    expect((await client.get('/me')).status).toBe(401);
    const res = await client.get('/me', { headers: { 'x-api-key': 'k1' } });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ permissions: ['read'], profile: {} });
    expect(checks).toBe(1);
  });

  it("the app's guard covers every endpoint but leaves the document and the docs pages open", async () => {
    const app = new API({ logger: false, dependencies: [guard] });
    app.get('/private', (_input, request) => ({ who: request.auth!.subject }));
    const client = await start(app);
    expect((await client.get('/private')).status).toBe(401);
    expect((await client.get('/private', { headers: await bearer('bo') })).json()).toEqual({ who: 'bo' });
    for (const path of ['/openapi.json', '/docs', '/redoc']) expect((await client.get(path)).status).toBe(200);
    const doc = (await client.get('/openapi.json')).json<Doc>();
    expect(doc.paths['/private']!.get!.security).toEqual([{ bearerAuth: [] }]);
    expect(Object.keys(doc.paths['/private']!.get!.responses)).toContain('401');
  });

  it("a router's guard covers only its endpoints, and is documented on them", async () => {
    const app = new API({ logger: false });
    const admin = new Router({ prefix: '/admin', dependencies: [guard] });
    admin.get('/stats', () => ({ ok: true }));
    app.includeRouter(admin);
    app.get('/public', () => ({ ok: true }));
    const client = await start(app);
    expect((await client.get('/admin/stats')).status).toBe(401);
    expect((await client.get('/public')).status).toBe(200);
    const doc = app.openapi() as Doc;
    expect(doc.paths['/admin/stats']!.get!.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.paths['/public']!.get!.security).toEqual([]);
  });

  it('is still a handler wrapper', async () => {
    const app = new API({ logger: false });
    app.get(
      '/wrapped',
      guard((_input, request) => ({ who: request.auth!.subject })),
    );
    const client = await start(app);
    expect((await client.get('/wrapped')).status).toBe(401);
    expect((await client.get('/wrapped', { headers: await bearer('cy') })).json()).toEqual({ who: 'cy' });
  });

  it('a test client overrides a guard, so tests need not mint tokens', async () => {
    const app = new API({ logger: false });
    app.get('/me', { uses: { auth: guard } }, ({ auth }) => ({ who: auth.subject }));
    const fake: AuthInfo = { scheme: 'bearer', subject: 'tester' };
    const client = await start(app, { overrides: [[guard, () => fake]] });
    expect((await client.get('/me')).json()).toEqual({ who: 'tester' });
    const plain = await start(app);
    expect((await plain.get('/me')).status).toBe(401);
  });
});
