/**
 * app.run({ workers }) with real processes: workers share one port, a killed worker is replaced
 * while requests keep succeeding, SIGTERM drains every in-flight request before the primary exits 0,
 * and a crash loop makes the primary give up with a non-zero exit.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';

const fixture = join(dirname(fileURLToPath(import.meta.url)), 'fixtures/cluster-app.ts');

interface Started {
  child: ChildProcess;
  url: string;
  lines: string[];
  exited: Promise<number | null>;
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function start(env: Record<string, string> = {}): Promise<Started> {
  const child = spawn(process.execPath, ['--conditions=@fnapi/source', '--import', 'tsx', fixture], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const lines: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (data: Buffer) => {
      buffer += data.toString();
      let newline: number;
      while ((newline = buffer.indexOf('\n')) !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        lines.push(line);
        try {
          const parsed = JSON.parse(line) as { url?: string };
          if (parsed.url) resolve({ child, url: parsed.url, lines, exited });
        } catch {
          // a log line
        }
      }
    });
    exited.then((code) => reject(new Error(`exited with ${code} before listening: ${stderr}`)));
  });
}

/** Resolves once `count` lines of the child's output match (each line is read as it arrives). */
function linesSeen(child: ChildProcess, lines: string[], match: (line: string) => boolean, count: number): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (lines.filter(match).length < count) return;
      child.stdout!.off('data', later);
      resolve();
    };
    // After the start() listener has split the chunk into lines.
    const later = () => setImmediate(check);
    child.stdout!.on('data', later);
    check();
  });
}

/** One request on a fresh connection, so the primary hands it to the next worker. */
async function pidOf(url: string): Promise<number> {
  const agent = new Agent({ connections: 1, pipelining: 0, connectTimeout: 2000, headersTimeout: 2000, bodyTimeout: 2000 });
  try {
    const res = await request(`${url}/pid`, { dispatcher: agent, headers: { connection: 'close' } });
    return ((await res.body.json()) as { pid: number }).pid;
  } finally {
    await agent.close();
  }
}

describe('app.run({ workers })', () => {
  it('serves from two worker processes on one port, each running the startup callbacks', async () => {
    const { url, lines } = await start();
    const pids = new Set<number>();
    for (let i = 0; i < 20 && pids.size < 2; i++) pids.add(await pidOf(url));
    expect(pids.size).toBe(2);
    const startups = lines.map((l) => JSON.parse(l)).filter((l) => l.startup);
    expect(startups.map((s) => s.startup).sort()).toEqual([...pids].sort());
    expect(startups.every((s) => s.worker)).toBe(true);
  });

  it('replaces a killed worker while requests keep succeeding', async () => {
    const { url } = await start();
    const before = new Set<number>();
    for (let i = 0; i < 20 && before.size < 2; i++) before.add(await pidOf(url));
    const [victim] = [...before];
    process.kill(victim!, 'SIGKILL');
    const failures: string[] = [];
    const seen = new Set<number>();
    const deadline = Date.now() + 8000;
    while (Date.now() < deadline) {
      try {
        seen.add(await pidOf(url));
      } catch (error) {
        failures.push(String(error));
      }
      if ([...seen].filter((pid) => !before.has(pid)).length > 0 && seen.size >= 2) break;
    }
    // At most the one connection the primary handed to the victim as it died fails (no answer);
    // every other request is served by a live worker.
    expect(failures.length).toBeLessThanOrEqual(1);
    expect(seen.size).toBeGreaterThanOrEqual(2);
    const replacement = [...seen].filter((pid) => !before.has(pid));
    expect(replacement).toHaveLength(1);
    expect(seen.has(victim!)).toBe(false);
  });

  it('drains 20 slow in-flight requests on SIGTERM, then the primary exits 0', async () => {
    const { child, url, exited, lines } = await start({ SLOW_MS: '1500' });
    const agent = new Agent({ connections: 20 });
    const inflight = Array.from({ length: 20 }, () =>
      request(`${url}/slow`, { dispatcher: agent }).then(async (res) => ({ status: res.statusCode, body: await res.body.json() })),
    );
    await linesSeen(child, lines, (line) => line.startsWith('{"slow"'), 20);
    child.kill('SIGTERM');
    const answers = await Promise.all(inflight);
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(await exited).toBe(0);
    await agent.close();
  });

  it('gives up loudly when workers crash in a loop', async () => {
    const child = spawn(process.execPath, ['--conditions=@fnapi/source', '--import', 'tsx', fixture], {
      env: { ...process.env, CRASH_ON_START: '1', CLUSTER_LOG: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(code).not.toBe(0);
    expect(output).toContain('giving up');
  });
});

describe('a single process', () => {
  it('exits 0 when a second SIGINT arrives while it drains (Ctrl-C through pnpm sends two)', async () => {
    const { child, exited } = await start({ WORKERS: '1' });
    child.kill('SIGINT');
    child.kill('SIGINT');
    setTimeout(() => child.kill('SIGINT'), 5);
    expect(await exited).toBe(0);
  });
});
