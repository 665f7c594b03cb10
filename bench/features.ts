// What each optional feature costs fnapi (default options) per request: the same endpoint with the
// feature off and on, each measured run on a freshly started server (servers/fnapi-features.ts,
// pinned to CPU 1) under autocannon (load.ts, CPU 0), interleaved over the rounds. Reports the
// server's CPU time per request (from /proc) and req/s, and the median of the per-round ratios.
//
//   pnpm --filter @fnapi/bench features [-- --rounds 4 --duration 3 --no-write]
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  configure,
  cpuModel,
  fmtInt,
  fmtPct,
  fmtRatio,
  here,
  runMain,
  median,
  runLoad,
  type Sample,
  type ServerSpec,
  startServer,
  stopServer,
  table,
  versionOf,
} from './harness.js';
import { replaceSection } from './report.js';

const HELP = `Usage: tsx features.ts [options]

  --rounds <n>        rounds over every run, interleaved            (default 4)
  --duration <s>      measured seconds per run                      (default 3)
  --warmup <s>        warm-up seconds on the fresh server first     (default 1)
  --connections <n>   autocannon connections                        (default 50)
  --only <list>       comma-separated subset of: tracing,ratelimit,ratelimit60,compression,events,lines
  --source            run fnapi from its TypeScript sources instead of the built dist
  --no-pin            do not pin processes to CPUs
  --no-write          print only; do not replace the "Feature overhead" section of RESULTS.md
`;

const { values: args } = parseArgs({
  args: process.argv.slice(2).filter((a, i) => !(i === 0 && a === '--')),
  options: {
    rounds: { type: 'string', default: '4' },
    duration: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '1' },
    connections: { type: 'string', default: '50' },
    only: { type: 'string' },
    source: { type: 'boolean', default: false },
    'no-pin': { type: 'boolean', default: false },
    'no-write': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (args.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
const settings = {
  rounds: Number(args.rounds),
  duration: Number(args.duration),
  warmup: Number(args.warmup),
  connections: Number(args.connections),
};
for (const [k, v] of Object.entries(settings)) {
  if (!Number.isFinite(v) || v < (k === 'warmup' ? 0 : 1)) {
    process.stderr.write(`invalid --${k}\n\n${HELP}`);
    process.exit(2);
  }
}
const { pin } = configure({ noPin: args['no-pin'], source: args.source });

/** One measured run: a server variant, a path, the request headers. */
interface Run {
  key: string;
  feature: string;
  path: string;
  headers?: Record<string, string>;
}

const EVENTS = 100;
const BROWSER_ENCODINGS = 'gzip, deflate, br';
const RUNS: Run[] = [
  { key: 'hello', feature: 'none', path: '/hello' },
  { key: 'hello+tracing', feature: 'tracing', path: '/hello' },
  { key: 'hello+ratelimit', feature: 'ratelimit', path: '/hello' },
  { key: 'hello+ratelimit60', feature: 'ratelimit60', path: '/hello' },
  { key: 'json10k', feature: 'none', path: '/json10k', headers: { 'accept-encoding': BROWSER_ENCODINGS } },
  { key: 'json10k+br', feature: 'compression', path: '/json10k', headers: { 'accept-encoding': BROWSER_ENCODINGS } },
  { key: 'json10k+gzip', feature: 'compression', path: '/json10k', headers: { 'accept-encoding': 'gzip' } },
  { key: 'events1', feature: 'none', path: '/events?n=1' },
  { key: `events${EVENTS + 1}`, feature: 'none', path: `/events?n=${EVENTS + 1}` },
  { key: 'lines1', feature: 'none', path: '/lines?n=1' },
  { key: `lines${EVENTS + 1}`, feature: 'none', path: `/lines?n=${EVENTS + 1}` },
];

/** A comparison: `on` against `off`; per item when `items` is set (the difference divided by it). */
interface Case {
  name: string;
  group: string;
  label: string;
  off: string;
  on: string;
  items?: number;
}

const CASES: Case[] = [
  { name: 'tracing', group: 'tracing', label: 'TracingMiddleware, no OpenTelemetry SDK (GET /hello)', off: 'hello', on: 'hello+tracing' },
  {
    name: 'ratelimit',
    group: 'ratelimit',
    label: 'RateLimitMiddleware, memory store, 1 s window, limit never reached (GET /hello)',
    off: 'hello',
    on: 'hello+ratelimit',
  },
  {
    name: 'ratelimit60',
    group: 'ratelimit60',
    label: 'RateLimitMiddleware, memory store, 60 s window, limit never reached (GET /hello)',
    off: 'hello',
    on: 'hello+ratelimit60',
  },
  {
    name: 'compression br',
    group: 'compression',
    label: `CompressionMiddleware → br (10 KB JSON, Accept-Encoding: ${BROWSER_ENCODINGS})`,
    off: 'json10k',
    on: 'json10k+br',
  },
  {
    name: 'compression gzip',
    group: 'compression',
    label: 'CompressionMiddleware → gzip (10 KB JSON, Accept-Encoding: gzip)',
    off: 'json10k',
    on: 'json10k+gzip',
  },
  {
    name: 'events',
    group: 'events',
    label: `event stream (\`events\`): ${EVENTS + 1} events against 1, per extra event`,
    off: 'events1',
    on: `events${EVENTS + 1}`,
    items: EVENTS,
  },
  {
    name: 'lines',
    group: 'lines',
    label: `JSON Lines stream (\`lines\`): ${EVENTS + 1} lines against 1, per extra line`,
    off: 'lines1',
    on: `lines${EVENTS + 1}`,
    items: EVENTS,
  },
];

const GROUPS = [...new Set(CASES.map((c) => c.group))];
const only = args.only
  ?.split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const unknown = only?.filter((g) => !GROUPS.includes(g)) ?? [];
if (unknown.length > 0) {
  process.stderr.write(`unknown feature: ${unknown.join(', ')} (known: ${GROUPS.join(', ')})\n`);
  process.exit(2);
}
const cases = CASES.filter((c) => !only || only.includes(c.group));
const runs = RUNS.filter((r) => cases.some((c) => c.off === r.key || c.on === r.key));

const spec = (feature: string): ServerSpec => ({
  name: `fnapi (${feature})`,
  label: `fnapi, FEATURE=${feature}`,
  file: 'servers/fnapi-features.ts',
  packages: ['@fnapi/core', '@fnapi/middleware', '@fnapi/monitoring'],
  env: { FEATURE: feature },
});

/** Checks a variant answers its path with 200 (and, for compression, the encoding asked for). */
async function check(run: Run, base: string): Promise<string | undefined> {
  const res = await fetch(base + run.path, { headers: run.headers, signal: AbortSignal.timeout(5000) });
  await res.arrayBuffer();
  if (res.status !== 200) return `${run.key}: status ${res.status}`;
  const encoding = res.headers.get('content-encoding');
  const want = run.key === 'json10k+br' ? 'br' : run.key === 'json10k+gzip' ? 'gzip' : null;
  if (encoding !== want) return `${run.key}: content-encoding ${encoding}, expected ${want}`;
  if (run.feature.startsWith('ratelimit') && !res.headers.get('ratelimit')) return `${run.key}: no RateLimit header`;
  return undefined;
}

async function main(): Promise<number> {
  const started = new Date();
  const total = runs.length * settings.rounds;
  process.stdout.write(
    `feature overhead: ${cases.map((c) => c.name).join(', ')}; ${runs.length} runs × ${settings.rounds} round(s), ` +
      `${settings.warmup} s warm-up + ${settings.duration} s each, ${settings.connections} connections` +
      (pin ? '; server on CPU 1, load generator on CPU 0' : '; not pinned') +
      `; about ${Math.ceil((total * (settings.warmup + settings.duration + 1.5)) / 60)} min\n`,
  );

  const samples = new Map<string, Sample[]>();
  let done = 0;
  for (let round = 0; round < settings.rounds; round++) {
    // Rotate the order so that no run always comes first or last.
    const order = runs.map((_, i) => runs[(i + round * 3) % runs.length]!);
    for (const run of order) {
      const s = await startServer(spec(run.feature));
      let r: Sample;
      try {
        if (round === 0) {
          const problem = await check(run, s.base);
          if (problem) throw new Error(`${problem}\n${s.stderr()}`);
        }
        r = await runLoad(
          {
            url: s.base + run.path,
            method: 'GET',
            headers: run.headers,
            connections: settings.connections,
            pipelining: 1,
            duration: settings.duration,
            warmup: settings.warmup,
          },
          s.child.pid,
        );
      } finally {
        await stopServer(s);
      }
      if (r.errors + r.timeouts + r.non2xx > 0) {
        process.stderr.write(`✗ ${run.key}: errors ${r.errors}, timeouts ${r.timeouts}, non-2xx ${r.non2xx}\n`);
        return 1;
      }
      samples.set(run.key, [...(samples.get(run.key) ?? []), r]);
      done++;
      process.stdout.write(
        `[${String(done).padStart(String(total).length)}/${total}] round ${round + 1} ${run.key.padEnd(18)} ` +
          `${fmtInt(r.rps).padStart(7)} req/s  ${r.cpuPerRequest.toFixed(1).padStart(6)} µs CPU/req` +
          `  cpu: load ${fmtPct(r.cpu)} server ${fmtPct(r.serverCpu)} other ${fmtPct(r.otherCpu)}\n`,
      );
    }
  }

  const us = (n: number) => (Number.isFinite(n) ? n.toFixed(n < 10 ? 2 : 1) : '—');
  const signed = (n: number) => (Number.isFinite(n) ? `${n >= 0 ? '+' : '−'}${us(Math.abs(n))}` : '—');
  const bytesPer = (x: Sample[]) => median(x.map((s) => s.bytes / s.total));
  const rows = cases.map((c) => {
    const off = samples.get(c.off)!;
    const on = samples.get(c.on)!;
    const per = c.items ?? 1;
    // Per-round comparisons: off and on ran in the same round, so drift hits both alike.
    const delta = median(off.map((o, i) => (on[i]!.cpuPerRequest - o.cpuPerRequest) / per));
    const cpuRatio = median(off.map((o, i) => on[i]!.cpuPerRequest / o.cpuPerRequest));
    const rpsRatio = median(off.map((o, i) => on[i]!.rps / o.rps));
    return [
      c.label,
      `${us(median(off.map((s) => s.cpuPerRequest)))} / ${us(median(on.map((s) => s.cpuPerRequest)))}`,
      c.items ? `${signed(delta)} per item` : signed(delta),
      c.items ? '' : fmtRatio(cpuRatio),
      `${fmtInt(median(off.map((s) => s.rps)))} / ${fmtInt(median(on.map((s) => s.rps)))}`,
      c.items ? '' : fmtRatio(rpsRatio),
      `${fmtInt(bytesPer(off))} / ${fmtInt(bytesPer(on))}`,
    ];
  });
  const body = table(
    ['feature', 'CPU µs/req off / on', 'Δ CPU µs', 'CPU on ÷ off', 'req/s off / on', 'req/s on ÷ off', 'bytes/answer off / on'],
    rows,
    ['l', 'r', 'r', 'r', 'r', 'r', 'r'],
  );
  const otherCpu = median([...samples.values()].flat().map((s) => s.otherCpu));
  const loadCpu = median([...samples.values()].flat().map((s) => s.cpu));
  const note =
    `Load generator ${fmtPct(loadCpu)} of a core, other processes ${fmtPct(otherCpu)} (medians over the runs).` +
    (otherCpu > 0.25
      ? ' The machine was busy with other work: a starved server pays more per request (hello costs about 16 µs on a quiet one), so read the per-round ratios, and rerun when it is quiet.'
      : '');
  process.stdout.write(`\n${body}\n\n${note}\n`);
  if (args['no-write']) return 0;

  const nCpu = cpus().length;
  const versions = ['@fnapi/core', '@fnapi/middleware', '@fnapi/monitoring', 'autocannon'].map((p) => `${p} ${versionOf(p)}`);
  const section = `## Feature overhead

Generated by \`pnpm --filter @fnapi/bench features\` (bench/features.ts) on ${started.toISOString().replace(/\.\d+Z$/, 'Z')}: fnapi with
default options (\`new API()\`: pino logging, the docs on), the same endpoint with the feature off and on
(\`bench/servers/fnapi-features.ts\`, \`FEATURE\` choosing what the app adds), each measured run on a freshly
started server: ${settings.warmup} s warm-up, ${settings.duration} s measured, ${settings.connections} connections, ${settings.rounds} rounds with every run
interleaved. CPU µs/req is the server's CPU time per request (from /proc); off / on are medians over the
rounds, Δ and the ratios are medians of the per-round differences and ratios (off and on measured in the
same round). For the streams, one request is one stream, and the difference between ${EVENTS + 1} items and 1 item
is divided by ${EVENTS}: the cost of one more item. Bytes per answer include the headers.

${body}

${note} Machine: ${cpuModel()} (${nCpu} logical core${nCpu === 1 ? '' : 's'}), Node.js ${process.version}, ${pin ? 'server on CPU 1, autocannon on CPU 0' : 'not pinned'}; ${versions.join(', ')}.
`;
  const out = join(here, 'RESULTS.md');
  replaceSection(out, '## Feature overhead', section);
  process.stdout.write(`\nwrote the "Feature overhead" section of ${out}\n`);
  return 0;
}

runMain(main);
