/**
 * One unit of time: every duration option is seconds, or a string with its unit; a number over an
 * hour is refused where a millisecond value is the likely mistake. Over real sockets.
 */
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { API, sseEvent, z } from '../src/index.js';
import { TestClient } from '@fnapi/core/testing';

describe('server limits in seconds', () => {
  it('gives an in-flight request shutdownTimeout seconds at close (10 is ten seconds, not ten ms)', async () => {
    const app = new API({ logger: false, shutdownTimeout: 10 });
    let started!: () => void;
    const inFlight = new Promise<void>((resolve) => {
      started = resolve;
    });
    app.get('/slow', async () => {
      started();
      await sleep(300);
      return { done: true };
    });
    const server = await app.run({ host: '127.0.0.1', port: 0, handleSignals: false });
    const answer = fetch(`${server.url}/slow`).then(async (res) => ({ status: res.status, body: await res.json() }));
    await inFlight;
    await server.close();
    expect(await answer).toEqual({ status: 200, body: { done: true } });
  });

  it('cuts a drain at a shutdownTimeout given with its unit', async () => {
    const app = new API({ logger: false, shutdownTimeout: '200ms' });
    expect(app.limits.shutdownTimeout).toBe(200);
    let started!: () => void;
    const inFlight = new Promise<void>((resolve) => {
      started = resolve;
    });
    app.get('/endless', async (_input, request) => {
      started();
      await sleep(5000, undefined, { signal: request.signal }).catch(() => undefined);
      return {};
    });
    const server = await app.run({ host: '127.0.0.1', port: 0, handleSignals: false });
    void fetch(`${server.url}/endless`).catch(() => undefined);
    await inFlight;
    const t0 = performance.now();
    await server.close();
    const took = performance.now() - t0;
    expect(took).toBeGreaterThanOrEqual(150);
    expect(took).toBeLessThan(3000);
  });

  it('closes an idle keep-alive connection after keepAliveTimeout seconds', async () => {
    const app = new API({ logger: false, keepAliveTimeout: 0.3, headersTimeout: '5s', requestTimeout: '10s' });
    app.get('/hi', () => ({ hi: true }));
    const server = await app.run({ host: '127.0.0.1', port: 0, handleSignals: false });
    try {
      const socket = connect(server.port, '127.0.0.1');
      let reply = '';
      socket.on('data', (chunk: Buffer) => {
        reply += chunk.toString('latin1');
      });
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      const t0 = performance.now();
      socket.write('GET /hi HTTP/1.1\r\nHost: x\r\n\r\n');
      await new Promise<void>((resolve) => socket.once('close', () => resolve()));
      const open = performance.now() - t0;
      expect(reply).toMatch(/^HTTP\/1\.1 200/);
      expect(reply).toMatch(/keep-alive: timeout=0/i);
      expect(open).toBeGreaterThanOrEqual(250);
      expect(open).toBeLessThan(3000);
    } finally {
      await server.close();
    }
  });

  it('refuses a number over an hour for every server timeout, naming the unit', () => {
    for (const name of ['headersTimeout', 'requestTimeout', 'keepAliveTimeout', 'shutdownTimeout', 'shutdownDelay', 'uploadTimeout']) {
      expect(() => new API({ [name]: 10_000 }), name).toThrow(
        new RegExp(`^${name} is in seconds: 10000 s is over an hour \\(for milliseconds write '10000ms'`),
      );
      expect(() => new API({ [name]: 'ten' as never }), name).toThrow(TypeError);
      // With its unit, a longer span is what it says.
      expect(new API({ [name]: '2h' }).limits[name as 'headersTimeout']).toBe(7_200_000);
    }
    const defaults = new API().limits;
    expect([defaults.headersTimeout, defaults.requestTimeout, defaults.keepAliveTimeout, defaults.shutdownTimeout]).toEqual([
      10_000, 30_000, 72_000, 10_000,
    ]);
  });
});

describe('endpoint and stream durations', () => {
  it("answers 504 past an endpoint's timeout given as a string", async () => {
    const app = new API({ logger: false });
    app.get('/slow', { timeout: '50ms' }, async (_input, request) => {
      await sleep(2000, undefined, { signal: request.signal }).catch(() => undefined);
      return {};
    });
    const client = await TestClient.start(app);
    try {
      const res = await client.get('/slow');
      expect(res.status).toBe(504);
      expect(res.json()).toMatchObject({ detail: expect.stringContaining('0.05 s') });
    } finally {
      await client.close();
    }
  });

  it('refuses an endpoint timeout or a heartbeat over an hour at registration', () => {
    const app = new API({ logger: false });
    expect(() => app.get('/x', { timeout: 5000 }, () => ({}))).toThrow(/^GET \/x: timeout is in seconds: 5000 s is over an hour/);
    expect(() => app.ws('/w', { heartbeat: 30_000 }, async () => {})).toThrow(/heartbeat is in seconds: 30000 s is over an hour/);
    expect(() => app.get('/p', { events: z.object({}), ping: '15 seconds' as never }, () => [])).toThrow(
      /ping is a number of seconds or a string/,
    );
  });

  it("writes sseEvent's retry to the wire in milliseconds", async () => {
    const app = new API({ logger: false });
    app.get('/events', { events: z.object({ n: z.int() }), ping: '1m' }, function* () {
      yield sseEvent({ data: { n: 1 }, retry: 2.5 });
      yield sseEvent({ data: { n: 2 }, retry: '250ms' });
      yield sseEvent({ data: { n: 3 }, retry: '1m' });
    });
    const client = await TestClient.start(app);
    try {
      const res = await client.get('/events');
      expect(res.body.match(/^retry: .*$/gm)).toEqual(['retry: 2500', 'retry: 250', 'retry: 60000']);
    } finally {
      await client.close();
    }
    expect(() => sseEvent({ data: 1, retry: '2 s' as never })).toThrow(/sseEvent: retry is a number of seconds or a string/);
  });

  it("reads a cookie's maxAge with its unit", async () => {
    const app = new API({ logger: false });
    app.get('/login', (_input, request) => {
      request.setCookie('a', '1', { maxAge: '30d' });
      request.setCookie('b', '2', { maxAge: 90 });
      return {};
    });
    const client = await TestClient.start(app);
    try {
      const cookies = (await client.get('/login')).headers['set-cookie'] as unknown as string[];
      expect(cookies.join('\n')).toMatch(/a=1; Max-Age=2592000/);
      expect(cookies.join('\n')).toMatch(/b=2; Max-Age=90/);
    } finally {
      await client.close();
    }
  });
});
