import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { API, z } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

function capture() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe('request.defer', () => {
  it('runs after the answer has been delivered, in order, and an error is logged with the request id', async () => {
    const { logger, lines } = capture();
    const app = new API({ logger });
    const order: string[] = [];
    const release = deferred();
    const finished = deferred();
    app.get('/signup', (_input, request) => {
      request.defer(async () => {
        await release.promise;
        order.push('first');
      });
      request.defer(() => {
        throw new Error('mail server down');
      });
      request.defer(() => {
        order.push('third');
        finished.resolve();
      });
      order.push('handler');
      return { ok: true };
    });
    const client = await TestClient.start(app);
    try {
      // The answer arrives while the first task still waits: deferred work never holds it back.
      const res = await client.request('GET', '/signup', { headers: { 'x-request-id': 'req-defer-1' } });
      expect(res.status).toBe(200);
      expect(res.json()).toEqual({ ok: true });
      expect(order).toEqual(['handler']);
      release.resolve();
      await finished.promise;
      expect(order).toEqual(['handler', 'first', 'third']);
      const failure = lines.find((line) => line.msg === 'deferred task failed');
      expect(failure?.reqId).toBe('req-defer-1');
      expect((failure?.err as { message?: string } | undefined)?.message).toBe('mail server down');
    } finally {
      await client.close();
    }
  });

  it('does not change the answer when a task fails, and the drain waits for deferred work', async () => {
    const app = new API({ logger: false });
    let done = false;
    app.post('/x', (_input, request) => {
      request.defer(async () => {
        // Work that outlasts the close unless the close waits for it: a time, not a gate, since
        // nothing may release it from outside while the drain is under way.
        await new Promise((resolve) => setTimeout(resolve, 200));
        done = true;
      });
      return { status: 'accepted' };
    });
    const server = await app.run({ port: 0, handleSignals: false });
    const res = await fetch(`${server.url}/x`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(done).toBe(false);
    await server.close();
    expect(done).toBe(true);
  });

  it('runs through app.fetch and app.inject after the answer; app.shutdown() waits for it', async () => {
    const app = new API({ logger: false });
    const ran: string[] = [];
    const release = deferred();
    app.get('/f', (_input, request) => {
      request.defer(async () => {
        await release.promise;
        ran.push(request.path);
      });
      return 'ok';
    });
    let ranAtShutdownCallback: string[] | undefined;
    app.onShutdown(() => {
      ranAtShutdownCallback = [...ran];
    });
    const web = await app.fetch(new globalThis.Request('http://local/f'));
    expect(await web.text()).toBe('"ok"');
    const injected = await app.inject('/f');
    expect(injected.status).toBe(200);
    expect(ran).toEqual([]);
    const shutdown = app.shutdown();
    // Let go only after shutdown began: a shutdown that did not wait would have run its callbacks by then.
    setImmediate(release.resolve);
    await shutdown;
    expect(ran).toEqual(['/f', '/f']);
    expect(ranAtShutdownCallback).toEqual(['/f', '/f']);
  });

  it('runs after an event stream has ended', async () => {
    const app = new API({ logger: false });
    const seen: string[] = [];
    const ran = deferred();
    const firstRead = deferred();
    app.get('/s', { lines: z.string() }, async function* (_input, request) {
      request.defer(() => {
        seen.push('deferred');
        ran.resolve();
      });
      yield 'a';
      // Held until the client has the first line: a task run before the end would show here.
      await firstRead.promise;
      yield 'b';
      seen.push('streamed');
    });
    const client = await TestClient.start(app);
    try {
      const stream = await client.stream('/s');
      expect(await stream.chunk()).toBe('"a"\n');
      expect(seen).toEqual([]);
      firstRead.resolve();
      while ((await stream.chunk()) !== undefined) {}
      await ran.promise;
      expect(seen).toEqual(['streamed', 'deferred']);
    } finally {
      await client.close();
    }
  });

  it('on SIGTERM the server finishes deferred work before the shutdown callbacks and exit', async () => {
    const root = fileURLToPath(new URL('../../..', import.meta.url));
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--conditions=@fnapi/source', fileURLToPath(new URL('./fixtures/defer-server.ts', import.meta.url))],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const events: string[] = [];
    let buffer = '';
    const deferredStarted = deferred();
    const listening = new Promise<string>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        let newline: number;
        while ((newline = buffer.indexOf('\n')) !== -1) {
          const line = JSON.parse(buffer.slice(0, newline)) as Record<string, unknown>;
          buffer = buffer.slice(newline + 1);
          if (typeof line.event === 'string') events.push(line.event);
          if (line.event === 'listening') resolve(line.url as string);
          if (line.event === 'deferred-started') deferredStarted.resolve();
        }
      });
    });
    const exited = once(child, 'exit');
    const url = await listening;
    const res = await fetch(`${url}/work`);
    expect(await res.json()).toEqual({ queued: true });
    await deferredStarted.promise;
    child.kill('SIGTERM');
    const [code] = await exited;
    expect(code).toBe(0);
    expect(events.filter((e) => e !== 'listening')).toEqual(['deferred-started', 'deferred-done', 'shutdown-callback']);
  }, 20_000);
});
