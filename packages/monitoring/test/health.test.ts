/**
 * /livez and /readyz over real HTTP: checks that pass, fail or hang (readiness fails within its
 * timeout while the server goes on serving), 503 while starting and stopping, kept out of the
 * document, metrics and access logs; `shutdownDelay` with a real process and SIGTERM, alone and
 * under `workers`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { API, Request, type Response } from '@fnapi/core';
import { runtimeOf } from '@fnapi/core/transport';
import { TestClient } from '@fnapi/core/testing';
import { LoggingMiddleware } from '@fnapi/middleware';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConnectionPool } from '@fnapi/performance';
import { DATABASE_URL, freePort, serviceAvailable } from '@fnapi/test-support';
import { healthEndpoints, MetricsMiddleware, metricsEndpoint } from '../src/index.js';

const postgres = await serviceAvailable('PostgreSQL', DATABASE_URL);

const fixture = join(dirname(fileURLToPath(import.meta.url)), 'fixtures/shutdown-delay.ts');

describe('health endpoints', () => {
  const clients: TestClient[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
  });
  const start = async (app: API) => {
    const client = await TestClient.start(app);
    clients.push(client);
    return client;
  };

  it('answers 200 on both when every check passes, with each check and its duration', async () => {
    const app = new API({ logger: false });
    healthEndpoints(app, { checks: { db: async () => 'fine', cache: () => undefined } });
    const client = await start(app);
    const live = await client.request('GET', '/livez');
    expect(live.status).toBe(200);
    expect(live.json()).toEqual({ status: 'ok' });
    const ready = await client.request('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.headers['cache-control']).toBe('no-store');
    const body = ready.json() as { status: string; checks: Record<string, { ok: boolean; duration: number }> };
    expect(body.status).toBe('ok');
    expect(Object.keys(body.checks).sort()).toEqual(['cache', 'db']);
    expect(body.checks.db!.ok).toBe(true);
    expect(typeof body.checks.db!.duration).toBe('number');
  });

  it('answers 503 naming the failed check and its error; false counts as a failure', async () => {
    const app = new API({ logger: false });
    healthEndpoints(app, {
      checks: {
        db: () => Promise.reject(new Error('connection refused')),
        flag: () => false,
        fine: () => true,
      },
    });
    const client = await start(app);
    const ready = await client.request('GET', '/readyz');
    expect(ready.status).toBe(503);
    const body = ready.json() as { status: string; checks: Record<string, { ok: boolean; error?: string }> };
    expect(body.status).toBe('failing');
    expect(body.checks.db).toMatchObject({ ok: false, error: 'connection refused' });
    expect(body.checks.flag).toMatchObject({ ok: false, error: 'the check returned false' });
    expect(body.checks.fine).toMatchObject({ ok: true });
    expect(body.checks.fine!.error).toBeUndefined();
    expect((await client.request('GET', '/livez')).status).toBe(200);
  });

  it('fails a hanging check within its timeout while the server goes on serving', async () => {
    const app = new API({ logger: false });
    let hung = 0;
    healthEndpoints(app, {
      checks: { stuck: () => new Promise(() => hung++), fine: () => true },
      timeout: 0.3,
    });
    app.get('/hello', () => ({ hello: 'world' }));
    const client = await start(app);
    const started = performance.now();
    const probe = client.request('GET', '/readyz');
    // Served while the check hangs.
    const hello = await client.request('GET', '/hello');
    expect(hello.status).toBe(200);
    const ready = await probe;
    const took = performance.now() - started;
    expect(ready.status).toBe(503);
    const body = ready.json() as { checks: Record<string, { ok: boolean; error?: string; duration: number }> };
    expect(body.checks.stuck).toMatchObject({ ok: false, error: 'timed out after 0.3 s' });
    expect(body.checks.stuck!.duration).toBeGreaterThanOrEqual(250);
    expect(body.checks.fine!.ok).toBe(true);
    expect(hung).toBe(1);
    // The timeout, not the test's: generous bound for a loaded machine, far below a hang.
    expect(took).toBeLessThan(10_000);
    expect((await client.request('GET', '/hello')).status).toBe(200);
  });

  it('is not ready while starting nor once stopping', async () => {
    const app = new API({ logger: false });
    healthEndpoints(app, { checks: { fine: () => true } });
    let opened!: () => void;
    app.onStartup(() => new Promise<void>((resolve) => (opened = resolve)));
    expect(app.serving.phase).toBe('starting');
    // Straight through the runtime, before startup has run: the probe starts it and is answered while it runs.
    const early = await new Promise<Response>((resolve) =>
      runtimeOf(app).serve(new Request({ method: 'GET', path: '/readyz' }), resolve, undefined),
    );
    expect(early.statusCode).toBe(503);
    expect((early.content as { status: string }).status).toBe('starting');
    opened();
    const client = await start(app);
    // The first request runs startup, then is answered.
    expect((await client.request('GET', '/readyz')).status).toBe(200);
    expect(app.serving.phase).toBe('ready');
    app.serving.to('stopping');
    const late = await client.request('GET', '/readyz');
    expect(late.status).toBe(503);
    expect(late.json()).toEqual({ status: 'stopping', checks: {} });
    expect((await client.request('GET', '/livez')).status).toBe(200);
  });

  it('answers both probes at once while a slow startup runs, through app.fetch and app.run', async () => {
    let finish!: () => void;
    const slow = new Promise<void>((resolve) => (finish = resolve));
    const app = new API({ logger: false });
    app.onStartup(() => slow);
    app.get('/hello', () => 'hi');
    healthEndpoints(app);
    const ready = await app.fetch(new globalThis.Request('http://localhost/readyz'));
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'starting', checks: {} });
    expect((await app.fetch(new globalThis.Request('http://localhost/livez'))).status).toBe(200);
    // An ordinary request waits for the same startup.
    const hello = app.fetch(new globalThis.Request('http://localhost/hello'));
    finish();
    expect((await hello).status).toBe(200);
    expect((await app.fetch(new globalThis.Request('http://localhost/readyz'))).status).toBe(200);

    let release!: () => void;
    const slower = new Promise<void>((resolve) => (release = resolve));
    const served = new API({ logger: false });
    served.onStartup(() => slower);
    healthEndpoints(served);
    const port = await freePort();
    const running = served.run({ port, handleSignals: false });
    // Listening while startup runs: the probe is answered before run() resolves.
    const answered = await vi.waitFor(
      async () => {
        const res = await fetch(`http://127.0.0.1:${port}/readyz`);
        return { status: res.status, body: (await res.json()) as unknown };
      },
      { timeout: 2000, interval: 10 },
    );
    expect(answered).toEqual({ status: 503, body: { status: 'starting', checks: {} } });
    release();
    const server = await running;
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    await server.close();
  });

  it.skipIf(!postgres)('gives back the pool connection of a check that times out, at its timeout', async () => {
    const pool = new ConnectionPool(DATABASE_URL, { minSize: 1, maxSize: 3 });
    try {
      const app = new API({ logger: false });
      healthEndpoints(app, { checks: { db: () => pool.query('select pg_sleep(5)') }, timeout: 0.2 });
      const client = await start(app);
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        const res = await client.request('GET', '/readyz');
        expect(res.status).toBe(503);
        expect(performance.now() - started).toBeLessThan(1000);
      }
      // Nothing stays borrowed past the timeout, and the pool did not grow a connection per probe.
      await vi.waitUntil(() => pool.stats().inUse === 0, { timeout: 1000, interval: 10 });
      expect(pool.stats().size).toBeLessThanOrEqual(1);
      expect((await pool.query<{ ok: number }>('select 1 as ok')).rows).toEqual([{ ok: 1 }]);
    } finally {
      await pool.close();
    }
  });

  it('stays out of the document, the metrics and the access log unless asked', async () => {
    const registry = new Registry();
    const lines: Record<string, unknown>[] = [];
    const logger = pino(
      new Writable({
        write(chunk, _enc, done) {
          lines.push(JSON.parse(String(chunk)));
          done();
        },
      }),
    );
    const app = new API({ logger: false });
    app.addMiddleware(new LoggingMiddleware({ logger }));
    app.addMiddleware(new MetricsMiddleware({ registry, defaultMetrics: false }));
    healthEndpoints(app);
    metricsEndpoint(app, { registry });
    app.get('/hello', () => 'hi');
    const client = await start(app);
    await client.request('GET', '/livez');
    await client.request('GET', '/readyz');
    await client.request('GET', '/hello');
    const metrics = (await client.request('GET', '/metrics')).body;
    expect(metrics).toContain('route="/hello"');
    expect(metrics).not.toContain('livez');
    expect(metrics).not.toContain('readyz');
    const paths = lines.filter((line) => line.msg === 'request completed').map((line) => line.path);
    expect(paths).toContain('/hello');
    expect(paths).not.toContain('/livez');
    expect(paths).not.toContain('/readyz');
    const document = app.openapi() as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths)).not.toContain('/livez');

    const asked = new API({ logger: false });
    asked.addMiddleware(new MetricsMiddleware({ registry: new Registry(), defaultMetrics: false }));
    healthEndpoints(asked, { live: '/health/live', ready: '/health/ready', includeInSchema: true, observe: true });
    expect(Object.keys((asked.openapi() as { paths: Record<string, unknown> }).paths)).toEqual(['/health/live', '/health/ready']);
  });
});

interface Running {
  child: ChildProcess;
  url: string;
  lines: Record<string, unknown>[];
  /** Resolves when a log line matching `test` has been written. */
  logged(test: (line: Record<string, unknown>) => boolean): Promise<void>;
  exited: Promise<number | null>;
}

function launch(env: Record<string, string>): Promise<Running> {
  const child = spawn(process.execPath, ['--conditions=@fnapi/source', '--import', 'tsx', fixture], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  const lines: Record<string, unknown>[] = [];
  const waiters: { test: (line: Record<string, unknown>) => boolean; resolve: () => void }[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (data: Buffer) => {
      buffer += data;
      let newline = buffer.indexOf('\n');
      while (newline !== -1) {
        const text = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        newline = buffer.indexOf('\n');
        let line: Record<string, unknown>;
        try {
          line = JSON.parse(text);
        } catch {
          continue;
        }
        lines.push(line);
        for (const waiter of [...waiters]) {
          if (waiter.test(line)) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve();
          }
        }
        if (typeof line.url === 'string' && Object.keys(line).length === 1) {
          resolve({
            child,
            url: line.url,
            lines,
            exited,
            logged: (test) => (lines.some(test) ? Promise.resolve() : new Promise<void>((done) => waiters.push({ test, resolve: done }))),
          });
        }
      }
    });
    void exited.then((code) => reject(new Error(`exited ${code} before listening`)));
  });
}

async function get(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  // A fresh connection each time: under workers the primary spreads connections over them.
  const agent = new Agent({ connections: 1 });
  try {
    const res = await request(url, { dispatcher: agent, headers: { connection: 'close' } });
    return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
  } finally {
    await agent.close();
  }
}

describe('shutdownDelay', () => {
  let running: Running | undefined;
  afterEach(() => {
    if (running && running.child.exitCode === null) running.child.kill('SIGKILL');
  });

  for (const workers of [1, 2]) {
    it(`keeps serving while not ready for the delay after SIGTERM, then drains and exits 0 (workers: ${workers})`, async () => {
      running = await launch({ SHUTDOWN_DELAY: '3', WORKERS: String(workers) });
      const { url, child } = running;
      expect((await get(`${url}/readyz`)).status).toBe(200);
      const pids = new Set<number>();
      for (let i = 0; i < 10 * workers; i++) pids.add((await get(`${url}/pid`)).body.pid as number);
      expect(pids.size).toBe(workers);

      child.kill('SIGTERM');
      // Every worker has taken the signal (each logs it) before we probe.
      await Promise.all(
        [...pids].map((pid) =>
          running!.logged((line) => line.pid === pid && typeof line.msg === 'string' && line.msg.startsWith('shutting down')),
        ),
      );
      const signalled = performance.now();
      const ready = await get(`${url}/readyz`);
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual({ status: 'stopping', checks: {} });
      // Still serving normally, a slow request included.
      const slow = get(`${url}/slow`);
      expect((await get(`${url}/pid`)).status).toBe(200);
      expect((await slow).status).toBe(200);
      // Nothing was drained during the delay.
      expect(running.lines.some((line) => line.msg === 'fnapi stopped')).toBe(false);
      expect(await running.exited).toBe(0);
      // The delay was observed: the process did not exit before it had passed.
      expect(performance.now() - signalled).toBeGreaterThan(1000);
    }, 60_000);
  }
});
