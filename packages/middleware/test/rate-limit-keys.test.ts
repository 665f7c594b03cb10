/**
 * RateLimitMiddleware's keys over real HTTP: one client is one count however its address is spelled
 * (`::ffff:` mapped, leading zeros, a port, a dual-stack listener), an entry of X-Forwarded-For that is
 * no address falls back to the nearest one that is, IPv6 clients count by their /64, and the README's
 * per-user limit (`key: (r) => r.auth?.subject ?? r.ip`) as endpoint middleware sees `request.auth`.
 */
import { createToken, jwtRequired } from '@fnapi/auth';
import { API } from '@fnapi/core';
import { normalizeAddress } from '@fnapi/core/extend';
import { addressKey } from '@fnapi/core/extend';
import { TestClient } from '@fnapi/core/testing';
import { request as undiciRequest } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { RateLimitMiddleware } from '../src/index.js';

let client: TestClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

describe('normalizeAddress and addressKey', () => {
  it('read one address however it is spelled, and nothing else', () => {
    for (const spelling of ['198.51.100.7', '::ffff:198.51.100.7', '198.051.100.007', '198.51.100.7:1234', '[::ffff:c633:6407]:80'])
      expect(normalizeAddress(spelling), spelling).toBe('198.51.100.7');
    expect(normalizeAddress('2001:DB8:0:0:0:0:0:1')).toBe('2001:db8::1');
    expect(normalizeAddress('[2001:db8::1]:443')).toBe('2001:db8::1');
    for (const bad of ['not-an-ip', '256.1.1.1', '1.2.3', '2001:db8::1::2', '', 'ip:1234'])
      expect(normalizeAddress(bad), bad).toBeUndefined();
    expect(addressKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd', 48)).toBe('2001:db8:1::/48');
    expect(addressKey('::ffff:127.0.0.1')).toBe('127.0.0.1');
  });
});

describe('RateLimitMiddleware keys', () => {
  function limited(trustProxy: number | false = 1, limit = 2): API {
    const app = new API({ logger: false, trustProxy });
    app.addMiddleware(new RateLimitMiddleware({ limit, window: 60 }));
    app.get('/items', (_input, request) => ({ ip: request.ip }));
    return app;
  }

  it('counts one forwarded client once, whatever spelling of its address X-Forwarded-For carries', async () => {
    client = await TestClient.start(limited());
    const statuses: number[] = [];
    for (const spelling of ['198.51.100.7', '::ffff:198.51.100.7', '198.051.100.007', '198.51.100.7:1234']) {
      const res = await client.get('/items', { headers: { 'x-forwarded-for': spelling } });
      statuses.push(res.status);
      if (res.status === 200) expect(res.json()).toEqual({ ip: '198.51.100.7' });
    }
    expect(statuses).toEqual([200, 200, 429, 429]);
    // Another client still has its own count.
    expect((await client.get('/items', { headers: { 'x-forwarded-for': '198.51.100.8' } })).status).toBe(200);
  });

  it('skips a forwarded entry that is no address for the nearest one that is (the peer)', async () => {
    client = await TestClient.start(limited());
    const first = await client.get('/items', { headers: { 'x-forwarded-for': 'not-an-ip' } });
    expect(first.json()).toEqual({ ip: '127.0.0.1' });
    expect((await client.get('/items', { headers: { 'x-forwarded-for': 'also-not' } })).status).toBe(200);
    expect((await client.get('/items', { headers: { 'x-forwarded-for': 'garbage, still-garbage' } })).status).toBe(429);
    expect((await client.get('/items')).status).toBe(429);
  });

  it('counts IPv6 clients by their /64', async () => {
    client = await TestClient.start(limited());
    expect((await client.get('/items', { headers: { 'x-forwarded-for': '2001:db8:1:2::1' } })).status).toBe(200);
    expect((await client.get('/items', { headers: { 'x-forwarded-for': '2001:db8:1:2::ffff' } })).status).toBe(200);
    expect((await client.get('/items', { headers: { 'x-forwarded-for': '[2001:db8:1:2:3:4:5:6]:443' } })).status).toBe(429);
    expect((await client.get('/items', { headers: { 'x-forwarded-for': '2001:db8:1:3::1' } })).status).toBe(200);
  });

  it('on a dual-stack listener counts 127.0.0.1 and ::ffff:127.0.0.1 as one client', async () => {
    const app = limited(false);
    const server = await app.run({ host: '::', port: 0, handleSignals: false });
    try {
      const v4 = await undiciRequest(`http://127.0.0.1:${server.port}/items`);
      const seen = (await v4.body.json()) as { ip: string };
      // Node reports the IPv4 peer of a dual-stack socket as ::ffff:127.0.0.1.
      expect(['::ffff:127.0.0.1', '127.0.0.1']).toContain(seen.ip);
      expect(v4.statusCode).toBe(200);
      const again = await undiciRequest(`http://127.0.0.1:${server.port}/items`);
      await again.body.dump();
      expect(again.statusCode).toBe(200);
      const third = await undiciRequest(`http://[::ffff:127.0.0.1]:${server.port}/items`);
      await third.body.dump();
      expect(third.statusCode).toBe(429);
    } finally {
      await server.close();
    }
  });
});

describe('a per-user limit as endpoint middleware', () => {
  it("counts each signed-in user apart, by request.auth (the README's example), since it runs after the guard", async () => {
    const secret = 'a-test-secret-that-is-long-enough-for-hs256';
    const app = new API({ logger: false });
    const perUser = new RateLimitMiddleware({ limit: 2, window: 60, key: (r) => r.auth?.subject ?? r.ip ?? 'anon' });
    app.get(
      '/documents',
      { middleware: [perUser] },
      jwtRequired({ secret, algorithm: 'HS256' })(function documents(_input, request) {
        return { user: request.auth?.subject };
      }),
    );
    client = await TestClient.start(app);
    const ada = { authorization: `Bearer ${await createToken({ sub: 'ada' }, { secret, algorithm: 'HS256', expiresIn: '1h' })}` };
    const bob = { authorization: `Bearer ${await createToken({ sub: 'bob' }, { secret, algorithm: 'HS256', expiresIn: '1h' })}` };
    const statuses = async (headers: Record<string, string>, n: number) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push((await client!.get('/documents', { headers })).status);
      return out;
    };
    expect(await statuses(ada, 3)).toEqual([200, 200, 429]);
    expect(await statuses(bob, 2)).toEqual([200, 200]);
    // An anonymous caller is refused by the guard (401) before the limit counts anything.
    expect(await statuses({}, 3)).toEqual([401, 401, 401]);
    expect(await statuses(bob, 1)).toEqual([429]);
    const doc = app.openapi() as { paths: Record<string, { get: { responses: Record<string, unknown> } }> };
    expect(Object.keys(doc.paths['/documents']!.get.responses)).toEqual(expect.arrayContaining(['401', '429']));
  });
});
