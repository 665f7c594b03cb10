/** `request.id` (X-Request-ID in and out, in log lines) and `request.ip`/`trustProxy`, on every transport. */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { API, HTTPError, type APIOptions, z } from '../src/index.js';
import { serve, TRANSPORTS } from './helpers.js';

function build(options: APIOptions = {}): API {
  const app = new API({ logger: false, ...options });
  app.get('/who', (_input, request) => ({ id: request.id, ip: request.ip ?? null, url: request.url.href }));
  app.get('/items/{item_id}', { params: { item_id: z.int() } }, ({ item_id }) => ({ item_id }));
  app.get('/boom', () => {
    throw new Error('kaboom');
  });
  app.get('/teapot', () => {
    throw new HTTPError(418, 'short and stout');
  });
  return app;
}

describe('request.id', () => {
  const served = serve(() => build());

  it('is generated, unique, and sent back on every answer of every transport', async () => {
    const seen = new Set<string>();
    for (const path of ['/who', '/nowhere', '/items/abc', '/boom', '/teapot', '/who/']) {
      for (const reply of await served.sendAll({ path })) {
        const id = reply.headers['x-request-id'];
        expect(typeof id, `${path}`).toBe('string');
        expect(id).toMatch(/^[\x21-\x7e]{1,128}$/);
        seen.add(id as string);
      }
    }
    expect(seen.size).toBe(6 * TRANSPORTS.length);
  });

  it('is what the handler sees', async () => {
    for (const reply of await served.sendAll({ path: '/who' })) expect(reply.json().id).toBe(reply.headers['x-request-id']);
  });

  it('takes a valid incoming X-Request-ID', async () => {
    const id = 'trace-7f3a:9~!';
    for (const reply of await served.sendAll({ path: '/who', headers: { 'X-Request-ID': id } })) {
      expect(reply.headers['x-request-id']).toBe(id);
      expect(reply.json().id).toBe(id);
    }
    for (const reply of await served.sendAll({ path: '/nowhere', headers: { 'x-request-id': id } })) {
      expect(reply.status).toBe(404);
      expect(reply.headers['x-request-id']).toBe(id);
    }
  });

  it('replaces an incoming id that is too long, has spaces or non-ASCII', async () => {
    for (const bad of ['a'.repeat(129), 'has space', 'é-id']) {
      for (const reply of await served.sendAll({ path: '/who', headers: { 'x-request-id': bad } })) {
        expect(reply.headers['x-request-id']).not.toBe(bad);
        expect(reply.headers['x-request-id']).toMatch(/^[\x21-\x7e]{1,128}$/);
      }
    }
    const [longest] = await served.sendAll({ path: '/who', headers: { 'x-request-id': 'b'.repeat(128) } });
    expect(longest!.headers['x-request-id']).toBe('b'.repeat(128));
  });

  it('reads the header named by requestIdHeader, and none with false', async () => {
    const custom = build({ requestIdHeader: 'X-Correlation-ID' });
    const named = await custom.inject({ url: '/who', headers: { 'x-correlation-id': 'corr-1', 'x-request-id': 'other' } });
    expect(named.headers['x-request-id']).toBe('corr-1');
    const never = build({ requestIdHeader: false });
    const ignored = await never.inject({ url: '/who', headers: { 'x-request-id': 'mine' } });
    expect(ignored.headers['x-request-id']).not.toBe('mine');
    expect(ignored.json<{ id: string }>().id).toBe(ignored.headers['x-request-id']);
  });

  it('is carried by the log lines of the request, the error log included', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const app = build({ logger });
    app.get('/logs', (_input, request) => {
      request.logger.info({ step: 1 }, 'working');
      return { ok: true };
    });
    const ok = await app.inject({ url: '/logs', headers: { 'x-request-id': 'req-abc' } });
    expect(ok.status).toBe(200);
    expect(lines.find((line) => line.msg === 'working')).toMatchObject({ reqId: 'req-abc', step: 1 });
    const failed = await app.inject({ url: '/boom' });
    expect(failed.status).toBe(500);
    expect(lines.find((line) => line.msg === 'unhandled error')).toMatchObject({ reqId: failed.headers['x-request-id'] });
  });
});

describe('request.ip and trustProxy', () => {
  const untrusted = serve(() => build());
  const trustAll = serve(() => build({ trustProxy: true }));
  const oneHop = serve(() => build({ trustProxy: 1 }));
  const listed = serve(() => build({ trustProxy: ['127.0.0.1', '10.0.0.0/8'] }));
  const forwarded = {
    'x-forwarded-for': '203.0.113.7, 198.51.100.2, 10.1.2.3',
    'x-forwarded-proto': 'https',
    'x-forwarded-host': 'api.example.com',
  };

  it('is the peer by default, and X-Forwarded-* is ignored', async () => {
    const reply = await untrusted.send('http', { path: '/who', headers: forwarded });
    expect(reply.json()).toMatchObject({ ip: '127.0.0.1' });
    expect(reply.json().url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/who$/);
  });

  it('true believes every hop: the furthest address', async () => {
    const reply = await trustAll.send('http', { path: '/who', headers: forwarded });
    expect(reply.json()).toMatchObject({ ip: '203.0.113.7', url: 'https://api.example.com/who' });
  });

  it('a number believes that many hops', async () => {
    const reply = await oneHop.send('http', { path: '/who', headers: forwarded });
    expect(reply.json()).toMatchObject({ ip: '10.1.2.3', url: 'https://api.example.com/who' });
  });

  it('a list of addresses and CIDR ranges stops at the nearest untrusted address', async () => {
    const reply = await listed.send('http', { path: '/who', headers: forwarded });
    expect(reply.json()).toMatchObject({ ip: '198.51.100.2', url: 'https://api.example.com/who' });
    const direct = await listed.send('http', { path: '/who' });
    expect(direct.json()).toMatchObject({ ip: '127.0.0.1' });
  });

  it('an untrusted peer cannot claim an address or origin', async () => {
    const app = build({ trustProxy: ['10.0.0.0/8'] });
    const reply = await app.inject({ url: '/who', headers: { ...forwarded, host: 'internal:8000' } });
    expect(reply.json()).toMatchObject({ ip: '127.0.0.1', url: 'http://internal:8000/who' });
  });

  it('a comma-separated string works as a list; a bad address fails when the app is built', () => {
    expect(() => build({ trustProxy: '127.0.0.1, loopback' })).not.toThrow();
    expect(() => build({ trustProxy: ['not-an-ip'] })).toThrow();
    expect(() => build({ trustProxy: -1 })).toThrow(RangeError);
  });

  it('keeps the trailing-slash redirect relative, so it is right behind any proxy', async () => {
    const reply = await trustAll.send('http', { path: '/who/?x=1', headers: forwarded });
    expect(reply.status).toBe(308);
    expect(reply.headers.location).toBe('/who?x=1');
  });
});
