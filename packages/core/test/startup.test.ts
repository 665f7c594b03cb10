/**
 * Startup on every transport: once per process, concurrent first requests wait for the same run, a
 * failing run answers 503 (cause logged) and the next request tries again; `run()` still rejects.
 */
import { Writable } from 'node:stream';
import { API } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';

/** An app whose startup fails `failures` times, then opens a "pool"; each run waits for `gate`. */
function appWithStartup(failures: number) {
  const logLines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) logLines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const app = new API({ logger: pino({ level: 'error' }, sink) });
  const state = { runs: 0, pool: 0 };
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  app.onStartup(async () => {
    state.runs++;
    await gate;
    if (state.runs <= failures) throw new Error(`database away (run ${state.runs})`);
    state.pool++;
  });
  app.get('/pool', () => ({ pool: state.pool }));
  return { app, state, release, logLines };
}

type Send = (path: string) => Promise<{ status: number; body: string }>;

interface Transport {
  send: Send;
  /** Resolves once `n` requests have reached the server (at once in process). */
  arrived(n: number): Promise<void>;
  close(): Promise<void>;
}

const transports: [string, (app: API) => Promise<Transport>][] = [
  [
    'app.fetch',
    async (app) => ({
      send: async (path) => {
        const res = await app.fetch(new Request(`http://localhost${path}`));
        return { status: res.status, body: await res.text() };
      },
      arrived: async () => {},
      close: async () => {},
    }),
  ],
  ['app.inject', async (app) => ({ send: (path) => app.inject(path), arrived: async () => {}, close: async () => {} })],
  [
    'TestClient',
    async (app) => {
      const client = await TestClient.start(app);
      let count = 0;
      const waiters: [number, () => void][] = [];
      client.server.server!.on('request', () => {
        count++;
        for (const [n, resolve] of waiters) if (count >= n) resolve();
      });
      return {
        send: (path) => client.get(path),
        arrived: (n) => (count >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push([n, resolve]))),
        close: () => client.close(),
      };
    },
  ],
];

describe.each(transports)('startup through %s', (_name, open) => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it('runs once before the first request; concurrent first requests wait for the same run', async () => {
    const { app, state, release } = appWithStartup(0);
    const transport = await open(app);
    close = transport.close;
    const first = Promise.all([transport.send('/pool'), transport.send('/pool'), transport.send('/pool')]);
    await transport.arrived(3);
    release();
    const answers = await first;
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(answers.map((a) => JSON.parse(a.body))).toEqual([{ pool: 1 }, { pool: 1 }, { pool: 1 }]);
    expect((await transport.send('/pool')).status).toBe(200);
    expect(state).toEqual({ runs: 1, pool: 1 });
  });

  it('answers 503 with a problem body while startup fails, logs the cause, and retries on the next request', async () => {
    const { app, state, release, logLines } = appWithStartup(1);
    const transport = await open(app);
    close = transport.close;
    const waiting = Promise.all([transport.send('/pool'), transport.send('/pool')]);
    await transport.arrived(2);
    release();
    const refused = await waiting;
    expect(refused.map((a) => a.status)).toEqual([503, 503]);
    const problem = JSON.parse(refused[0]!.body) as Record<string, unknown>;
    expect(problem).toMatchObject({ type: 'about:blank', title: 'Service Unavailable', status: 503 });
    expect(refused[0]!.body).not.toContain('database away');
    expect(state.runs).toBe(1);
    // One log line for the failed run, whatever the number of requests that waited on it.
    const logged = logLines.filter((line) => String(line.msg).startsWith('startup failed'));
    expect(logged).toHaveLength(1);
    expect(JSON.stringify(logged[0])).toContain('database away (run 1)');

    const retried = await transport.send('/pool');
    expect(retried.status).toBe(200);
    expect(JSON.parse(retried.body)).toEqual({ pool: 1 });
    expect(state).toEqual({ runs: 2, pool: 1 });
  });
});

describe('startup through run()', () => {
  it('rejects when startup fails, and succeeds on a later run', async () => {
    const { app, state, release } = appWithStartup(1);
    release();
    await expect(app.run({ port: 0, handleSignals: false })).rejects.toThrow('database away (run 1)');
    const server = await app.run({ port: 0, handleSignals: false });
    try {
      const res = await fetch(`${server.url}/pool`);
      expect(await res.json()).toEqual({ pool: 1 });
      expect(state.runs).toBe(2);
    } finally {
      await server.close();
    }
  });
});
