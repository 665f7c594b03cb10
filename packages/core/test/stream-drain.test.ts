/**
 * A real server process with open event streams gets SIGTERM: each stream is ended at once (its
 * client sees a clean end), a generator that honours the signal is closed, one that does not cannot
 * hold the drain, and the process exits 0 long before `shutdownTimeout` (20 s here).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const fixture = fileURLToPath(new URL('./fixtures/stream-server.ts', import.meta.url));

describe('SIGTERM with open event streams', () => {
  it('ends every stream and exits 0 within shutdownTimeout', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@fnapi/source', fixture], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: Record<string, unknown>[] = [];
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    let buffer = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        for (let newline = buffer.indexOf('\n'); newline !== -1; newline = buffer.indexOf('\n')) {
          const line = JSON.parse(buffer.slice(0, newline)) as Record<string, unknown>;
          buffer = buffer.slice(newline + 1);
          lines.push(line);
          if (line.event === 'listening') resolve(line.url as string);
        }
      });
      child.once('exit', (code) => reject(new Error(`fixture exited early (${code}): ${stderr}`)));
    });
    const exited = once(child, 'exit');

    const dispatcher = new Agent();
    const streams = await Promise.all(
      ['/polite', '/polite', '/stubborn', '/stubborn'].map((path) => request(`${url}${path}`, { dispatcher })),
    );
    // Every stream is open and has sent its first event.
    const readers = streams.map((response) => {
      expect(response.statusCode).toBe(200);
      return response.body[Symbol.asyncIterator]();
    });
    for (const reader of readers) expect(Buffer.from((await reader.next()).value).toString()).toContain('data: {"n":0}');

    const started = performance.now();
    child.kill('SIGTERM');
    // Each client sees its stream end (no error: a reconnecting EventSource would go elsewhere).
    const ends = await Promise.all(
      readers.map(async (reader) => {
        let rest = '';
        for (let next = await reader.next(); !next.done; next = await reader.next()) rest += Buffer.from(next.value).toString();
        return rest;
      }),
    );
    for (const rest of ends) expect(rest).not.toContain('event: error');
    const [code, signal] = await exited;
    const took = performance.now() - started;
    expect(signal).toBeNull();
    expect(code).toBe(0);
    expect(took).toBeLessThan(10_000);
    expect(lines.filter((line) => line.event === 'closed')).toHaveLength(2);
    expect(lines.at(-1)).toEqual({ event: 'shutdown-callback' });
    await dispatcher.close();
  }, 60_000);
});
