import { createServer } from 'node:http';
import { installLambdaRuntime, invokeStreaming } from '@fnapi/test-support/lambda-runtime';
import { request } from 'undici';
import { describe, expect, it, vi } from 'vitest';
import { API } from '@fnapi/core';
import { LambdaAdapter } from '../src/lambda.js';
import { NetlifyAdapter } from '../src/netlify.js';
import { VercelAdapter } from '../src/vercel.js';
import { httpApiEvent } from './fixtures/events.js';
import { close, listen } from './support/http.js';
import { CloudFunctionAdapter } from '../src/cloud-function.js';

/** An app whose endpoint defers work that ends once the test calls `release`, and records when it ends. */
function deferringApp() {
  const app = new API({ logger: false });
  const log: string[] = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  app.get('/items/{id}', (_input, request) => {
    request.defer(async () => {
      await released;
      log.push('deferred');
    });
    log.push('handler');
    return { ok: true };
  });
  return { app, log, release };
}

describe('request.defer on the adapters', () => {
  it('Lambda: runs after the answer is computed and before the invocation ends', async () => {
    const { app, log, release } = deferringApp();
    // Free to end at once: it still ends after the answer is computed.
    release();
    const result = await new LambdaAdapter(app).handle(httpApiEvent({ method: 'GET', path: '/items/1' }));
    expect((result as { statusCode: number }).statusCode).toBe(200);
    expect(log).toEqual(['handler', 'deferred']);
  });

  it('Lambda streaming: runs after the response stream has ended, before the handler returns', async () => {
    const runtime = installLambdaRuntime();
    try {
      const { app, log, release } = deferringApp();
      // Free to end at once: it must still wait for the stream's last byte.
      release();
      const handler = new LambdaAdapter(app).streamHandler();
      const ended: string[] = [];
      const out = await invokeStreaming(handler, httpApiEvent({ method: 'GET', path: '/items/1' }), {
        onWrite: () => ended.push(log.join(',')),
      });
      expect(out.prelude.statusCode).toBe(200);
      // Every byte went out before the deferred task finished, and it finished before the invocation ended.
      expect(ended.every((seen) => !seen.includes('deferred'))).toBe(true);
      expect(log).toEqual(['handler', 'deferred']);
    } finally {
      runtime.uninstall();
    }
  });

  it('Netlify (v2): hands the deferred work to context.waitUntil', async () => {
    const { app, log, release } = deferringApp();
    const kept: Promise<unknown>[] = [];
    const response = await new NetlifyAdapter(app).handle(new globalThis.Request('https://site/items/1'), {
      waitUntil: (promise: Promise<unknown>) => void kept.push(promise),
    });
    expect(response.status).toBe(200);
    expect(kept).toHaveLength(1);
    expect(log).toEqual(['handler']);
    release();
    await kept[0];
    expect(log).toEqual(['handler', 'deferred']);
  });

  it('Vercel: hands the deferred work to the request context waitUntil when the runtime has one', async () => {
    const { app, log, release } = deferringApp();
    const kept: Promise<unknown>[] = [];
    const key = Symbol.for('@vercel/request-context');
    const globals = globalThis as Record<symbol, unknown>;
    globals[key] = { get: () => ({ waitUntil: (promise: Promise<unknown>) => void kept.push(promise) }) };
    const server = createServer(new VercelAdapter(app).handle);
    try {
      const base = await listen(server);
      const res = await request(`${base}/items/1`);
      expect(res.statusCode).toBe(200);
      await res.body.json();
      expect(kept).toHaveLength(1);
      expect(log).toEqual(['handler']);
      release();
      await kept[0];
      expect(log).toEqual(['handler', 'deferred']);
    } finally {
      delete globals[key];
      await close(server);
    }
  });

  for (const [name, Adapter] of [
    ['CloudFunctionAdapter', CloudFunctionAdapter],
    ['VercelAdapter', VercelAdapter],
  ] as const) {
    it(`${name} without waitUntil: the whole answer arrives first, the task runs before the response ends`, async () => {
      const { app, log, release } = deferringApp();
      const handle = new Adapter(app).handle;
      const atFinish: string[] = [];
      const server = createServer((req, res) => {
        res.on('finish', () => atFinish.push(log.join(',')));
        void handle(req, res);
      });
      try {
        const base = await listen(server);
        const res = await request(`${base}/items/1`);
        expect(res.statusCode).toBe(200);
        // The body (with its Content-Length) is complete while the deferred task still runs.
        expect(await res.body.json()).toEqual({ ok: true });
        expect(log).toEqual(['handler']);
        expect(atFinish).toEqual([]);
        release();
        await vi.waitUntil(() => atFinish.length > 0);
        // The platform sees the response end only after the task: it cannot freeze the work.
        expect(atFinish).toEqual(['handler,deferred']);
      } finally {
        await close(server);
      }
    });
  }
});
