// Load and soak test of the example app (examples/basic), once with `workers: 1` and once with
// `workers: 2`: 1,000 concurrent keep-alive connections for 30 s, then a 5-minute soak at moderate
// load with the RSS of the whole process tree sampled every 5 s. Prints errors, p50/p99, req/s and
// RSS at start (after warm-up), peak and end. Kept out of `pnpm test`.
//
//   pnpm loadtest [-- --quick] [--workers 1,2] [--burst 30] [--soak 300] [--rate 2000]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

const here = dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({
  args: process.argv.slice(2).filter((a, i) => !(i === 0 && a === '--')),
  options: {
    quick: { type: 'boolean', default: false },
    workers: { type: 'string', default: '1,2' },
    burst: { type: 'string' },
    soak: { type: 'string' },
    rate: { type: 'string', default: '2000' },
    connections: { type: 'string', default: '1000' },
  },
});
const burstSeconds = Number(args.burst ?? (args.quick ? 5 : 30));
const soakSeconds = Number(args.soak ?? (args.quick ? 20 : 300));
const PATH = '/hello/Ada?greeting=Hi';

/** RSS in bytes of a process and all its descendants (the cluster primary and its workers). */
function treeRss(pid: number): number {
  let total = 0;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    total += Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
    for (const task of [pid]) {
      const children = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      for (const child of children ? children.split(/\s+/) : []) total += treeRss(Number(child));
    }
  } catch {
    // the process is gone
  }
  return total;
}

async function startExample(workers: number): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--conditions=@fnapi/source', '--import', 'tsx', join(here, '../examples/basic/src/main.ts')], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', WORKERS: String(workers), FNAPI_LOG_LEVEL: 'warn', NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d;
      const match = /Docs: (http:\/\/[^\s]+)\/docs/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.on('exit', (code) => reject(new Error(`example exited with ${code}`)));
  });
  return {
    url,
    pid: child.pid!,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

interface Outcome {
  workers: number;
  burst: autocannon.Result;
  soak: autocannon.Result;
  /** Before the burst; after warm-up (the first 30 s of the soak); highest; at the end of the soak. */
  rss: { start: number; warm: number; peak: number; end: number };
}

async function measure(workers: number): Promise<Outcome> {
  const server = await startExample(workers);
  const url = `${server.url}${PATH}`;
  await autocannon({ url, connections: 50, duration: args.quick ? 2 : 5 });
  const start = treeRss(server.pid);
  let peak = start;
  const sampler = setInterval(() => {
    peak = Math.max(peak, treeRss(server.pid));
  }, 5000);
  process.stdout.write(`workers ${workers}: ${args.connections} connections for ${burstSeconds} s…\n`);
  const burst = await autocannon({ url, connections: Number(args.connections), duration: burstSeconds, timeout: 10 });
  peak = Math.max(peak, treeRss(server.pid));
  process.stdout.write(`workers ${workers}: soak at ${args.rate} req/s for ${soakSeconds} s…\n`);
  const samples: { at: number; rss: number }[] = [];
  const soakStarted = Date.now();
  const warmUpMs = Math.min(30_000, (soakSeconds * 1000) / 4);
  const soakSampler = setInterval(() => samples.push({ at: Date.now() - soakStarted, rss: treeRss(server.pid) }), 2000);
  const soak = await autocannon({ url, connections: 50, duration: soakSeconds, overallRate: Number(args.rate) });
  clearInterval(soakSampler);
  clearInterval(sampler);
  const end = treeRss(server.pid);
  peak = Math.max(peak, end, ...samples.map((s) => s.rss));
  const warm = samples.find((s) => s.at >= warmUpMs)?.rss ?? end;
  await server.stop();
  return { workers, burst, soak, rss: { start, warm, peak, end } };
}

const outcomes: Outcome[] = [];
for (const workers of args.workers.split(',').map(Number)) outcomes.push(await measure(workers));

const errors = (r: autocannon.Result) => r.errors + r.timeouts + r.non2xx;
const rows = outcomes.map((o) =>
  [
    o.workers,
    `${errors(o.burst)}`,
    `${o.burst.latency.p50} / ${o.burst.latency.p99} ms`,
    Math.round(o.burst.requests.average).toLocaleString('en-US'),
    `${errors(o.soak)}`,
    `${o.soak.latency.p50} / ${o.soak.latency.p99} ms`,
    `${mb(o.rss.start)} / ${mb(o.rss.warm)} / ${mb(o.rss.peak)} / ${mb(o.rss.end)}`,
    `${(((o.rss.end - o.rss.warm) / o.rss.warm) * 100).toFixed(1)}%`,
  ].join(' | '),
);
process.stdout.write(
  [
    '',
    `| workers | burst errors (${args.connections} conns, ${burstSeconds} s) | burst p50 / p99 | burst req/s | soak errors (${soakSeconds} s at ${args.rate} req/s) | soak p50 / p99 | RSS start / after warm-up / peak / end | RSS end vs after warm-up |`,
    '|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r} |`),
    '',
  ].join('\n'),
);
if (outcomes.length === 2) {
  const ratio = outcomes[1]!.burst.requests.average / outcomes[0]!.burst.requests.average;
  process.stdout.write(`req/s with ${outcomes[1]!.workers} workers over ${outcomes[0]!.workers}: ${ratio.toFixed(2)}×\n`);
}
process.exit(outcomes.some((o) => errors(o.burst) + errors(o.soak) > 0) ? 1 : 0);
