/**
 * `optional(guard)`, FastAPI's `auto_error=False`: a request without a credential of the scheme runs
 * the handler with `request.auth` undefined; one that carries a credential has it checked. The cases
 * follow FastAPI's optional security tests (HTTP Basic, bearer, API key in a header, a cookie or the
 * query, OAuth2).
 */
import { API, type Request } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anyOf, apiKeyRequired, basicAuthRequired, createToken, jwtRequired, optional } from '../src/index.js';

const SECRET = 'a-long-test-secret-of-at-least-32-bytes!';
const jwt = { secret: SECRET, algorithm: 'HS256' } as const;
const basic = (user: string, password: string) => ({ headers: { authorization: `Basic ${btoa(`${user}:${password}`)}` } });

/** FastAPI's tutorials answer this when no credential came. */
function me(_input: unknown, request: Request) {
  const auth = request.auth;
  if (auth === undefined) return { msg: 'Create an account first' };
  return { scheme: auth.scheme, subject: auth.subject ?? null, permissions: auth.permissions ?? null };
}

describe('optional(guard)', () => {
  let client: TestClient;
  beforeAll(async () => {
    const app = new API({ logger: false });
    app.get('/basic/me', optional(basicAuthRequired({ credentials: { john: 'secret' } }))(me));
    app.get('/bearer/me', optional(jwtRequired(jwt))(me));
    app.get('/scoped/me', optional(jwtRequired({ ...jwt, scopes: ['me'] }))(me));
    app.get('/header/me', optional(apiKeyRequired({ apiKeys: { secret: ['read'] } }))(me));
    app.get('/cookie/me', optional(apiKeyRequired({ cookie: 'key', apiKeys: { secret: ['read'] } }))(me));
    app.get('/query/me', optional(apiKeyRequired({ header: 'X-Key', queryParam: 'key', apiKeys: { secret: ['read'] } }))(me));
    app.get('/either/me', optional(anyOf(jwtRequired(jwt), basicAuthRequired({ credentials: { john: 'secret' } })))(me));
    app.get('/twice/me', optional(optional(jwtRequired(jwt)))(me));
    app.get('/required/me', jwtRequired(jwt)(me));
    // Stacked: Basic required, a bearer token optional on top.
    app.get('/stacked/me', optional(jwtRequired(jwt))(basicAuthRequired({ credentials: { john: 'secret' } })(me)));
    client = await TestClient.start(app);
  });
  afterAll(() => client?.close());

  const anonymous = { msg: 'Create an account first' };

  it('HTTP Basic: none passes, a valid pair is the caller, a wrong or malformed one is 401', async () => {
    expect((await client.get('/basic/me')).json()).toEqual(anonymous);
    expect((await client.get('/basic/me', basic('john', 'secret'))).json()).toEqual({
      scheme: 'basic',
      subject: 'john',
      permissions: null,
    });
    const wrong = await client.get('/basic/me', basic('john', 'wrong'));
    expect(wrong.status).toBe(401);
    expect(wrong.headers['www-authenticate']).toBe('Basic realm="api", charset="UTF-8"');
    expect((await client.get('/basic/me', { headers: { authorization: 'Basic notabase64token' } })).status).toBe(401);
    // Another scheme's credential is no Basic credential: as if none came (FastAPI's "Other foobar" case).
    expect((await client.get('/basic/me', { headers: { authorization: 'Other foobar' } })).json()).toEqual(anonymous);
  });

  it('bearer: none (or an empty or other-scheme header) passes; a refused token is 401; a lacking scope 403', async () => {
    expect((await client.get('/bearer/me')).json()).toEqual(anonymous);
    expect((await client.get('/bearer/me', { headers: { authorization: 'Basic notreally' } })).json()).toEqual(anonymous);
    expect((await client.get('/bearer/me', { headers: { authorization: 'Bearer ' } })).json()).toEqual(anonymous);
    const token = await createToken({ sub: 'john' }, jwt);
    const known = await client.get('/bearer/me', { headers: { authorization: `Bearer ${token}` } });
    expect(known.json()).toEqual({ scheme: 'bearer', subject: 'john', permissions: null });
    const invalid = await client.get('/bearer/me', { headers: { authorization: 'Bearer not-a-token' } });
    expect(invalid.status).toBe(401);
    expect(invalid.headers['www-authenticate']).toBe('Bearer realm="api", error="invalid_token"');
    const lacking = await client.get('/scoped/me', { headers: { authorization: `Bearer ${token}` } });
    expect(lacking.status).toBe(403);
    expect((await client.get('/scoped/me')).json()).toEqual(anonymous);
    expect((await client.get('/twice/me')).json()).toEqual(anonymous);
    expect((await client.get('/twice/me', { headers: { authorization: 'Bearer not-a-token' } })).status).toBe(401);
  });

  it('API keys in a header, a cookie or the query: none passes, a wrong key is 401', async () => {
    for (const [path, given, wrong] of [
      ['/header/me', { headers: { 'x-api-key': 'secret' } }, { headers: { 'x-api-key': 'nope' } }],
      ['/cookie/me', { headers: { cookie: 'key=secret' } }, { headers: { cookie: 'key=nope' } }],
      ['/query/me', { query: { key: 'secret' } }, { query: { key: 'nope' } }],
    ] as const) {
      expect((await client.get(path)).json(), path).toEqual(anonymous);
      expect((await client.get(path, given)).json(), path).toEqual({ scheme: 'apiKey', subject: null, permissions: ['read'] });
      const refused = await client.get(path, wrong);
      expect(refused.status, path).toBe(401);
      expect(refused.headers['www-authenticate'], path).toBe('ApiKey');
    }
    // Another cookie is no key.
    expect((await client.get('/cookie/me', { headers: { cookie: 'other=secret' } })).json()).toEqual(anonymous);
  });

  it('optional(anyOf(…)): none passes, any accepted scheme is the caller, a wrong credential of any is 401', async () => {
    expect((await client.get('/either/me')).json()).toEqual(anonymous);
    expect((await client.get('/either/me', basic('john', 'secret'))).json()).toMatchObject({ scheme: 'basic' });
    expect((await client.get('/either/me', basic('john', 'wrong'))).status).toBe(401);
    const refused = await client.get('/either/me', { headers: { authorization: 'Bearer nope' } });
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toContain('Basic realm="api"');
  });

  it('stacked on a required guard, an absent optional credential leaves the caller the other guard found', async () => {
    expect((await client.get('/stacked/me', basic('john', 'secret'))).json()).toEqual({
      scheme: 'basic',
      subject: 'john',
      permissions: null,
    });
    expect((await client.get('/stacked/me')).status).toBe(401);
    const doc = (await client.get('/openapi.json')).json<{ paths: Record<string, Record<string, { security: unknown }>> }>();
    // Both must hold: Basic, with or without the bearer token.
    expect(doc.paths['/stacked/me']!.get!.security).toEqual([{ basicAuth: [], bearerAuth: [] }, { basicAuth: [] }]);
  });

  it('the document lists the scheme and an empty requirement beside it; a required guard has none', async () => {
    type Operation = { security: Record<string, string[]>[]; responses: Record<string, unknown> };
    const doc = (await client.get('/openapi.json')).json<{ paths: Record<string, Record<string, Operation>> }>();
    expect(doc.paths['/bearer/me']!.get!.security).toEqual([{ bearerAuth: [] }, {}]);
    expect(doc.paths['/twice/me']!.get!.security).toEqual([{ bearerAuth: [] }, {}]);
    expect(doc.paths['/scoped/me']!.get!.security).toEqual([{ bearerAuth: ['me'] }, {}]);
    expect(doc.paths['/cookie/me']!.get!.security).toEqual([{ apiKeyCookie_key: [] }, {}]);
    expect(doc.paths['/either/me']!.get!.security).toEqual([{ bearerAuth: [] }, { basicAuth: [] }, {}]);
    expect(doc.paths['/required/me']!.get!.security).toEqual([{ bearerAuth: [] }]);
    // A present but wrong credential is still refused: 401 stays documented.
    expect(Object.keys(doc.paths['/bearer/me']!.get!.responses)).toContain('401');
  });

  it('anyOf takes required schemes only; optional takes a guard', () => {
    expect(() => anyOf(optional(jwtRequired(jwt)), basicAuthRequired({ credentials: { a: 'b' } }))).toThrow(/optional\(anyOf/);
    expect(() => optional({} as never)).toThrow(/optional\(\) takes/);
  });
});
