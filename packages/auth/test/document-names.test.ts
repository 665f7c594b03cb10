/**
 * Names never break an app: a reused handler, every auth function (with and without `schemeName`),
 * every parameter source, streams, recursive and `z.json()` schemas all in one app give a document
 * that validates against the official OpenAPI 3.1 schema, served at /openapi.json.
 */
import { validate } from '@hyperjump/json-schema/openapi-3-1';
import { API, body, cookie, form, header, query, type Request, StreamingResponse, z } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anyOf, apiKeyRequired, basicAuthRequired, jwtRequired, optional, passwordForm } from '../src/index.js';

const SECRET = 'a-long-test-secret-of-at-least-32-bytes!';
const KEYS = { 'key-1': ['read'] };
const USERS = { ada: 'secret' };

interface Doc {
  paths: Record<string, Record<string, { operationId: string; security?: Record<string, string[]>[] }>>;
  components: { securitySchemes: Record<string, Record<string, unknown>> };
}

type Category = { name: string; children: Category[] };
const CategorySchema: z.ZodType<Category> = z.lazy(() => z.object({ name: z.string(), children: z.array(CategorySchema) }));
const TreeNode = z.object({
  label: z.string(),
  get children() {
    return z.array(TreeNode).optional();
  },
});

function everything(): API {
  const app = new API({ title: 'Everything', version: '1.0.0', logger: false });
  const who = (_input: unknown, request: Request) => ({ auth: request.auth ?? null });
  // One function behind many guards, as ordinary code does.
  app.get('/jwt', jwtRequired({ secret: SECRET, algorithm: 'HS256' })(who));
  app.get('/jwks/two', jwtRequired({ jwksUrl: 'http://127.0.0.1:9/jwks.json', algorithm: 'RS256' })(who));
  app.get('/jwt/partner', jwtRequired({ secret: SECRET, algorithm: 'HS256', schemeName: 'partnerJwt' })(who));
  app.get('/key', apiKeyRequired({ apiKeys: KEYS })(who));
  app.get('/key/service', apiKeyRequired({ apiKeys: KEYS, header: 'X-Service-Token' })(who));
  app.get('/key/query', apiKeyRequired({ apiKeys: KEYS, queryParam: 'api_key' })(who));
  app.get('/key/token', apiKeyRequired({ apiKeys: KEYS, header: 'X-Service-Token', queryParam: 'token' })(who));
  app.get('/key/named', apiKeyRequired({ apiKeys: KEYS, header: 'X-Internal', schemeName: 'internalKey' })(who));
  app.get('/key/named-again', apiKeyRequired({ apiKeys: KEYS, header: 'X-Internal', schemeName: 'internalKey' })(who));
  app.get('/basic', basicAuthRequired({ credentials: USERS })(who));
  app.get('/basic/realm', basicAuthRequired({ credentials: USERS, realm: 'other' })(who));
  app.get('/any', anyOf(jwtRequired({ secret: SECRET, algorithm: 'HS256' }), apiKeyRequired({ apiKeys: KEYS, header: 'X-Other' }))(who));
  app.get('/open', who);

  app.get(
    '/items/{item_id}',
    {
      params: {
        item_id: z.int(),
        q: z.string().optional(),
        tags: z.array(z.string()).optional(),
        filter: query(z.object({ page: z.int().default(1), size: z.int().optional() })),
        x_trace: header(z.string().optional()),
        session: cookie(z.string().optional()),
        raw: z.json().optional(),
      },
    },
    (input) => input,
  );
  app.post(
    '/items',
    {
      params: { name: body(z.string()), meta: body(z.json()), tree: body(TreeNode.optional()), category: body(CategorySchema.optional()) },
    },
    (input) => input,
  );
  app.put('/trees/{id}', { params: { tree: body(TreeNode, { whole: true }) }, response: TreeNode }, ({ tree }) => tree);
  app.post('/categories', { params: { category: CategorySchema } }, ({ category }) => category);
  app.post('/custom', { params: { thing: z.custom<Date>((v) => v instanceof Date) } }, () => 'ok');
  app.get(
    '/stream',
    () =>
      new StreamingResponse(
        (async function* () {
          yield 'a';
        })(),
        { mediaType: 'text/plain' },
      ),
  );
  return app;
}

async function officialCheck(document: unknown) {
  return validate('https://spec.openapis.org/oas/3.1/schema-base', JSON.parse(JSON.stringify(document)), 'BASIC');
}

describe('one of everything', () => {
  let client: TestClient;
  let doc: Doc;
  beforeAll(async () => {
    client = await TestClient.start(everything());
    const response = await client.get('/openapi.json');
    expect(response.status).toBe(200);
    doc = response.json() as Doc;
  });
  afterAll(() => client.close());

  it('serves a document that validates against the official 3.1 schema', async () => {
    const output = await officialCheck(doc);
    expect(output.valid ? [] : output.errors).toEqual([]);
    expect(output.valid).toBe(true);
  });

  it('gives a reused handler name + method + path, never an error', () => {
    expect(doc.paths['/jwt']!.get!.operationId).toBe('who');
    expect(doc.paths['/jwks/two']!.get!.operationId).toBe('who_get_jwks_two');
    expect(doc.paths['/open']!.get!.operationId).toBe('who_get_open');
  });

  it('shares alike schemes and never gives different ones one default name', () => {
    const schemes = doc.components.securitySchemes;
    expect(schemes).toEqual({
      bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      partnerJwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      'apiKeyHeader_X-Service-Token': { type: 'apiKey', in: 'header', name: 'X-Service-Token' },
      apiKeyQuery: { type: 'apiKey', in: 'query', name: 'api_key' },
      apiKeyQuery_token: { type: 'apiKey', in: 'query', name: 'token' },
      internalKey: { type: 'apiKey', in: 'header', name: 'X-Internal' },
      basicAuth: { type: 'http', scheme: 'basic' },
      'apiKeyHeader_X-Other': { type: 'apiKey', in: 'header', name: 'X-Other' },
    });
    expect(doc.paths['/jwks/two']!.get!.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.paths['/key/service']!.get!.security).toEqual([{ 'apiKeyHeader_X-Service-Token': [] }]);
    expect(doc.paths['/key/token']!.get!.security).toEqual([{ 'apiKeyHeader_X-Service-Token': [] }, { apiKeyQuery_token: [] }]);
    expect(doc.paths['/key/named-again']!.get!.security).toEqual([{ internalKey: [] }]);
    expect(doc.paths['/any']!.get!.security).toEqual([{ bearerAuth: [] }, { 'apiKeyHeader_X-Other': [] }]);
  });

  it('still serves the protected endpoints', async () => {
    expect((await client.get('/key/service', { headers: { 'x-service-token': 'key-1' } })).status).toBe(200);
    expect((await client.get('/key/service')).status).toBe(401);
  });
});

describe('scheme names chosen by the app', () => {
  const who = (_input: unknown, request: Request) => request.auth;

  it('refuses two different definitions under one schemeName at registration, naming both endpoints', () => {
    const app = new API({ logger: false });
    app.get('/a', apiKeyRequired({ apiKeys: KEYS, header: 'X-A', schemeName: 'partner' })(who));
    expect(() => app.get('/b', apiKeyRequired({ apiKeys: KEYS, header: 'X-B', schemeName: 'partner' })(who))).toThrow(
      'Security scheme name "partner" is given to two different definitions, by GET /a and GET /b; give one of them another schemeName',
    );
    expect(app.routes.map((r) => r.route)).toEqual(['/a']);
    // A refused registration leaves nothing behind: the name is still free for its first definition.
    app.get('/c', apiKeyRequired({ apiKeys: KEYS, header: 'X-A', schemeName: 'partner' })(who));
    expect(app.routes.map((r) => r.route)).toEqual(['/a', '/c']);
  });

  it('keeps a chosen name that a default one also uses, numbering the default', () => {
    const app = new API({ logger: false });
    app.get('/first', apiKeyRequired({ apiKeys: KEYS })(who));
    app.get('/second', basicAuthRequired({ credentials: USERS, schemeName: 'apiKeyHeader' })(who));
    const doc = app.openapi() as unknown as Doc;
    expect(doc.components.securitySchemes.apiKeyHeader).toEqual({ type: 'http', scheme: 'basic' });
    expect(doc.components.securitySchemes.apiKeyHeader2).toEqual({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(doc.paths['/first']!.get!.security).toEqual([{ apiKeyHeader2: [] }]);
  });
});

describe('the security chapter in the document', () => {
  const who = (_input: unknown, request: Request) => request.auth ?? null;
  const flow = {
    tokenUrl: '/token',
    refreshUrl: '/token/refresh',
    scopes: { 'orders:read': 'Read orders', 'orders:write': 'Place orders' },
  };
  const jwt = { secret: SECRET, algorithm: 'HS256' } as const;

  function securityApp(): API {
    const app = new API({ title: 'Security', version: '1.0.0', logger: false });
    app.post('/token', { params: { login: form(passwordForm) } }, ({ login }) => ({ access_token: login.username, token_type: 'bearer' }));
    app.get('/orders', jwtRequired({ ...jwt, oauth2: flow, scopes: ['orders:read'] })(who));
    app.post('/orders', jwtRequired({ ...jwt, oauth2: flow, scopes: ['orders:read', 'orders:write'], cookie: 'session' })(who));
    app.get('/scoped', jwtRequired({ ...jwt, scopes: ['a'] })(who));
    app.get('/socket-ticket', jwtRequired({ ...jwt, queryParam: 'access_token' })(who));
    app.get('/maybe', optional(jwtRequired({ ...jwt, cookie: 'session' }))(who));
    app.get('/key/cookie', apiKeyRequired({ cookie: 'session', verify: () => null })(who));
    app.get('/key/both', apiKeyRequired({ cookie: 'session', header: 'X-Key', apiKeys: KEYS, schemeName: 'partnerKey' })(who));
    app.get('/basic/store', optional(basicAuthRequired({ verify: () => null }))(who));
    return app;
  }

  it('is valid OpenAPI 3.1 with the password flow, cookie and query schemes and optional requirements', async () => {
    const doc = securityApp().openapi() as unknown as Doc;
    const output = await officialCheck(doc);
    expect(output.valid ? [] : output.errors).toEqual([]);
    expect(doc.components.securitySchemes).toEqual({
      oauth2Password: { type: 'oauth2', flows: { password: flow } },
      apiKeyCookie_session: { type: 'apiKey', in: 'cookie', name: 'session' },
      bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      apiKeyQuery_access_token: { type: 'apiKey', in: 'query', name: 'access_token' },
      partnerKey: { type: 'apiKey', in: 'header', name: 'X-Key' },
      partnerKeyCookie: { type: 'apiKey', in: 'cookie', name: 'session' },
      basicAuth: { type: 'http', scheme: 'basic' },
    });
    expect(doc.paths['/orders']!.get!.security).toEqual([{ oauth2Password: ['orders:read'] }]);
    expect(doc.paths['/orders']!.post!.security).toEqual([
      { oauth2Password: ['orders:read', 'orders:write'] },
      { apiKeyCookie_session: ['orders:read', 'orders:write'] },
    ]);
    expect(doc.paths['/scoped']!.get!.security).toEqual([{ bearerAuth: ['a'] }]);
    expect(doc.paths['/socket-ticket']!.get!.security).toEqual([{ bearerAuth: [] }, { apiKeyQuery_access_token: [] }]);
    expect(doc.paths['/maybe']!.get!.security).toEqual([{ bearerAuth: [] }, { apiKeyCookie_session: [] }, {}]);
    // A JWT and an API key read from the same cookie are defined alike: one entry for both.
    expect(doc.paths['/key/cookie']!.get!.security).toEqual([{ apiKeyCookie_session: [] }]);
    expect(doc.paths['/key/both']!.get!.security).toEqual([{ partnerKey: [] }, { partnerKeyCookie: [] }]);
    expect(doc.paths['/basic/store']!.get!.security).toEqual([{ basicAuth: [] }, {}]);
    expect(doc.paths['/token']!.post!.security).toEqual([]);
  });
});
