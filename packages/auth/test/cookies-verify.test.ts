/**
 * Credentials from cookies (API keys and JWTs, as a browser session carries them) and `verify`
 * callbacks that check Basic credentials and API keys against a store. The API-key-in-a-cookie cases
 * follow FastAPI's security tests for `APIKeyCookie`.
 */
import { API, type Request, z } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyRequired, basicAuthRequired, createToken, jwtRequired } from '../src/index.js';

const SECRET = 'a-long-test-secret-of-at-least-32-bytes!';
const jwt = { secret: SECRET, algorithm: 'HS256' } as const;

type Doc = {
  paths: Record<string, Record<string, { security: Record<string, string[]>[] }>>;
  components: { securitySchemes: Record<string, unknown> };
};

describe('API keys in a cookie', () => {
  let client: TestClient;
  let doc: Doc;
  beforeAll(async () => {
    const app = new API({ logger: false });
    // FastAPI's APIKeyCookie(name="key"): the handler answers the key's owner.
    const byCookie = apiKeyRequired({ cookie: 'key', verify: (key) => ({ subject: key }) });
    app.get(
      '/users/me',
      byCookie((_input, request) => ({ username: request.auth!.subject })),
    );
    const both = apiKeyRequired({ header: 'X-Key', cookie: 'key', apiKeys: { fromHeader: ['h'], fromCookie: ['c'] } });
    app.get(
      '/both',
      both((_input, request) => ({ permissions: request.auth!.permissions })),
    );
    client = await TestClient.start(app);
    doc = (await client.get('/openapi.json')).json<Doc>();
  });
  afterAll(() => client?.close());

  it('test_security_api_key: the cookie carries the key', async () => {
    const response = await client.get('/users/me', { headers: { cookie: 'key=secret' } });
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({ username: 'secret' });
  });

  it('test_security_api_key_no_key: 401 with the ApiKey challenge; a header does not stand in for the cookie', async () => {
    const response = await client.get('/users/me');
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe('ApiKey');
    expect(response.json<{ detail: string }>().detail).toBe('An API key is required in the key cookie');
    expect((await client.get('/users/me', { headers: { 'x-api-key': 'secret' } })).status).toBe(401);
  });

  it('reads the header and the cookie when both are named, the header first', async () => {
    const read = async (headers: Record<string, string>) => (await client.get('/both', { headers })).json();
    expect(await read({ 'x-key': 'fromHeader' })).toEqual({ permissions: ['h'] });
    expect(await read({ cookie: 'key=fromCookie' })).toEqual({ permissions: ['c'] });
    expect(await read({ 'x-key': 'fromHeader', cookie: 'key=fromCookie' })).toEqual({ permissions: ['h'] });
    expect((await client.get('/both', { headers: { cookie: 'key=nope' } })).status).toBe(401);
  });

  it('test_openapi_schema: an apiKey scheme in the cookie', () => {
    expect(doc.components.securitySchemes.apiKeyCookie_key).toEqual({ type: 'apiKey', in: 'cookie', name: 'key' });
    expect(doc.paths['/users/me']!.get!.security).toEqual([{ apiKeyCookie_key: [] }]);
    expect(doc.paths['/both']!.get!.security).toEqual([{ 'apiKeyHeader_X-Key': [] }, { apiKeyCookie_key: [] }]);
  });
});

describe('JWTs in a cookie (a browser session)', () => {
  let client: TestClient;
  beforeAll(async () => {
    const app = new API({ logger: false });
    const session = jwtRequired({ ...jwt, cookie: 'session' });
    app.post('/login', { params: { user: z.string() } }, async ({ user }, request: Request) => {
      request.setCookie('session', await createToken({ sub: user }, jwt), { maxAge: 900 });
      return { signedIn: user };
    });
    app.get(
      '/me',
      session((_input, request) => ({ user: request.auth!.subject })),
    );
    app.get(
      '/named',
      jwtRequired({ ...jwt, cookie: 'sid', schemeName: 'web' })(() => ({})),
    );
    client = await TestClient.start(app);
  });
  afterAll(() => client?.close());

  it('the cookie a login sets signs the next requests in; the header wins over it', async () => {
    const login = await client.post('/login', { json: { user: 'ada' } });
    const setCookie = String(login.headers['set-cookie']);
    expect(setCookie).toMatch(/^session=[\w-]+\.[\w-]+\.[\w-]+; Max-Age=900; Path=\/; HttpOnly; SameSite=Lax$/);
    const cookie = setCookie.split(';')[0]!;
    expect((await client.get('/me', { headers: { cookie } })).json()).toEqual({ user: 'ada' });
    const header = `Bearer ${await createToken({ sub: 'grace' }, jwt)}`;
    expect((await client.get('/me', { headers: { cookie, authorization: header } })).json()).toEqual({ user: 'grace' });
    // The header is read first even when its token is refused: no falling back to the cookie.
    expect((await client.get('/me', { headers: { cookie, authorization: 'Bearer nope' } })).status).toBe(401);
  });

  it('a refused or missing cookie token is 401 with the bearer challenge', async () => {
    const refused = await client.get('/me', { headers: { cookie: 'session=not.a.token' } });
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toBe('Bearer realm="api", error="invalid_token"');
    const missing = await client.get('/me', { headers: { cookie: 'other=1' } });
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="api"');
  });

  it('documents an apiKey scheme in the cookie beside the bearer one', async () => {
    const doc = (await client.get('/openapi.json')).json<Doc>();
    expect(doc.paths['/me']!.get!.security).toEqual([{ bearerAuth: [] }, { apiKeyCookie_session: [] }]);
    expect(doc.components.securitySchemes.apiKeyCookie_session).toEqual({ type: 'apiKey', in: 'cookie', name: 'session' });
    expect(doc.paths['/named']!.get!.security).toEqual([{ web: [] }, { webCookie: [] }]);
    expect(doc.components.securitySchemes.webCookie).toEqual({ type: 'apiKey', in: 'cookie', name: 'sid' });
  });
});

describe('verify callbacks', () => {
  let client: TestClient;
  const store = new Map([
    ['ada', { password: 'lovelace', roles: ['admin'] }],
    ['bob', { password: 'builder', roles: [] as string[] }],
  ]);
  const keys = new Map([
    ['k-admin', ['read', 'write']],
    ['k-reader', ['read']],
  ]);
  const seen: string[] = [];
  beforeAll(async () => {
    const app = new API({ logger: false });
    const basic = basicAuthRequired({
      realm: 'store',
      verify: async (user, password, request) => {
        seen.push(`${user}:${request.path}`);
        await new Promise((resolve) => setTimeout(resolve, 1));
        const found = store.get(user);
        return found && found.password === password ? { permissions: found.roles } : null;
      },
    });
    app.get(
      '/basic',
      basic((_input, request) => request.auth),
    );
    const key = apiKeyRequired({
      permissions: ['write'],
      verify: async (given) => (keys.has(given) ? { subject: given, permissions: keys.get(given)! } : null),
    });
    app.get(
      '/key',
      key((_input, request) => request.auth),
    );
    app.get(
      '/custom',
      apiKeyRequired({ verify: () => ({ scheme: 'service', subject: 'svc' }) })((_input, request) => request.auth),
    );
    client = await TestClient.start(app);
  });
  afterAll(() => client?.close());

  it('Basic: the store decides; the user name is the subject, the scheme basic; null is 401', async () => {
    const ok = await client.get('/basic', { headers: { authorization: `Basic ${btoa('ada:lovelace')}` } });
    expect(ok.status).toBe(200);
    expect(ok.json()).toEqual({ scheme: 'basic', subject: 'ada', permissions: ['admin'] });
    expect(seen).toEqual(['ada:/basic']);
    const refused = await client.get('/basic', { headers: { authorization: `Basic ${btoa('ada:wrong')}` } });
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toBe('Basic realm="store", charset="UTF-8"');
    // A password with a colon reaches the store whole.
    store.set('eve', { password: 'a:b', roles: [] });
    expect((await client.get('/basic', { headers: { authorization: `Basic ${btoa('eve:a:b')}` } })).status).toBe(200);
    // Nothing to verify: the store is not asked.
    seen.length = 0;
    expect((await client.get('/basic')).status).toBe(401);
    expect(seen).toEqual([]);
  });

  it('API keys: the store decides, permissions are checked against what it returns', async () => {
    const ok = await client.get('/key', { headers: { 'x-api-key': 'k-admin' } });
    expect(ok.json()).toEqual({ scheme: 'apiKey', subject: 'k-admin', permissions: ['read', 'write'] });
    const lacking = await client.get('/key', { headers: { 'x-api-key': 'k-reader' } });
    expect(lacking.status).toBe(403);
    expect(lacking.json<{ details: unknown }>().details).toEqual({ missing: ['write'] });
    expect((await client.get('/key', { headers: { 'x-api-key': 'unknown' } })).status).toBe(401);
    expect((await client.get('/custom', { headers: { 'x-api-key': 'any' } })).json()).toEqual({ scheme: 'service', subject: 'svc' });
  });

  it('options: verify or a fixed list, not both, and verify must be a function', () => {
    expect(() => basicAuthRequired({ credentials: { a: 'b' }, verify: () => null })).toThrow('give credentials or verify, not both');
    expect(() => apiKeyRequired({ apiKeys: { a: [] }, verify: () => null })).toThrow('give apiKeys or verify, not both');
    expect(() => apiKeyRequired({ verify: 'no' as never })).toThrow(/verify must be a function/);
    expect(() => basicAuthRequired({} as never)).toThrow(/give credentials/);
    expect(() => apiKeyRequired({ cookie: '', apiKeys: { a: [] } })).toThrow(/cookie must be a cookie name/);
  });
});
