/**
 * `fnapi worker --metrics-port`: a real worker child process on a real Redis serves its Prometheus
 * metrics (what the jobs it ran did, and the process's own), and stops serving them when it stops.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect, createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from '@fnapi/core';
import { Jobs } from '@fnapi/jobs';
import { freePort, REDIS_URL, serviceAvailable } from '@fnapi/test-support';
import { afterAll, describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '../src/cli.ts');
const fixture = join(here, 'fixtures/jobs-app.ts');
const available = await serviceAvailable('Redis', REDIS_URL);

function worker(prefix: string, ...flags: string[]): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', cli, 'worker', fixture, ...flags], {
    env: { ...process.env, NODE_OPTIONS: '--conditions=@fnapi/source', REDIS_URL, JOBS_PREFIX: prefix, HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Deletes the keys matching `pattern` with one EVAL over a plain socket (RESP needs no client library). */
function deleteKeys(pattern: string): Promise<void> {
  const script = "for _,k in ipairs(redis.call('KEYS', ARGV[1])) do redis.call('DEL', k) end";
  const parts = ['EVAL', script, '0', pattern];
  const command = `*${parts.length}\r\n${parts.map((p) => `$${Buffer.byteLength(p)}\r\n${p}\r\n`).join('')}`;
  const { hostname, port } = new URL(REDIS_URL);
  return new Promise((resolve) => {
    const socket = connect(Number(port || 6379), hostname, () => socket.write(command));
    socket.once('data', () => socket.end());
    socket.once('close', () => resolve());
    socket.once('error', () => resolve());
  });
}

async function scrape(url: string): Promise<string | undefined> {
  try {
    const res = await fetch(url);
    return res.ok ? await res.text() : undefined;
  } catch {
    return undefined;
  }
}

describe.skipIf(!available)('fnapi worker --metrics-port', () => {
  const prefixes: string[] = [];
  const children: ChildProcess[] = [];
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    for (const prefix of prefixes) await deleteKeys(`${prefix}:*`);
  });

  it('serves jobs_total and job_duration_seconds of the jobs the worker ran, and closes with it', async () => {
    const prefix = `fnapi-worker-metrics-${randomBytes(4).toString('hex')}`;
    prefixes.push(prefix);
    const port = await freePort();
    const run = worker(prefix, '--metrics-port', String(port));
    children.push(run.child);
    const url = `http://127.0.0.1:${port}/metrics`;
    await expect.poll(() => run.output(), { timeout: 30_000, interval: 100 }).toContain(`serving Prometheus metrics at ${url}`);

    const producer = new Jobs({ redis: REDIS_URL, prefix });
    try {
      const count = producer.define('count', { payload: z.object({ n: z.int() }) }, () => null);
      const broken = producer.define('broken', {}, () => null);
      for (let n = 0; n < 3; n++) await count.enqueue({ n });
      await broken.enqueue(undefined);
    } finally {
      await producer.close();
    }
    // Each kind has its own worker: wait for both to be done.
    const done = async () => {
      const text = await scrape(url);
      return (
        text !== undefined &&
        /jobs_total\{job="broken",state="failed"\} 1/.test(text) &&
        /jobs_total\{job="count",state="completed"\} 3/.test(text)
      );
    };
    await expect.poll(done, { timeout: 20_000, interval: 100 }).toBe(true);
    const body = (await scrape(url))!;
    expect(body).toMatch(/job_duration_seconds_count\{job="count"\} 3/);
    expect(body).toMatch(/# TYPE job_duration_seconds histogram/);
    // The worker's own process, not the producer's.
    expect(body).toMatch(/process_cpu_user_seconds_total/);
    const res = await fetch(url);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(404);
    expect((await fetch(url, { method: 'POST' })).status).toBe(405);

    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(await scrape(url)).toBeUndefined();
  }, 90_000);

  it('exits 1 naming the metrics port when it is taken', async () => {
    const prefix = `fnapi-worker-metrics-${randomBytes(4).toString('hex')}`;
    prefixes.push(prefix);
    const holder = createServer();
    const port = await new Promise<number>((resolve) =>
      holder.listen(0, '127.0.0.1', () => resolve((holder.address() as { port: number }).port)),
    );
    try {
      const run = worker(prefix, '--metrics-port', String(port));
      children.push(run.child);
      expect(await run.exited).toBe(1);
      expect(run.output()).toContain(
        `fnapi: the metrics port ${port} on 127.0.0.1 is not available (EADDRINUSE): choose another with --metrics-port`,
      );
    } finally {
      holder.close();
    }
  }, 60_000);
});
