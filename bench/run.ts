// Benchmark runner: starts each server as its own child process, checks that every endpoint
// answers correctly, then drives them with autocannon (also its own process) in rotation.
//
//   pnpm bench                      full run (from the repository root: builds first)
//   pnpm --filter @fnapi/bench bench -- --quick
//   pnpm bench --format fastify-benchmarks
//   tsx run.ts --help
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  type Check,
  checkServer,
  configure,
  cpuModel,
  fmtInt,
  fmtMs,
  fmtPct,
  fmtRatio,
  here,
  runMain,
  median,
  type RunningServer,
  runLoad,
  type Sample,
  type ServerSpec,
  startServer,
  stopServer,
  table,
  versionOf,
} from './harness.js';
import { replaceSection } from './report.js';
import { publicItems } from './servers/catalogue.js';

// ---------------------------------------------------------------------------------------------
// Settings

const HELP = `Usage: tsx run.ts [options]

  --format <name>        default: the four endpoints below against six servers;
                         fastify-benchmarks: the fastify/benchmarks suite's endpoint and settings
                         (GET / → {"hello":"world"}, -c 100 -p 10 -d 40, warm-up as long as the
                         measured run, 1 round) against its five servers     (BENCH_FORMAT)
  --quick                short smoke run (1 s warm-up, 1 s measured, 1 round); also BENCH_QUICK=1
  --duration <s>         measured seconds per run            (default 5; fastify-benchmarks 40; BENCH_DURATION)
  --warmup <s>           warm-up seconds before each run     (default 2, quick 1; fastify-benchmarks:
                         the measured duration; BENCH_WARMUP)
  --rounds <n>           rounds over all servers             (default 3; fastify-benchmarks 1; BENCH_ROUNDS)
  --connections <n>      autocannon connections              (default 50; fastify-benchmarks 100; BENCH_CONNECTIONS)
  --pipelining <n>       autocannon pipelining               (default 1; fastify-benchmarks 10; BENCH_PIPELINING)
  --frameworks <list>    comma-separated subset of: raw,fnapi,fnapi-default,fastify,hono,express
                         (fastify-benchmarks: raw,fnapi,fastify,hono,express)
  --endpoints <list>     comma-separated subset of: hello,posts,create,list
  --source               run fnapi from its TypeScript sources instead of the built dist
  --no-pin               do not pin processes to CPUs even where taskset exists
  --check-only           only run the correctness checks (without --format or --frameworks: every
                         server of both formats)
  --out <file>           where to write the report (default bench/RESULTS.md); --no-write to skip
`;

// `pnpm bench -- --quick` passes the "--" through; drop it so the flags after it still count.
const argv = process.argv.slice(2).filter((a, i) => !(i === 0 && a === '--'));

function parse() {
  try {
    return parseArgs({
      args: argv,
      options: {
        format: { type: 'string' },
        quick: { type: 'boolean', default: false },
        duration: { type: 'string' },
        warmup: { type: 'string' },
        rounds: { type: 'string' },
        connections: { type: 'string' },
        pipelining: { type: 'string' },
        frameworks: { type: 'string' },
        endpoints: { type: 'string' },
        source: { type: 'boolean', default: false },
        'no-pin': { type: 'boolean', default: false },
        'check-only': { type: 'boolean', default: false },
        out: { type: 'string' },
        'no-write': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }).values;
  } catch (e) {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n\n${HELP}`);
    process.exit(2);
  }
}
const args = parse();

if (args.help) {
  process.stdout.write(HELP);
  process.exit(0);
}

const quick = args.quick || /^(1|true|yes)$/i.test(process.env.BENCH_QUICK ?? '');

function num(flag: string | undefined, env: string, fallback: number, min: number): number {
  const raw = flag ?? process.env[env];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min) {
    process.stderr.write(`invalid value for ${env.toLowerCase().replace('bench_', '--')}: ${raw}\n`);
    process.exit(2);
  }
  return n;
}

const FORMATS = ['default', 'fastify-benchmarks'];
const formatGiven = args.format ?? process.env.BENCH_FORMAT;
const format = formatGiven || 'default';
if (!FORMATS.includes(format)) {
  process.stderr.write(`unknown format: ${format} (known: ${FORMATS.join(', ')})\n`);
  process.exit(2);
}
/** The fastify/benchmarks suite's settings: `autocannon -c 100 -d 40 -p 10`, one warm-up run as long as the measured one. */
const fb = format === 'fastify-benchmarks';

const duration = num(args.duration, 'BENCH_DURATION', quick ? 1 : fb ? 40 : 5, 1);
const settings = {
  duration,
  warmup: num(args.warmup, 'BENCH_WARMUP', fb ? duration : quick ? 1 : 2, 0),
  rounds: Math.floor(num(args.rounds, 'BENCH_ROUNDS', quick || fb ? 1 : 3, 1)),
  connections: Math.floor(num(args.connections, 'BENCH_CONNECTIONS', fb ? 100 : 50, 1)),
  pipelining: Math.floor(num(args.pipelining, 'BENCH_PIPELINING', fb ? 10 : 1, 1)),
};
const { pin } = configure({ noPin: args['no-pin'], source: args.source });

// ---------------------------------------------------------------------------------------------
// Frameworks and endpoints

type Framework = ServerSpec;

const FRAMEWORKS: Framework[] = [
  { name: 'raw', label: 'node:http (raw)', file: 'servers/raw.ts', packages: [] },
  { name: 'fnapi', label: 'fnapi (tuned)', file: 'servers/fnapi.ts', packages: ['@fnapi/core', 'zod'] },
  { name: 'fnapi-default', label: 'fnapi (defaults)', file: 'servers/fnapi-default.ts', packages: ['@fnapi/core', 'zod'] },
  { name: 'fastify', label: 'Fastify', file: 'servers/fastify.ts', packages: ['fastify'] },
  { name: 'hono', label: 'Hono', file: 'servers/hono.ts', packages: ['hono', '@hono/node-server', '@hono/zod-validator', 'zod'] },
  { name: 'express', label: 'Express', file: 'servers/express.ts', packages: ['express', 'zod'] },
];

const USER_IN = { name: 'Ada Lovelace', email: 'ada@example.com', age: 36, tags: ['math', 'computing'] };
const USER_OUT = { ...USER_IN, role: 'user' };
const JSON_HEADERS = { 'content-type': 'application/json' };

interface Endpoint {
  name: string;
  label: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

const ENDPOINTS: Endpoint[] = [
  { name: 'hello', label: 'GET /hello', method: 'GET', path: '/hello' },
  {
    name: 'posts',
    label: 'GET /users/{id}/posts/{postId}',
    method: 'GET',
    path: '/users/42/posts/7?page=2&limit=10',
  },
  { name: 'create', label: 'POST /users', method: 'POST', path: '/users', body: JSON.stringify(USER_IN) },
  { name: 'list', label: 'GET /items (50 through a response model)', method: 'GET', path: '/items' },
];

function pick<T extends { name: string }>(all: T[], list: string | undefined, what: string): T[] {
  if (!list) return all;
  const names = list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !all.some((x) => x.name === n));
  if (unknown.length > 0) {
    process.stderr.write(`unknown ${what}: ${unknown.join(', ')} (known: ${all.map((x) => x.name).join(', ')})\n`);
    process.exit(2);
  }
  return all.filter((x) => names.includes(x.name));
}

// The fastify/benchmarks format: its single endpoint, each server as that suite writes it
// (github.com/fastify/benchmarks, benchmarks/*.cjs and *.mjs), fnapi with default options.
const FB_FRAMEWORKS: Framework[] = [
  { name: 'raw', label: 'node:http', file: 'servers/fastify-benchmarks/raw.ts', packages: [] },
  { name: 'fnapi', label: 'fnapi (defaults)', file: 'servers/fastify-benchmarks/fnapi.ts', packages: ['@fnapi/core'] },
  { name: 'fastify', label: 'Fastify', file: 'servers/fastify-benchmarks/fastify.ts', packages: ['fastify'] },
  { name: 'hono', label: 'Hono', file: 'servers/fastify-benchmarks/hono.ts', packages: ['hono', '@hono/node-server'] },
  { name: 'express', label: 'Express', file: 'servers/fastify-benchmarks/express.ts', packages: ['express'] },
];
const FB_ENDPOINTS: Endpoint[] = [{ name: 'root', label: 'GET /', method: 'GET', path: '/' }];

const frameworkList = args.frameworks ?? process.env.BENCH_FRAMEWORKS;
const frameworks = pick(fb ? FB_FRAMEWORKS : FRAMEWORKS, frameworkList, 'framework');
const endpoints = pick(fb ? FB_ENDPOINTS : ENDPOINTS, args.endpoints ?? process.env.BENCH_ENDPOINTS, 'endpoint');

// ---------------------------------------------------------------------------------------------
// Correctness

const CHECKS: Check[] = [
  { what: 'hello', method: 'GET', path: '/hello', status: 200, json: { message: 'hello' } },
  {
    what: 'posts',
    method: 'GET',
    path: '/users/42/posts/7?page=2&limit=10',
    status: 200,
    json: { id: 42, postId: 7, page: 2, limit: 10 },
  },
  {
    what: 'posts with defaults',
    method: 'GET',
    path: '/users/1/posts/2',
    status: 200,
    json: { id: 1, postId: 2, page: 1, limit: 20 },
  },
  { what: 'posts, id not an integer', method: 'GET', path: '/users/abc/posts/2', status: 'client-error' },
  { what: 'posts, page not an integer', method: 'GET', path: '/users/1/posts/2?page=x', status: 'client-error' },
  { what: 'create', method: 'POST', path: '/users', body: USER_IN, status: 201, json: USER_OUT },
  {
    what: 'create with role, unknown key dropped',
    method: 'POST',
    path: '/users',
    body: { name: 'Bo', email: 'bo@example.org', age: 18, role: 'admin', extra: 1 },
    status: 201,
    json: { name: 'Bo', email: 'bo@example.org', age: 18, role: 'admin', tags: [] },
  },
  {
    what: 'create, invalid user',
    method: 'POST',
    path: '/users',
    body: { name: 'A', email: 'not-an-email', age: 12 },
    status: 'client-error',
  },
  {
    what: 'list: 50 items, internal field dropped',
    method: 'GET',
    path: '/items',
    status: 200,
    json: publicItems(),
  },
  {
    what: 'create, bad role',
    method: 'POST',
    path: '/users',
    body: { ...USER_IN, role: 'root' },
    status: 'client-error',
  },
];

const FB_CHECKS: Check[] = [{ what: 'hello world', method: 'GET', path: '/', status: 200, json: { hello: 'world' } }];

/**
 * The goals fnapi (defaults) is held to, checked on this run's medians: per endpoint at or above
 * Fastify in req/s and at or below it in CPU per request and in peak RSS; on `hello`, CPU per
 * request within 0.95 of raw node:http (raw's CPU / fnapi's CPU ≥ 0.95). Undefined when the run
 * did not include those servers.
 */
function goalCheck(rows: { fw: Framework; ep: Endpoint; rps: number; cpuPerRequest: number; peakRss: number }[], eps: Endpoint[]) {
  const find = (fw: string, ep: Endpoint) => rows.find((r) => r.fw.name === fw && r.ep === ep);
  const lines: string[][] = [];
  let met = true;
  for (const ep of eps) {
    const f = find('fnapi-default', ep);
    const peer = find('fastify', ep);
    if (!f || !peer) return undefined;
    const verdicts = [f.rps >= peer.rps, f.cpuPerRequest <= peer.cpuPerRequest, !(f.peakRss > peer.peakRss)];
    const row = [
      ep.name,
      `${fmtRatio(f.rps / peer.rps)} ${verdicts[0] ? '✓' : '✗'}`,
      `${fmtRatio(f.cpuPerRequest / peer.cpuPerRequest)} ${verdicts[1] ? '✓' : '✗'}`,
      `${fmtRatio(f.peakRss / peer.peakRss)} ${verdicts[2] ? '✓' : '✗'}`,
    ];
    const raw = ep.name === 'hello' ? find('raw', ep) : undefined;
    if (raw) {
      const ratio = raw.cpuPerRequest / f.cpuPerRequest;
      verdicts.push(ratio >= 0.95);
      row.push(`${fmtRatio(ratio)} ${ratio >= 0.95 ? '✓' : '✗'}`);
    } else row.push('');
    if (verdicts.includes(false)) met = false;
    lines.push(row);
  }
  const text =
    'fnapi (defaults) against Fastify (req/s ≥ 1, CPU µs/req ≤ 1, peak RSS ≤ 1) and, on hello, raw node:http\n' +
    "CPU per request against fnapi's (≥ 0.95):\n\n" +
    table(['endpoint', 'req/s ÷ Fastify', 'CPU ÷ Fastify', 'peak RSS ÷ Fastify', 'raw CPU ÷ fnapi CPU'], lines, ['l', 'r', 'r', 'r', 'r']) +
    `\n\nAll goals met in this run: ${met ? 'yes' : 'no'}`;
  return { met, text };
}

/**
 * Sections of an existing report that this runner does not write (start-up and cold-start times
 * from their own scripts, notes written by hand): carried over, so a new run replaces only its own.
 */
function keptSections(file: string, fresh: string): string {
  if (!existsSync(file)) return '';
  const own = new Set([...fresh.matchAll(/^## (.+)$/gm)].map((m) => m[1]));
  const kept = readFileSync(file, 'utf8')
    .split(/^(?=## )/m)
    .filter((part) => part.startsWith('## ') && !own.has(part.slice(3, part.indexOf('\n')).trim()));
  return kept.length === 0 ? '' : `\n${kept.map((part) => part.trimEnd()).join('\n\n')}\n`;
}

/** One server on one endpoint, aggregated over the rounds. */
interface ResultRow {
  fw: Framework;
  ep: Endpoint;
  rps: number;
  min: number;
  max: number;
  p99: number;
  latencyAvg: number;
  throughput: number;
  ratio: number;
  loadCpu: number;
  serverCpu: number;
  otherCpu: number;
  cpuPerRequest: number;
  cpuRatio: number;
  peakRss: number;
  bad: number;
}

/** The fastify/benchmarks format's table, printed and written as its own section of RESULTS.md. */
function fastifyBenchmarksReport(rows: readonly ResultRow[], started: Date): number {
  const raw = rows.find((r) => r.fw.name === 'raw');
  const fastify = rows.find((r) => r.fw.name === 'fastify');
  const several = settings.rounds > 1;
  const body = table(
    [
      'server',
      several ? 'req/s (median)' : 'req/s',
      ...(several ? ['min–max req/s'] : []),
      'latency avg ms',
      'p99 ms',
      'throughput MiB/s',
      '× node:http',
      '× Fastify',
      'CPU µs/req',
      'CPU ÷ node:http',
      'errors',
    ],
    [...rows]
      .sort((a, b) => b.rps - a.rps)
      .map((r) => [
        r.fw.label,
        fmtInt(r.rps),
        ...(several ? [`${fmtInt(r.min)}–${fmtInt(r.max)}`] : []),
        fmtMs(r.latencyAvg),
        fmtMs(r.p99),
        (r.throughput / 1024 / 1024).toFixed(2),
        fmtRatio(r.rps / (raw?.rps ?? NaN)),
        fmtRatio(r.rps / (fastify?.rps ?? NaN)),
        fmtMs(r.cpuPerRequest),
        fmtRatio(r.cpuPerRequest / (raw?.cpuPerRequest ?? NaN)),
        String(r.bad),
      ]),
    ['l', 'r', ...(several ? (['r'] as const) : []), 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
  );
  const loadCpu = median(rows.map((r) => r.loadCpu));
  const otherCpu = median(rows.map((r) => r.otherCpu));
  const saturated = rows.some((r) => r.loadCpu > 0.95);
  const notes = [
    `Load generator: ${fmtPct(loadCpu)} of a core (median over the runs); other processes on the machine: ${fmtPct(otherCpu)}.`,
    saturated
      ? 'autocannon was CPU-bound in some runs: the fastest servers may be faster than measured, and their ratios are compressed toward 1.'
      : '',
    rows.some((r) => r.otherCpu > 0.25)
      ? 'Other processes used more than a quarter of a core during some runs: the machine was busy, expect noise in req/s (CPU µs/req suffers less).'
      : '',
    rows.some((r) => r.bad > 0) ? 'Some runs had errors, timeouts or non-2xx responses (see the errors column).' : '',
  ].filter(Boolean);
  process.stdout.write(`\n${body}\n\n${notes.join('\n')}\n`);
  if (args['no-write']) return 0;

  const versions = new Map<string, string>();
  for (const r of rows) for (const p of r.fw.packages) versions.set(p, versionOf(p));
  versions.set('autocannon', versionOf('autocannon'));
  const nCpu = cpus().length;
  const section = `## fastify-benchmarks format

The settings of the public [fastify/benchmarks](https://github.com/fastify/benchmarks) suite, run by
\`pnpm bench --format fastify-benchmarks\` (bench/run.ts) on ${started.toISOString().replace(/\.\d+Z$/, 'Z')}${quick || settings.duration < 40 ? ` — **shortened run (${settings.duration} s)**, not a measurement to quote` : ''}:
its single endpoint (\`GET /\` answering \`{"hello":"world"}\`), each server written as that suite writes it
(\`bench/servers/fastify-benchmarks/\`: node:http serialising per request, Fastify with a response schema,
Hono on \`@hono/node-server\`, Express without ETag and X-Powered-By) and fnapi with default options.
autocannon \`-c ${settings.connections} -p ${settings.pipelining} -d ${settings.duration}\`, after a warm-up run of ${settings.warmup} s
on the same freshly started server (the suite warms with a full run); ${settings.rounds} round(s)${several ? ', servers interleaved, medians' : ''}.
Throughput is MiB/s received, as the suite's table gives it ("Throughput/Mb"); CPU µs/req is the
server's CPU time per request (from /proc), steadier than req/s on a shared machine.

${body}

${notes.join('\n')}

For comparison, the suite's published table (fastify/benchmarks README, run 2026-07-21 on GitHub
Actions, 4 vCPUs, Node v24.18.0, one measured run per server): Fastify 0.98 of node-http's req/s
(46,850 against 47,917), Hono 0.84 (40,188), Express 0.58 (27,794). fnapi is not in that suite.

Machine: ${cpuModel()} (${nCpu} logical core${nCpu === 1 ? '' : 's'}), Node.js ${process.version}; ${pin ? 'server on CPU 1, autocannon on CPU 0 (taskset)' : 'not pinned'}.
Versions: ${[...versions].map(([p, v]) => `${p} ${v}`).join(', ')}.
`;
  const out = args.out ?? join(here, 'RESULTS.md');
  replaceSection(out, '## fastify-benchmarks format', section);
  process.stdout.write(`\nwrote the "fastify-benchmarks format" section of ${out}\n`);
  return 0;
}

// ---------------------------------------------------------------------------------------------
// Main

async function main(): Promise<number> {
  const started = new Date();
  const runs = frameworks.length * endpoints.length * settings.rounds;
  const estimate = Math.ceil((runs * (settings.warmup + settings.duration + 1.5)) / 60);
  process.stdout.write(
    `fnapi benchmark${fb ? ' (fastify-benchmarks format)' : ''}: ${frameworks.map((f) => f.name).join(', ')} × ${endpoints.map((e) => e.name).join(', ')}` +
      ` × ${settings.rounds} round(s); ${settings.warmup} s warm-up + ${settings.duration} s per run,` +
      ` ${settings.connections} connections, pipelining ${settings.pipelining}` +
      (pin ? '; server on CPU 1, load generator on CPU 0' : '; not pinned (no taskset or < 2 CPUs)') +
      (args['check-only'] ? '' : `; about ${estimate} min`) +
      '\n',
  );

  // Start every server once and check it before measuring anything. The checks alone (CI) cover
  // the servers of both formats unless a format or a subset was asked for.
  const toCheck: { fw: Framework; checks: Check[]; measured: boolean }[] = frameworks.map((fw) => ({
    fw,
    checks: fb ? FB_CHECKS : CHECKS,
    measured: true,
  }));
  if (args['check-only'] && !formatGiven && !frameworkList) {
    for (const fw of FB_FRAMEWORKS)
      toCheck.push({ fw: { ...fw, name: `fastify-benchmarks/${fw.name}` }, checks: FB_CHECKS, measured: false });
  }
  const checked: Framework[] = [];
  let failed = false;
  for (const { fw, checks, measured } of toCheck) {
    let s: RunningServer;
    try {
      s = await startServer(fw);
    } catch (e) {
      process.stderr.write(`✗ ${fw.name} did not start: ${String(e instanceof Error ? e.message : e)}\n`);
      if (fw.name.startsWith('fnapi') && !args.source) {
        process.stderr.write('  (fnapi runs from packages/*/dist: run `pnpm build` first, or pass --source)\n');
      }
      failed = true;
      continue;
    }
    const problems = await checkServer(s, checks);
    await stopServer(s);
    if (problems.length > 0) {
      failed = true;
      process.stderr.write(`✗ ${fw.name} (port ${s.port}) fails its correctness checks:\n`);
      for (const p of problems) process.stderr.write(`    - ${p}\n`);
      if (s.stderr()) process.stderr.write(`  server stderr:\n${s.stderr()}\n`);
    } else {
      if (measured) checked.push(fw);
      process.stdout.write(`✓ ${fw.name} answers ${checks.length === 1 ? 'its check' : `all ${checks.length} checks`}\n`);
    }
  }
  if (failed) {
    process.stderr.write('Aborting: a benchmark of a broken endpoint is worthless.\n');
    return 1;
  }
  if (args['check-only']) return 0;

  // Interleaved measurement: each round visits every endpoint, and for each endpoint every
  // server in turn; the starting server rotates from round to round. Every measured run gets a
  // freshly started server: a server process that has sat idle (V8's memory reducer ran) stays
  // slower on node:http's own path for the rest of its life, so long-lived servers would be
  // measured by how long each happened to wait for its turn (see README, "Fresh servers").
  const samples = new Map<string, Sample[]>(); // key `${fw}/${endpoint}`
  let done = 0;
  for (let round = 0; round < settings.rounds; round++) {
    const order = checked.map((_, i) => checked[(i + round) % checked.length]!);
    for (const ep of endpoints) {
      for (const fw of order) {
        const s = await startServer(fw);
        let r: Sample;
        try {
          r = await runLoad(
            {
              url: s.base + ep.path,
              method: ep.method,
              headers: ep.body === undefined ? undefined : JSON_HEADERS,
              body: ep.body,
              connections: settings.connections,
              pipelining: settings.pipelining,
              duration: settings.duration,
              warmup: settings.warmup,
            },
            s.child.pid,
          );
        } catch (error) {
          await stopServer(s);
          throw error;
        }
        const exited = s.child.exitCode !== null || s.child.signalCode !== null;
        await stopServer(s);
        if (exited) {
          process.stderr.write(`✗ ${fw.name} exited during the run\n${s.stderr()}\n`);
          return 1;
        }
        const key = `${fw.name}/${ep.name}`;
        const list = samples.get(key) ?? [];
        list.push(r);
        samples.set(key, list);
        done++;
        const flags = r.errors + r.timeouts + r.non2xx > 0 ? `  ! errors ${r.errors}, timeouts ${r.timeouts}, non-2xx ${r.non2xx}` : '';
        process.stdout.write(
          `[${String(done).padStart(String(runs).length)}/${runs}] round ${round + 1} ${ep.name.padEnd(6)} ` +
            `${fw.name.padEnd(13)} ${fmtInt(r.rps).padStart(8)} req/s  p99 ${fmtMs(r.p99).padStart(6)} ms` +
            `  cpu: load ${fmtPct(r.cpu)} server ${fmtPct(r.serverCpu)} other ${fmtPct(r.otherCpu)}${flags}\n`,
        );
      }
    }
  }

  // Aggregate.
  const rows: ResultRow[] = [];
  for (const ep of endpoints) {
    const agg = (fw: Framework) => {
      const list = samples.get(`${fw.name}/${ep.name}`) ?? [];
      return {
        rps: median(list.map((x) => x.rps)),
        min: Math.min(...list.map((x) => x.rps)),
        max: Math.max(...list.map((x) => x.rps)),
        p99: median(list.map((x) => x.p99)),
        latencyAvg: median(list.map((x) => x.latencyAvg)),
        throughput: median(list.map((x) => x.throughput)),
        loadCpu: median(list.map((x) => x.cpu)),
        serverCpu: median(list.map((x) => x.serverCpu)),
        otherCpu: median(list.map((x) => x.otherCpu)),
        cpuPerRequest: median(list.map((x) => x.cpuPerRequest)),
        peakRss: Math.max(...list.map((x) => x.peakRss)),
        bad: list.reduce((n, x) => n + x.errors + x.timeouts + x.non2xx, 0),
      };
    };
    const raw = frameworks.find((f) => f.name === 'raw');
    const rawAgg = raw ? agg(raw) : undefined;
    for (const fw of frameworks) {
      const a = agg(fw);
      rows.push({
        fw,
        ep,
        ...a,
        ratio: a.rps / (rawAgg?.rps ?? NaN),
        cpuRatio: a.cpuPerRequest / (rawAgg?.cpuPerRequest ?? NaN),
      });
    }
  }
  if (fb) return fastifyBenchmarksReport(rows, started);

  const detail = table(
    ['endpoint', 'framework', 'req/s (median)', 'min–max req/s', 'p99 ms', '× raw', 'CPU µs/req', 'peak RSS MB', 'errors'],
    rows.map((r) => [
      r.ep.label,
      r.fw.label,
      fmtInt(r.rps),
      `${fmtInt(r.min)}–${fmtInt(r.max)}`,
      fmtMs(r.p99),
      fmtRatio(r.ratio),
      fmtMs(r.cpuPerRequest),
      Number.isFinite(r.peakRss) ? (r.peakRss / 1024 / 1024).toFixed(0) : '—',
      String(r.bad),
    ]),
    ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
  );
  const summary = table(
    ['framework', ...endpoints.map((e) => e.name)],
    frameworks.map((fw) => [fw.label, ...endpoints.map((ep) => fmtRatio(rows.find((r) => r.fw === fw && r.ep === ep)!.ratio))]),
    ['l', ...endpoints.map(() => 'r' as const)],
  );
  const cpuSummary = table(
    ['framework', ...endpoints.map((e) => e.name)],
    frameworks.map((fw) => [fw.label, ...endpoints.map((ep) => fmtRatio(rows.find((r) => r.fw === fw && r.ep === ep)!.cpuRatio))]),
    ['l', ...endpoints.map(() => 'r' as const)],
  );
  const cpuTable = table(
    ['endpoint', 'framework', 'load generator', 'server', 'other processes'],
    rows.map((r) => [r.ep.label, r.fw.label, fmtPct(r.loadCpu), fmtPct(r.serverCpu), fmtPct(r.otherCpu)]),
    ['l', 'l', 'r', 'r', 'r'],
  );

  const goals = goalCheck(rows, endpoints);
  const anyBad = rows.some((r) => r.bad > 0);
  const saturated = rows.some((r) => r.loadCpu > 0.95);
  const busy = rows.some((r) => r.otherCpu > 0.25);
  process.stdout.write(
    `\nreq/s relative to raw node:http (median of ${settings.rounds} round(s); higher is better)\n\n${summary}\n` +
      `\nserver CPU time per request relative to raw node:http (lower is better)\n\n${cpuSummary}\n\n${detail}\n` +
      (goals ? `\n${goals.text}\n` : ''),
  );
  if (anyBad) process.stdout.write('\n! some runs had errors, timeouts or non-2xx responses (see the errors column)\n');
  if (saturated) {
    process.stdout.write('\n! the load generator used ~100% of its CPU in some runs: those servers may be faster than measured\n');
  }
  if (busy) {
    process.stdout.write('\n! other processes used more than a quarter of a core during some runs: the machine was busy, expect noise\n');
  }

  if (!args['no-write']) {
    const versions = new Map<string, string>();
    for (const fw of frameworks) for (const p of fw.packages) versions.set(p, versionOf(p));
    versions.set('autocannon', versionOf('autocannon'));
    const nCpu = cpus().length;
    const md = `# Benchmark results

Generated by \`pnpm bench\` (bench/run.ts) on ${started.toISOString().replace(/\.\d+Z$/, 'Z')}${quick ? ' — **quick smoke run**, not a measurement to quote' : ''}.
See [README.md](README.md) for what is measured and how to read it: compare the ratios, not the
absolute numbers.

## req/s relative to raw node:http (higher is better)

${summary}

## Server CPU time per request relative to raw node:http (lower is better)

Less sensitive to other load on the machine than req/s; see the README.

${cpuSummary}

${goals ? `## Goal check\n\n${goals.text}\n\n` : ''}## Details

Median of ${settings.rounds} round(s); p99 latency is the median of the rounds' p99; min–max shows the spread between rounds.

${detail}
${anyBad ? '\nSome runs had errors, timeouts or non-2xx responses (see the errors column).\n' : ''}
### CPU use during the measured runs (share of one core, median of rounds)

${cpuTable}
${saturated ? '\nThe load generator was CPU-bound in some runs: the servers concerned may be faster than measured.\n' : ''}${busy ? '\nOther processes on the machine used more than a quarter of a core during some runs: expect noise.\n' : ''}
## Machine

- CPU: ${cpuModel()} (${nCpu} logical core${nCpu === 1 ? '' : 's'})
- Node.js: ${process.version} (${process.platform}/${process.arch})
- Pinning: ${pin ? 'server on CPU 1, autocannon on CPU 0 (taskset)' : 'none (taskset unavailable, fewer than 2 CPUs, or --no-pin)'}

## Versions

${[...versions].map(([p, v]) => `- ${p} ${v}`).join('\n')}
- node:http: built into Node.js ${process.version}
${args.source ? '\nfnapi ran from its TypeScript sources (--source), not the built dist.\n' : ''}
## Settings

- connections ${settings.connections}, pipelining ${settings.pipelining}
- warm-up ${settings.warmup} s, then ${settings.duration} s measured, per server and endpoint
- ${settings.rounds} round(s), servers interleaved (the starting server rotates each round), each run on a freshly started server
- NODE_ENV=production; logging off in every server but fnapi (defaults), which logs through its default pino logger
`;
    const out = args.out ?? join(here, 'RESULTS.md');
    writeFileSync(out, md + keptSections(out, md));
    process.stdout.write(`\nwrote ${out}\n`);
  }
  return 0;
}

runMain(main);
