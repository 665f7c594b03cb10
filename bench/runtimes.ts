/**
 * Runtimes benchmark (`pnpm --filter @fnapi/bench runtimes`, after `pnpm build`): prints
 *  1. Worker bundle sizes (minified, gzip) of examples/workers and of the hello app in fnapi and Hono,
 *     all built with the same esbuild settings as wrangler's (ESM, platform neutral, conditions
 *     workerd/worker/browser), no nodejs_compat;
 *  2. workerd's CPU to start each hello Worker and answer its first request (the workerd process's CPU
 *     time from /proc, median of several starts), beside an empty Worker's;
 *  3. requests per second of the hello app on Node and on Bun, fnapi and Hono each, in one run
 *     (autocannon from this process, 10 connections).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { loadMiniflare, runtimeBinary } from '@fnapi/test-support';
import autocannon from 'autocannon';
import { build } from 'esbuild';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '..');
const quick = process.argv.includes('--quick');

async function workerBundle(entry: string): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['browser', 'module', 'main'],
    minify: true,
    logLevel: 'error',
  });
  return result.outputFiles[0]!.text;
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

/** CPU nanoseconds used so far by every thread of a process. */
function cpuNs(pid: number): number {
  let total = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // a thread that ended meanwhile
    }
  }
  return total;
}

/** The workerd processes below this one. */
function workerdPids(): Set<number> {
  const pids = new Set<number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.includes('(workerd)')) pids.add(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function workerdStartup(script: string): Promise<{ startMs: number; firstMs: number; wallMs: number }> {
  const { Miniflare } = await loadMiniflare();
  const before = workerdPids();
  const started = performance.now();
  const worker = new Miniflare({ modules: true, script, compatibilityDate: '2025-09-01' });
  await worker.ready;
  const pid = [...workerdPids()].find((candidate) => !before.has(candidate));
  if (pid === undefined) throw new Error('no workerd process found');
  const atReady = cpuNs(pid);
  const response = await worker.dispatchFetch('http://localhost/');
  await response.text();
  const wallMs = performance.now() - started;
  const atFirst = cpuNs(pid);
  await worker.dispose();
  return { startMs: atReady / 1e6, firstMs: (atFirst - atReady) / 1e6, wallMs };
}

function startServer(command: string, args: string[]): Promise<{ port: number; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: join(here, 'runtimes'), stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening (\d+)/.exec(output);
      if (match) resolve({ port: Number(match[1]), child });
    });
    child.once('exit', (code) => reject(new Error(`${command} ${args.join(' ')} exited with ${code}: ${output}`)));
  });
}

async function rps(port: number): Promise<number> {
  const run = (duration: number) => autocannon({ url: `http://127.0.0.1:${port}/`, connections: 10, duration });
  await run(1);
  const result = await run(quick ? 2 : 5);
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`errors: ${result.errors}, non-2xx: ${result.non2xx}`);
  return Math.round(result.requests.average);
}

// 1. Bundles.
const bundles: Record<string, string> = {
  'examples/workers': await workerBundle(join(root, 'examples/workers/src/index.ts')),
  'fnapi hello': await workerBundle(join(here, 'runtimes/fnapi-hello.ts')),
  'Hono hello': await workerBundle(join(here, 'runtimes/hono-hello.ts')),
  'empty Worker': await workerBundle(join(here, 'runtimes/empty-worker.ts')),
};
console.log('Worker bundles (esbuild as wrangler, minified):');
for (const [name, text] of Object.entries(bundles)) {
  const bytes = Buffer.byteLength(text);
  console.log(`  ${name.padEnd(18)} ${kib(bytes).padStart(10)} minified  ${kib(gzipSync(text).byteLength).padStart(9)} gzip`);
}

// 2. workerd start-up.
const runs = quick ? 3 : 7;
console.log(`workerd start-up, CPU of the workerd process (median of ${runs} starts):`);
for (const name of ['empty Worker', 'Hono hello', 'fnapi hello', 'examples/workers']) {
  const samples: { startMs: number; firstMs: number; wallMs: number }[] = [];
  for (let i = 0; i < runs; i++) samples.push(await workerdStartup(bundles[name]!));
  console.log(
    `  ${name.padEnd(18)} start ${median(samples.map((s) => s.startMs)).toFixed(1)} ms CPU, first request ${median(samples.map((s) => s.firstMs)).toFixed(1)} ms CPU, spawn to first answer ${median(samples.map((s) => s.wallMs)).toFixed(0)} ms wall`,
  );
}

// 3. Requests per second.
console.log('hello, requests per second (autocannon, 10 connections):');
const bun = runtimeBinary('bun');
const runtimes: [string, string, string[]][] = [['node', process.execPath, ['--import', 'tsx', 'serve.ts']]];
if (bun !== undefined) runtimes.push(['bun', bun, ['serve.ts']]);
for (const [runtime, command, args] of runtimes) {
  for (const framework of ['fnapi', 'hono']) {
    const { port, child } = await startServer(command, [...args, framework]);
    try {
      console.log(`  ${runtime.padEnd(5)} ${framework.padEnd(6)} ${String(await rps(port)).padStart(7)} req/s`);
    } finally {
      child.kill('SIGTERM');
    }
  }
}
process.exit(0);
