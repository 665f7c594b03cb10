/**
 * The attack suite, over real HTTP: every bad credential is a 401 (403 for a missing permission),
 * never a 500, with the right WWW-Authenticate; good ones reach the handler with `request.auth`.
 * A local JWKS server counts its fetches: one for many requests, one more after rotation, none for a
 * storm of unknown kids. No credential ever appears in a log line.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { API, api, type Request } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { LoggingMiddleware } from '@fnapi/middleware';
import { LoggingPlugin } from '@fnapi/plugins';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { anyOf, apiKeyRequired, basicAuthRequired, createToken, jwtRequired } from '../src/index.js';
import { b64url, closedPort, JwksServer, publicJwk, rsaKeyPair } from './support.js';

const SECRET = 'a-long-test-secret-of-at-least-32-bytes!';
const ISSUER = 'https://issuer.test';
const AUDIENCE = 'fnapi-tests';
const rsa = rsaKeyPair();
const rotated = rsaKeyPair();
const KEYS = { 'key-read-123': ['read'], 'key-admin-456': ['read', 'write'] };
const USERS = { ada: 'pa:ss:word', józef: 'zażółć gęślą' };

const logLines: string[] = [];
const logSink = new Writable({
  write(chunk, _encoding, done) {
    logLines.push(String(chunk));
    done();
  },
});
const logDir = mkdtempSync(join(tmpdir(), 'fnapi-auth-logs-'));
const pluginLog = join(logDir, 'plugin.log');

const whoami = (_input: unknown, request: Request) => ({ auth: request.auth });

class Decorated {
  @api({ route: '/decorated', method: 'GET' })
  @basicAuthRequired({ credentials: USERS, realm: 'decorated' })
  me(_input: unknown, request: Request) {
    return { user: request.auth?.subject, self: this instanceof Decorated };
  }
}

let jwks: JwksServer;
let client: TestClient;
let app: API;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const basic = (user: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`,
});
const hs = (claims: Record<string, unknown> = {}, expiresIn = 3600) =>
  createToken({ sub: 'ada', iss: ISSUER, aud: AUDIENCE, ...claims }, { secret: SECRET, algorithm: 'HS256', expiresIn });

beforeAll(async () => {
  jwks = await new JwksServer().start();
  jwks.keys = [await publicJwk(rsa, 'key-a', 'RS256')];
  const dead = await closedPort();
  app = new API({ logger: pino(logSink) });
  app.addMiddleware(new LoggingMiddleware({ logger: pino(logSink) }));
  app.pluginManager.register(new LoggingPlugin({ logToConsole: false, logToFile: true, logFile: pluginLog, logRequestBody: true }));
  app.get('/hs', { operationId: 'hs' }, jwtRequired({ secret: SECRET, algorithm: 'HS256', issuer: ISSUER, audience: AUDIENCE })(whoami));
  app.get('/rs', { operationId: 'rs' }, jwtRequired({ key: rsa.publicPem, algorithm: 'RS256' })(whoami));
  app.get('/jwks', { operationId: 'jwks' }, jwtRequired({ jwksUrl: jwks.url, algorithm: 'RS256' })(whoami));
  app.get(
    '/jwks-down',
    { operationId: 'jwks_down' },
    jwtRequired({ jwksUrl: `http://127.0.0.1:${dead}/jwks.json`, algorithm: 'RS256' })(whoami),
  );
  app.get('/write', { operationId: 'write' }, apiKeyRequired({ apiKeys: KEYS, permissions: ['write'] })(whoami));
  app.get('/read', { operationId: 'read' }, apiKeyRequired({ apiKeys: KEYS, permissions: ['read'], queryParam: 'api_key' })(whoami));
  app.get('/basic', { operationId: 'basic' }, basicAuthRequired({ credentials: USERS })(whoami));
  app.get(
    '/any',
    { operationId: 'any' },
    anyOf(jwtRequired({ secret: SECRET, algorithm: 'HS256' }), apiKeyRequired({ apiKeys: KEYS, permissions: ['write'] }))(whoami),
  );
  app.include(new Decorated());
  client = await TestClient.start(app);
});

afterAll(async () => {
  await client?.close();
  await jwks?.close();
});

async function expect401(path: string, headers: Record<string, string>, challenge: RegExp) {
  const res = await client.get(path, { headers });
  expect(res.status, `${path} ${JSON.stringify(headers)}`).toBe(401);
  expect(res.headers['content-type']).toBe('application/problem+json');
  expect(res.headers['www-authenticate']).toMatch(challenge);
  return res;
}

describe('JWT with a secret (HS256)', () => {
  const missing = /^Bearer realm="api"$/;
  const refused = /^Bearer realm="api", error="invalid_token"$/;

  it('accepts a valid token and fills request.auth', async () => {
    const res = await client.get('/hs', { headers: bearer(await hs({ role: 'admin' })) });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ auth: { scheme: 'bearer', subject: 'ada', claims: { sub: 'ada', role: 'admin', iss: ISSUER } } });
  });

  it('refuses no credential, a malformed header and the wrong scheme word', async () => {
    await expect401('/hs', {}, missing);
    await expect401('/hs', { authorization: 'Bearer' }, missing);
    await expect401('/hs', { authorization: 'Bearer not.a.jwt' }, refused);
    await expect401('/hs', { authorization: `Token ${await hs()}` }, missing);
    await expect401('/hs', { authorization: `Basic ${await hs()}` }, missing);
  });

  it('refuses expired, not-yet-valid, tampered and wrongly signed tokens', async () => {
    const expired = await expect401('/hs', bearer(await hs({}, -60)), refused);
    expect(expired.json()).toMatchObject({ status: 401, detail: 'The token has expired' });
    await expect401('/hs', bearer(await hs({ nbf: Math.floor(Date.now() / 1000) + 3600 })), refused);
    const [header, payload, signature] = (await hs()).split('.');
    const forged = b64url({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), sub: 'root' });
    await expect401('/hs', bearer(`${header}.${forged}.${signature}`), refused);
    await expect401(
      '/hs',
      bearer(
        await createToken(
          { sub: 'ada', iss: ISSUER, aud: AUDIENCE },
          { secret: 'another-secret-entirely-32-bytes!!', algorithm: 'HS256', expiresIn: 60 },
        ),
      ),
      refused,
    );
  });

  it('refuses alg: none and a wrong issuer or audience', async () => {
    const none = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ sub: 'ada', iss: ISSUER, aud: AUDIENCE })}.`;
    await expect401('/hs', bearer(none), refused);
    await expect401('/hs', bearer(await hs({ iss: 'https://evil.test' })), refused);
    await expect401('/hs', bearer(await hs({ aud: 'someone-else' })), refused);
  });
});

describe('JWT with a public key (RS256)', () => {
  const sign = (claims: Record<string, unknown>, key = rsa.privatePem, algorithm = 'RS256') =>
    createToken({ sub: 'ada', ...claims }, { key, algorithm, expiresIn: '1h' });

  it('accepts a token signed with the private key', async () => {
    const res = await client.get('/rs', { headers: bearer(await sign({})) });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ auth: { subject: 'ada' } });
  });

  it('refuses an HS256 token signed with the public key (algorithm confusion), PEM as is or with leading whitespace', async () => {
    for (const secret of [rsa.publicPem, `\n  ${rsa.publicPem}`, rsa.publicPem.trim()]) {
      const header = b64url({ alg: 'HS256', typ: 'JWT' });
      const payload = b64url({ sub: 'root', exp: Math.floor(Date.now() / 1000) + 600 });
      const signature = createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url');
      await expect401('/rs', bearer(`${header}.${payload}.${signature}`), /error="invalid_token"/);
    }
  });

  it('refuses a token signed by another key', async () => {
    await expect401('/rs', bearer(await sign({}, rotated.privatePem)), /error="invalid_token"/);
  });
});

describe('JWT with a JWKS URL', () => {
  it('fetches the key set once for many requests', async () => {
    const token = await createToken({ sub: 'ada' }, { key: rsa.privatePem, algorithm: 'RS256', expiresIn: '1h' }).then((t) => t);
    // createToken does not set a kid: add it through the header by signing again with jose directly.
    const { SignJWT, importPKCS8 } = await import('jose');
    const withKid = await new SignJWT({ sub: 'ada' })
      .setProtectedHeader({ alg: 'RS256', kid: 'key-a' })
      .setExpirationTime('1h')
      .sign(await importPKCS8(rsa.privatePem, 'RS256'));
    expect(token).toBeTruthy();
    const answers = await Promise.all(Array.from({ length: 20 }, () => client.get('/jwks', { headers: bearer(withKid) })));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(jwks.fetches).toBe(1);
  });

  it('fetches again for a rotated key after the cooldown, and not during a storm of unknown kids', async () => {
    const { SignJWT, importPKCS8 } = await import('jose');
    const signer = async (pair: typeof rsa, kid: string, alg = 'RS256') =>
      new SignJWT({ sub: kid })
        .setProtectedHeader({ alg, kid })
        .setExpirationTime('2h')
        .sign(await importPKCS8(pair.privatePem, alg));
    jwks.keys = [await publicJwk(rsa, 'key-a', 'RS256'), await publicJwk(rotated, 'key-b', 'RS256')];
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 31_000 });
    try {
      const res = await client.get('/jwks', { headers: bearer(await signer(rotated, 'key-b')) });
      expect(res.status).toBe(200);
      expect(jwks.fetches).toBe(2);
      const storm = await Promise.all(
        Array.from({ length: 30 }, async (_, i) => client.get('/jwks', { headers: bearer(await signer(rotated, `unknown-${i}`)) })),
      );
      expect(storm.map((a) => a.status)).toEqual(Array(30).fill(401));
      expect(jwks.fetches).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses a PS256 token for a JWK without alg: only the configured algorithm verifies', async () => {
    const { SignJWT, importPKCS8 } = await import('jose');
    jwks.keys = [...jwks.keys, await publicJwk(rotated, 'no-alg')];
    const token = await new SignJWT({ sub: 'ada' })
      .setProtectedHeader({ alg: 'PS256', kid: 'no-alg' })
      .setExpirationTime('1h')
      .sign(await importPKCS8(rotated.privatePem, 'PS256'));
    await expect401('/jwks', bearer(token), /error="invalid_token"/);
  });

  it('answers 401, not 500, when the key set cannot be fetched, and logs it', async () => {
    const { SignJWT, importPKCS8 } = await import('jose');
    const token = await new SignJWT({ sub: 'ada' })
      .setProtectedHeader({ alg: 'RS256', kid: 'key-a' })
      .setExpirationTime('1h')
      .sign(await importPKCS8(rsa.privatePem, 'RS256'));
    await expect401('/jwks-down', bearer(token), /error="invalid_token"/);
    expect(logLines.some((line) => line.includes('JWT keys unavailable'))).toBe(true);
  });
});

describe('API keys', () => {
  it('accepts a key with the permission and sets request.auth.permissions', async () => {
    const res = await client.get('/write', { headers: { 'x-api-key': 'key-admin-456' } });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ auth: { scheme: 'apiKey', permissions: ['read', 'write'] } });
  });

  it('refuses a missing or unknown key with 401 and a key lacking the permission with 403', async () => {
    await expect401('/write', {}, /^ApiKey$/);
    await expect401('/write', { 'x-api-key': 'key-admin-45' }, /^ApiKey$/);
    await expect401('/write', { 'x-api-key': 'key-admin-4567' }, /^ApiKey$/);
    const lacking = await client.get('/write', { headers: { 'x-api-key': 'key-read-123' } });
    expect(lacking.status).toBe(403);
    expect(lacking.json()).toMatchObject({ status: 403, details: { missing: ['write'] } });
  });

  it('reads the query parameter only where it is enabled', async () => {
    expect((await client.get('/read?api_key=key-read-123')).status).toBe(200);
    expect((await client.get('/write?api_key=key-admin-456')).status).toBe(401);
  });
});

describe('HTTP Basic', () => {
  const challenge = /^Basic realm="api", charset="UTF-8"$/;
  it('accepts UTF-8 credentials and passwords containing ":"', async () => {
    const ada = await client.get('/basic', { headers: basic('ada', 'pa:ss:word') });
    expect(ada.status).toBe(200);
    expect(ada.json()).toEqual({ auth: { scheme: 'basic', subject: 'ada' } });
    const jozef = await client.get('/basic', { headers: basic('józef', 'zażółć gęślą') });
    expect(jozef.json()).toEqual({ auth: { scheme: 'basic', subject: 'józef' } });
  });

  it('refuses unknown users, wrong passwords and malformed credentials with the challenge', async () => {
    await expect401('/basic', {}, challenge);
    await expect401('/basic', basic('ada', 'pa:ss'), challenge);
    await expect401('/basic', basic('mallory', 'pa:ss:word'), challenge);
    await expect401('/basic', { authorization: 'Basic !!!' }, challenge);
    await expect401('/basic', { authorization: `Basic ${Buffer.from('no-colon').toString('base64')}` }, challenge);
  });

  it('works as a standard decorator under @api, with `this` bound', async () => {
    await expect401('/decorated', {}, /^Basic realm="decorated"/);
    const res = await client.get('/decorated', { headers: basic('ada', 'pa:ss:word') });
    expect(res.json()).toEqual({ user: 'ada', self: true });
  });
});

describe('anyOf', () => {
  it('accepts either scheme; the first that accepts fills request.auth', async () => {
    expect((await client.get('/any', { headers: bearer(await hs()) })).json()).toMatchObject({ auth: { scheme: 'bearer' } });
    expect((await client.get('/any', { headers: { 'x-api-key': 'key-admin-456' } })).json()).toMatchObject({ auth: { scheme: 'apiKey' } });
  });

  it('answers 401 with every challenge, or 403 when a scheme knew the caller', async () => {
    await expect401('/any', {}, /^Bearer realm="api", ApiKey$/);
    await expect401('/any', bearer('bad.token.here'), /ApiKey/);
    expect((await client.get('/any', { headers: { 'x-api-key': 'key-read-123' } })).status).toBe(403);
  });

  it('documents the alternatives as separate security requirements', () => {
    const doc = app.openapi() as {
      paths: Record<string, Record<string, { security?: unknown; responses: Record<string, unknown> }>>;
      components: { securitySchemes: Record<string, unknown> };
    };
    expect(doc.paths['/any']!.get!.security).toEqual([{ bearerAuth: [] }, { apiKeyHeader: [] }]);
    expect(doc.paths['/read']!.get!.security).toEqual([{ apiKeyHeader: [] }, { apiKeyQuery: [] }]);
    expect(doc.paths['/basic']!.get!.security).toEqual([{ basicAuth: [] }]);
    expect(doc.paths['/basic']!.get!.responses['401']).toBeDefined();
    expect(doc.components.securitySchemes).toMatchObject({
      bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      apiKeyQuery: { type: 'apiKey', in: 'query', name: 'api_key' },
      basicAuth: { type: 'http', scheme: 'basic' },
    });
  });
});

describe('logs', () => {
  it('never contain a credential value (LoggingMiddleware, LoggingPlugin)', async () => {
    const token = await hs();
    await client.get('/hs', { headers: bearer(token) });
    await client.get('/read?api_key=key-read-123');
    const plugin = readFileSync(pluginLog, 'utf8');
    expect(plugin.length).toBeGreaterThan(0);
    const all = `${logLines.join('')}\n${plugin}`;
    expect(logLines.length).toBeGreaterThan(10);
    for (const secret of [
      token,
      SECRET,
      'key-read-123',
      'key-admin-456',
      'pa:ss:word',
      'zażółć',
      Buffer.from('ada:pa:ss:word').toString('base64'),
    ]) {
      expect(all.includes(secret), `log contains ${secret.slice(0, 12)}…`).toBe(false);
    }
  });
});
