/**
 * Scopes of a bearer token: read from `scope` (space-separated) or `scp` (array or string), listed in
 * `request.auth.scopes`, required with `jwtRequired({ scopes })` (403 `insufficient_scope` otherwise),
 * and named in the operation's security requirement.
 */
import { API, type Request } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anyOf, apiKeyRequired, createToken, jwtRequired } from '../src/index.js';

const SECRET = 'a-long-test-secret-of-at-least-32-bytes!';
const token = (claims: Record<string, unknown>) => createToken(claims, { secret: SECRET, algorithm: 'HS256' });
const bearer = (value: string) => ({ headers: { authorization: `Bearer ${value}` } });

describe('scopes', () => {
  let client: TestClient;
  beforeAll(async () => {
    const app = new API({ logger: false });
    const scopesOf = (_input: unknown, request: Request) => ({ scopes: request.auth?.scopes ?? null });
    app.get('/any', jwtRequired({ secret: SECRET, algorithm: 'HS256' })(scopesOf));
    app.post('/orders', jwtRequired({ secret: SECRET, algorithm: 'HS256', scopes: ['orders:write'], realm: 'shop' })(scopesOf));
    app.get(
      '/either',
      anyOf(
        jwtRequired({ secret: SECRET, algorithm: 'HS256', scopes: ['orders:read'] }),
        apiKeyRequired({ apiKeys: { k1: [] } }),
      )(scopesOf),
    );
    client = await TestClient.start(app);
  });
  afterAll(() => client?.close());

  it('request.auth.scopes lists the scope claim, else scp (array or string), else []', async () => {
    const read = async (claims: Record<string, unknown>) => (await client.get('/any', bearer(await token(claims)))).json();
    expect(await read({ scope: 'a  b c' })).toEqual({ scopes: ['a', 'b', 'c'] });
    expect(await read({ scp: ['a', 'b'] })).toEqual({ scopes: ['a', 'b'] });
    expect(await read({ scp: 'a b' })).toEqual({ scopes: ['a', 'b'] });
    expect(await read({ scope: 'x', scp: ['y'] })).toEqual({ scopes: ['x'] });
    expect(await read({ sub: 'ada' })).toEqual({ scopes: [] });
    expect(await read({ scope: 42 })).toEqual({ scopes: [] });
  });

  it('a valid token without a required scope is 403 insufficient_scope; with it, 200', async () => {
    const refused = await client.post('/orders', bearer(await token({ scope: 'orders:read' })));
    expect(refused.status).toBe(403);
    expect(refused.headers['www-authenticate']).toBe('Bearer realm="shop", error="insufficient_scope", scope="orders:write"');
    expect(refused.json()).toMatchObject({ status: 403, details: { missing: ['orders:write'] } });
    const noClaim = await client.post('/orders', bearer(await token({})));
    expect(noClaim.status).toBe(403);
    const accepted = await client.post('/orders', bearer(await token({ scp: ['orders:read', 'orders:write'] })));
    expect(accepted.status).toBe(200);
    expect(accepted.json()).toEqual({ scopes: ['orders:read', 'orders:write'] });
    // A refused token is still 401, before any scope is looked at.
    const forged = await createToken({ scope: 'orders:write' }, { secret: `${SECRET}-other`, algorithm: 'HS256' });
    expect((await client.post('/orders', bearer(forged))).status).toBe(401);
  });

  it('anyOf: a token lacking the scope is 403 unless another scheme accepts the caller', async () => {
    const lacking = await client.get('/either', bearer(await token({ scope: 'other' })));
    expect(lacking.status).toBe(403);
    expect(lacking.headers['www-authenticate']).toContain('error="insufficient_scope"');
    expect((await client.get('/either', { headers: { 'x-api-key': 'k1' } })).status).toBe(200);
    expect((await client.get('/either', bearer(await token({ scope: 'orders:read' })))).status).toBe(200);
  });

  it('the security requirement names the scopes and 403 is documented', async () => {
    type Operation = { security: Record<string, string[]>[]; responses: Record<string, unknown> };
    const doc = (await client.get('/openapi.json')).json<{ paths: Record<string, Record<string, Operation>>; components: any }>();
    expect(doc.paths['/orders']!.post!.security).toEqual([{ bearerAuth: ['orders:write'] }]);
    expect(doc.paths['/any']!.get!.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.paths['/either']!.get!.security).toEqual([{ bearerAuth: ['orders:read'] }, { apiKeyHeader: [] }]);
    expect(Object.keys(doc.paths['/orders']!.post!.responses)).toContain('403');
    expect(Object.keys(doc.paths['/any']!.get!.responses)).not.toContain('403');
    // Scopes are not part of the scheme: one bearer entry for all three.
    expect(Object.keys(doc.components.securitySchemes)).toEqual(['bearerAuth', 'apiKeyHeader']);
  });
});

describe('scope and flow options are checked when the guard is made', () => {
  const base = { secret: SECRET, algorithm: 'HS256' } as const;
  it('refuses scope names a token could not carry, and scopes the flow does not offer', () => {
    expect(() => jwtRequired({ ...base, scopes: ['two words'] })).toThrow(/scopes must be a list of scope names/);
    expect(() => jwtRequired({ ...base, scopes: 'orders' as never })).toThrow(/scopes must be a list/);
    expect(() => jwtRequired({ ...base, scopes: ['b'], oauth2: { tokenUrl: '/token', scopes: { a: 'A' } } })).toThrow(
      'jwtRequired: scope "b" is required but not among oauth2.scopes',
    );
    expect(() => jwtRequired({ ...base, oauth2: { tokenUrl: '' } })).toThrow(/oauth2 takes \{ tokenUrl/);
    expect(() => jwtRequired({ ...base, cookie: '' })).toThrow('jwtRequired: cookie must be a non-empty name');
    expect(() => jwtRequired({ ...base, scopes: ['a'], oauth2: { tokenUrl: '/token', scopes: { a: 'A' } } })).not.toThrow();
  });
});
