import { API, NotFoundError, Response } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { CORSMiddleware } from '../src/index.js';

const APP_ORIGIN = 'https://app.example';
const EVIL_ORIGIN = 'https://evil.example';

let client: TestClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

function buildApp(cors: CORSMiddleware): API {
  const app = new API({ logger: false });
  app.addMiddleware(cors);
  app.get('/items', () => [{ id: 1 }]);
  app.post('/items', () => ({ created: true }));
  app.get('/missing', () => {
    throw new NotFoundError('no such item');
  });
  return app;
}

function preflight(origin: string, method = 'POST', headers = 'content-type') {
  return {
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
  };
}

describe('CORSMiddleware construction', () => {
  it('has the documented defaults', () => {
    const cors = new CORSMiddleware();
    expect(cors.allowOrigins).toEqual(['*']);
    expect(cors.allowMethods).toEqual(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
    expect(cors.allowHeaders).toEqual(['Content-Type', 'Authorization']);
    expect(cors.allowCredentials).toBe(false);
    expect(cors.exposeHeaders).toEqual(['Deprecation', 'Sunset', 'Link', 'X-Request-ID']);
    expect(cors.maxAge).toBe(600);
  });

  it("refuses ['*'] with allowCredentials, saying to list the origins", () => {
    expect(() => new CORSMiddleware({ allowCredentials: true })).toThrow(/list the allowed origins/);
    expect(() => new CORSMiddleware({ allowOrigins: ['*'], allowCredentials: true })).toThrow(/allowCredentials/);
    expect(() => new CORSMiddleware({ allowOrigins: [APP_ORIGIN], allowCredentials: true })).not.toThrow();
  });
});

describe('CORSMiddleware with a list of origins', () => {
  const options = {
    allowOrigins: [APP_ORIGIN],
    allowCredentials: true,
    exposeHeaders: ['X-Total-Count'],
    maxAge: 120,
  };

  it('answers a preflight from an allowed origin with 204 and the allow headers, on any route', async () => {
    client = await TestClient.start(buildApp(new CORSMiddleware(options)));
    for (const path of ['/items', '/missing', '/not-a-route']) {
      const res = await client.options(path, preflight(APP_ORIGIN));
      expect(res.status, path).toBe(204);
      expect(res.body).toBe('');
      expect(res.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
      expect(res.headers['access-control-allow-credentials']).toBe('true');
      expect(res.headers['access-control-allow-methods']).toBe('GET, POST, PUT, PATCH, DELETE, OPTIONS');
      expect(res.headers['access-control-allow-headers']).toBe('Content-Type, Authorization');
      expect(res.headers['access-control-max-age']).toBe('120');
      expect(res.headers.vary).toBe('Origin');
    }
  });

  it('gives a preflight from a disallowed origin no allow-origin header', async () => {
    client = await TestClient.start(buildApp(new CORSMiddleware(options)));
    const res = await client.options('/items', preflight(EVIL_ORIGIN));
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(res.headers['access-control-allow-methods']).toBeUndefined();
  });

  it('echoes an allowed origin on simple requests, with Vary, credentials and exposed headers', async () => {
    client = await TestClient.start(buildApp(new CORSMiddleware(options)));
    const res = await client.get('/items', { headers: { origin: APP_ORIGIN } });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual([{ id: 1 }]);
    expect(res.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    expect(res.headers['access-control-allow-credentials']).toBe('true');
    expect(res.headers['access-control-expose-headers']).toBe('X-Total-Count, Deprecation, Sunset, Link, X-Request-ID');
    expect(res.headers.vary).toBe('Origin');
  });

  it("exposes a deprecated endpoint's Deprecation, Sunset and Link, its errors' too", async () => {
    const app = new API({ logger: false });
    app.addMiddleware(new CORSMiddleware(options));
    app.get('/old', { deprecated: '2026-12-01', sunset: '2027-06-30', deprecationLink: 'https://example.com/new' }, () => {
      throw new NotFoundError('gone');
    });
    client = await TestClient.start(app);
    const res = await client.get('/old', { headers: { origin: APP_ORIGIN } });
    expect(res.status).toBe(404);
    expect(res.headers.deprecation).toBe('@1796083200');
    expect(res.headers.sunset).toBe('Wed, 30 Jun 2027 00:00:00 GMT');
    expect(res.headers.link).toBe('<https://example.com/new>; rel="deprecation"');
    const exposed = String(res.headers['access-control-expose-headers']).split(', ');
    expect(exposed).toEqual(expect.arrayContaining(['Deprecation', 'Sunset', 'Link', 'X-Request-ID']));
  });

  it('sets no allow-origin for a disallowed origin, but the request is still served', async () => {
    client = await TestClient.start(buildApp(new CORSMiddleware(options)));
    const res = await client.post('/items', { headers: { origin: EVIL_ORIGIN }, json: {} });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(res.headers.vary).toBe('Origin');
  });

  it('puts CORS headers on error responses too (handler errors and unknown routes)', async () => {
    client = await TestClient.start(buildApp(new CORSMiddleware(options)));
    const missing = await client.get('/missing', { headers: { origin: APP_ORIGIN } });
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toBe('application/problem+json');
    expect(missing.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    const unknown = await client.get('/nowhere', { headers: { origin: APP_ORIGIN } });
    expect(unknown.status).toBe(404);
    expect(unknown.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
  });

  it('passes an OPTIONS request that is not a preflight on to routing', async () => {
    client = await TestClient.start(buildApp(new CORSMiddleware(options)));
    const res = await client.options('/items', { headers: { origin: APP_ORIGIN } });
    expect(res.status).toBe(404);
    expect(res.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
  });

  it('matches origins case-insensitively and ignores a trailing slash in the configuration', async () => {
    client = await TestClient.start(buildApp(new CORSMiddleware({ allowOrigins: ['https://App.Example/'] })));
    const res = await client.get('/items', { headers: { origin: APP_ORIGIN } });
    expect(res.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
  });

  it('keeps a Vary the handler set and adds Origin to it', async () => {
    const app = new API({ logger: false });
    app.addMiddleware(new CORSMiddleware({ allowOrigins: [APP_ORIGIN] }));
    app.get('/v', () => new Response({ ok: true }, { headers: { vary: 'Accept-Encoding' } }));
    client = await TestClient.start(app);
    const res = await client.get('/v', { headers: { origin: APP_ORIGIN } });
    expect(res.headers.vary).toBe('Accept-Encoding, Origin');
  });
});

describe('CORSMiddleware with the wildcard', () => {
  it("answers '*' to any origin, without Vary and without credentials", async () => {
    client = await TestClient.start(buildApp(new CORSMiddleware()));
    const pre = await client.options('/items', preflight(EVIL_ORIGIN, 'PUT'));
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('*');
    expect(pre.headers['access-control-allow-credentials']).toBeUndefined();
    expect(pre.headers['access-control-max-age']).toBe('600');
    expect(pre.headers.vary).toBeUndefined();
    const simple = await client.get('/items', { headers: { origin: 'http://localhost:3000' } });
    expect(simple.headers['access-control-allow-origin']).toBe('*');
    expect(simple.headers.vary).toBeUndefined();
  });

  it('sends no CORS headers to a request without Origin', async () => {
    client = await TestClient.start(buildApp(new CORSMiddleware()));
    const res = await client.get('/items');
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it("echoes the requested headers when allowHeaders is ['*']", async () => {
    client = await TestClient.start(buildApp(new CORSMiddleware({ allowHeaders: ['*'] })));
    const res = await client.options('/items', preflight(APP_ORIGIN, 'POST', 'x-custom, content-type'));
    expect(res.headers['access-control-allow-headers']).toBe('x-custom, content-type');
    expect(res.headers.vary).toBe('Access-Control-Request-Headers');
  });
});
