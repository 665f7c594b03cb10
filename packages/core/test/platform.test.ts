/** `request.platform` and `request.waitUntil` on Node's transports (the other runtimes: runtimes/conformance.test.ts). */
import { describe, expect, it } from 'vitest';
import { API } from '../src/index.js';
import { TestClient } from '../src/server/testing.js';

describe('request.platform', () => {
  it('is { runtime: "node" } through app.run, app.inject and app.fetch without bindings', async () => {
    const app = new API({ logger: false });
    app.get('/platform', (_input, request) => request.platform);
    expect((await app.inject('/platform')).json()).toEqual({ runtime: 'node' });
    expect(await (await app.fetch(new Request('http://localhost/platform'))).json()).toEqual({ runtime: 'node' });
    const client = await TestClient.start(app);
    try {
      expect((await client.get('/platform')).json()).toEqual({ runtime: 'node' });
    } finally {
      await client.close();
    }
  });

  it('carries the env and ctx that app.fetch is given (Workers) and hands waitUntil to ctx', async () => {
    const app = new API({ logger: false });
    const handed: Promise<unknown>[] = [];
    app.get('/env', (_input, request) => {
      request.waitUntil(Promise.resolve('later'));
      const env = request.platform.env as { GREETING: string };
      return { runtime: request.platform.runtime, greeting: env.GREETING, ctx: request.platform.ctx === ctx };
    });
    const ctx = { waitUntil: (promise: Promise<unknown>) => void handed.push(promise), passThroughOnException() {} };
    const response = await app.fetch(new Request('http://localhost/env'), { GREETING: 'hi' }, ctx);
    expect(await response.json()).toEqual({ runtime: 'node', greeting: 'hi', ctx: true });
    expect(handed).toHaveLength(1);
  });
});

describe('request.waitUntil without a platform to take it', () => {
  it('keeps the work: shutdown waits for it before the shutdown callbacks run', async () => {
    const app = new API({ logger: false });
    const events: string[] = [];
    app.onShutdown(() => void events.push('shutdown callback'));
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    app.post('/later', (_input, request) => {
      request.waitUntil(released.then(() => events.push('work done')));
      return { accepted: true };
    });
    expect((await app.inject({ method: 'POST', url: '/later' })).json()).toEqual({ accepted: true });
    expect(events).toEqual([]);
    const shutdown = app.shutdown();
    // Let go only after shutdown began: a shutdown that did not wait would have run its callbacks by then.
    setImmediate(release);
    await shutdown;
    expect(events).toEqual(['work done', 'shutdown callback']);
  });

  it('logs a rejection with the request id and never changes the answer', async () => {
    const lines: Record<string, unknown>[] = [];
    const { pino } = await import('pino');
    const logger = pino({ level: 'error' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const app = new API({ logger });
    app.get('/fails-later', (_input, request) => {
      request.waitUntil(Promise.reject(new Error('background failure')));
      return { ok: true };
    });
    const reply = await app.inject({ url: '/fails-later', headers: { 'x-request-id': 'req-42' } });
    expect(reply.status).toBe(200);
    await app.shutdown();
    expect(lines).toEqual([
      expect.objectContaining({
        reqId: 'req-42',
        msg: 'work handed to waitUntil failed',
        err: expect.objectContaining({ message: 'background failure' }),
      }),
    ]);
  });
});
