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
        if (line.event === 'listening') resolve(line.url as string);
      }
    });
    child.once('exit', (code) => reject(new Error(`fixture exited early (${code}): ${stderr}`)));
  });
  return { child, lines, listening, stderr: () => stderr };
}

describe('graceful shutdown on SIGTERM', () => {
  it('finishes the in-flight request, refuses new ones, runs shutdown callbacks and exits 0', async () => {
    const { child, lines, listening } = startFixture();
    const url = await listening;
    const exited = once(child, 'exit');

    const slow = request(`${url}/slow`, { dispatcher: new Agent() });
    await new Promise((resolve) => setTimeout(resolve, 150)); // the slow request is now in flight
    child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 100));

    // A new connection is refused (listener closed) or answered 503 while draining.
    const late = await request(`${url}/fast`, { dispatcher: new Agent() }).then(
      (res) => res.statusCode,
      (error: NodeJS.ErrnoException) => error.code ?? (error.cause as NodeJS.ErrnoException | undefined)?.code ?? 'error',
    );
    expect([503, 'ECONNREFUSED']).toContain(late);

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
