import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { API } from '@fnapi/core';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const fixture = fileURLToPath(new URL('./fixtures/slow-server.ts', import.meta.url));

function startFixture() {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@fnapi/source', fixture], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  const waiters: { test: (line: Record<string, unknown>) => boolean; resolve: () => void }[] = [];
  /** Resolves once the child has written a line that passes `test` (awaits the event, never a clock). */
  const seen = (test: (line: Record<string, unknown>) => boolean) =>
    lines.some(test) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ test, resolve }));
  let buffer = '';
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const listening = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let newline: number;
      while ((newline = buffer.indexOf('\n')) !== -1) {
        const line = JSON.parse(buffer.slice(0, newline)) as Record<string, unknown>;
        buffer = buffer.slice(newline + 1);
        lines.push(line);
        for (const waiter of waiters) if (waiter.test(line)) waiter.resolve();
        if (line.event === 'listening') resolve(line.url as string);
      }
    });
    child.once('exit', (code) => reject(new Error(`fixture exited early (${code}): ${stderr}`)));
  });
  return { child, lines, listening, seen, stderr: () => stderr };
}

describe('graceful shutdown on SIGTERM', () => {
  it('finishes the in-flight request, refuses new ones, runs shutdown callbacks and exits 0', async () => {
    const { child, lines, listening, seen } = startFixture();
    const url = await listening;
    const exited = once(child, 'exit');

    const slow = request(`${url}/slow`, { dispatcher: new Agent() });
    await seen((line) => line.event === 'slow-started'); // the slow request is now in flight
    child.kill('SIGTERM');
    await seen((line) => typeof line.msg === 'string' && line.msg.startsWith('shutting down'));

    // A new request is not served: answered 503 while draining, or its connection refused (listener
    // closed) or reset (accepted just as the drain closed idle connections).
    const late = await request(`${url}/fast`, { dispatcher: new Agent() }).then(
      (res) => res.statusCode,
      (error: NodeJS.ErrnoException) => error.code ?? (error.cause as NodeJS.ErrnoException | undefined)?.code ?? 'error',
    );
    expect([503, 'ECONNREFUSED', 'ECONNRESET']).toContain(late);

    child.kill('SIGUSR2'); // the in-flight request may finish now
    const response = await slow;
    expect(response.statusCode).toBe(200);
    expect(await response.body.json()).toEqual({ done: true });

    const [code, signal] = await exited;
    expect(signal).toBeNull();
    expect(code).toBe(0);
    expect(lines.map((l) => l.event)).toContain('shutdown-callback');
    // The default logger writes synchronously, so the last lines before exit keep their order.
    const messages = lines.map((l) => l.msg).filter((m) => typeof m === 'string');
    const stopping = messages.findIndex((m) => m.startsWith('shutting down'));
    expect(stopping).toBeGreaterThanOrEqual(0);
    expect(messages.indexOf('fnapi stopped')).toBeGreaterThan(stopping);
  }, 20_000);
});

describe('run()', () => {
  it('resolves with the chosen port and url, and close() runs startup/shutdown callbacks once', async () => {
    const calls: string[] = [];
    const app = new API({ logger: false });
    app.get('/ping', () => 'pong');
    app.onStartup(() => void calls.push('startup'));
    app.onShutdown(() => void calls.push('shutdown'));
    const server = await app.run({ port: 0, handleSignals: false });
    expect(server.port).toBeGreaterThan(0);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    const res = await request(`${server.url}/ping`);
    expect(await res.body.json()).toBe('pong');
    await server.close();
    await server.close();
    expect(calls).toEqual(['startup', 'shutdown']);
  });

  it('close() removes its signal listeners', async () => {
    const before = process.listenerCount('SIGTERM');
    const app = new API({ logger: false });
    const server = await app.run({ port: 0 });
    expect(process.listenerCount('SIGTERM')).toBe(before + 1);
    await server.close();
    expect(process.listenerCount('SIGTERM')).toBe(before);
  });
});
