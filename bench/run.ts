// Benchmark runner: starts each server as its own child process, checks that every endpoint
// answers correctly, then drives them with autocannon (also its own process) in rotation.
//
//   pnpm bench                      full run (from the repository root: builds first)
//   pnpm --filter @fnapi/bench bench -- --quick
//   tsx run.ts --help
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import type { LoadJob, LoadResult } from './load.ts';
import { publicItems } from './servers/catalogue.js';

const here = dirname(fileURLToPath(import.meta.url));

// ---------------------------------------------------------------------------------------------
// Settings

const HELP = `Usage: tsx run.ts [options]

  --quick                short smoke run (1 s warm-up, 1 s measured, 1 round); also BENCH_QUICK=1
  --duration <s>         measured seconds per run            (default 5, BENCH_DURATION)
  --warmup <s>           warm-up seconds before each run     (default 2, quick 1, BENCH_WARMUP)
  --rounds <n>           rounds over all servers             (default 3, BENCH_ROUNDS)
  --connections <n>      autocannon connections              (default 50, BENCH_CONNECTIONS)
  --pipelining <n>       autocannon pipelining               (default 1, BENCH_PIPELINING)
  --frameworks <list>    comma-separated subset of: raw,fnapi,fnapi-default,fastify,hono,express
  --endpoints <list>     comma-separated subset of: hello,posts,create,list
  --source               run fnapi from its TypeScript sources instead of the built dist
  --no-pin               do not pin processes to CPUs even where taskset exists
  --check-only           only run the correctness checks
  --out <file>           where to write the report (default bench/RESULTS.md); --no-write to skip
`;

// `pnpm bench -- --quick` passes the "--" through; drop it so the flags after it still count.
const argv = process.argv.slice(2).filter((a, i) => !(i === 0 && a === '--'));

function parse() {
  try {
    return parseArgs({
      args: argv,
      options: {
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

const settings = {
  duration: num(args.duration, 'BENCH_DURATION', quick ? 1 : 5, 1),
  warmup: num(args.warmup, 'BENCH_WARMUP', quick ? 1 : 2, 0),
  rounds: Math.floor(num(args.rounds, 'BENCH_ROUNDS', quick ? 1 : 3, 1)),
  connections: Math.floor(num(args.connections, 'BENCH_CONNECTIONS', 50, 1)),
  pipelining: Math.floor(num(args.pipelining, 'BENCH_PIPELINING', 1, 1)),
};

// ---------------------------------------------------------------------------------------------
// Frameworks and endpoints

interface Framework {
  name: string;
  label: string;
  file: string;
  /** Packages whose versions go into the report (read from their package.json). */
  packages: string[];
}

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

const frameworks = pick(FRAMEWORKS, args.frameworks ?? process.env.BENCH_FRAMEWORKS, 'framework');
const endpoints = pick(ENDPOINTS, args.endpoints ?? process.env.BENCH_ENDPOINTS, 'endpoint');

// ---------------------------------------------------------------------------------------------
// Processes

const pin =
  !args['no-pin'] &&
  process.platform === 'linux' &&
  cpus().length >= 2 &&
  spawnSync('taskset', ['-c', '0,1', 'true'], { stdio: 'ignore' }).status === 0;

/** node (+ tsx) command line, optionally behind `taskset -c <cpu>`. */
function command(cpu: number, script: string, scriptArgs: string[] = []): [string, string[]] {
  const nodeArgs = ['--import', 'tsx'];
  if (args.source) nodeArgs.push('--conditions=@fnapi/source');
  const argv = [...nodeArgs, join(here, script), ...scriptArgs];
  return pin ? ['taskset', ['-c', String(cpu), process.execPath, ...argv]] : [process.execPath, argv];
}

interface RunningServer {
  fw: Framework;
  child: ChildProcess;
  port: number;
  base: string;
  stderr: () => string;
}

const children = new Set<ChildProcess>();

function killAll(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
}
process.on('exit', killAll);
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    killAll();
    process.exit(130);
  });
}

function startServer(fw: Framework): Promise<RunningServer> {
  const [cmd, argv] = command(1, fw.file);
  const child = spawn(cmd, argv, {
    cwd: here,
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    err = (err + d).slice(-4000);
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${fw.name}: no port announced within 30 s\n${err}`));
    }, 30_000);
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl === -1) return;
      clearTimeout(timer);
      try {
        const { port } = JSON.parse(out.slice(0, nl)) as { port: number };
        if (!Number.isInteger(port) || port <= 0) throw new Error(`bad port ${port}`);
        resolve({ fw, child, port, base: `http://127.0.0.1:${port}`, stderr: () => err });
      } catch (e) {
        child.kill('SIGKILL');
        reject(new Error(`${fw.name}: unexpected first line ${JSON.stringify(out.slice(0, nl))} (${String(e)})`));
      }
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${fw.name}: exited before listening (code ${code}, signal ${signal})\n${err}`));
    });
  });
}

function stopServer(s: RunningServer): Promise<void> {
  return new Promise((resolve) => {
    if (s.child.exitCode !== null || s.child.signalCode !== null) return resolve();
    const force = setTimeout(() => s.child.kill('SIGKILL'), 3000);
    s.child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    s.child.kill('SIGTERM');
  });
}

/** CPU seconds (user + system) a process has used so far, from /proc; undefined elsewhere. */
function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, USER_HZ = 100
  } catch {
    return undefined;
  }
}

interface Sample extends LoadResult {
  /** CPU used by the server during the measured run, as a share of one core. */
  serverCpu: number;
  /** Server CPU time per request served during the measured run, in microseconds. */
  cpuPerRequest: number;
  /** CPU used by everything else on the machine meanwhile (other processes), in cores. */
  otherCpu: number;
  /** Highest resident set size of the server during the measured run, in bytes. */
  peakRss: number;
}

/** Resident set size of a process in bytes, from /proc (undefined elsewhere). */
function rssBytes(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

/**
 * Runs load.ts (warm-up, then the measured run) against one endpoint. `serverPid` is sampled
 * from /proc when the measured part starts and when it ends, to report the server's CPU use.
 */
/** Busy CPU seconds of the whole machine so far (all cores), from /proc/stat; undefined elsewhere. */
function machineBusySeconds(): number | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    return (user! + nice! + system! + irq! + softirq! + (steal ?? 0)) / 100;
  } catch {
    return undefined;
  }
}

function runLoad(job: LoadJob, serverPid: number | undefined): Promise<Sample> {
  const [cmd, argv] = command(0, 'load.ts', [JSON.stringify(job)]);
  const child = spawn(cmd, argv, { cwd: here, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let out = '';
  let err = '';
  let measureStart: { cpu: number | undefined; busy: number | undefined; t: bigint } | undefined;
  let serverCpu = NaN;
  let serverCpuSeconds = NaN;
  let machineCpu = NaN;
  let peakRss = NaN;
  let rssTimer: NodeJS.Timeout | undefined;
  const sampleRss = () => {
    const rss = rssBytes(serverPid);
    if (rss !== undefined) peakRss = Number.isNaN(peakRss) ? rss : Math.max(peakRss, rss);
  };
  let result = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    for (;;) {
      const nl = out.indexOf('\n');
      if (nl === -1) break;
      const line = out.slice(0, nl);
      out = out.slice(nl + 1);
      if (line === 'measure') {
        measureStart = { cpu: cpuSeconds(serverPid), busy: machineBusySeconds(), t: process.hrtime.bigint() };
        sampleRss();
        rssTimer = setInterval(sampleRss, 250);
      } else if (line.startsWith('{') && measureStart) {
        const cpu = cpuSeconds(serverPid);
        const busy = machineBusySeconds();
        clearInterval(rssTimer);
        sampleRss();
        const wall = Number(process.hrtime.bigint() - measureStart.t) / 1e9;
        if (measureStart.cpu !== undefined && cpu !== undefined) {
          serverCpuSeconds = cpu - measureStart.cpu;
          serverCpu = serverCpuSeconds / wall;
        }
        if (measureStart.busy !== undefined && busy !== undefined) machineCpu = (busy - measureStart.busy) / wall;
        result = line;
      }
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const limit = setTimeout(() => child.kill('SIGKILL'), (job.warmup + job.duration) * 2000 + 30_000);
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => {
      clearTimeout(limit);
      clearInterval(rssTimer);
      children.delete(child);
      try {
        if (code !== 0) throw new Error(`exit code ${code}`);
        const r = JSON.parse(result) as LoadResult;
        resolve({
          ...r,
          serverCpu,
          cpuPerRequest: (serverCpuSeconds / r.total) * 1e6,
          otherCpu: Math.max(0, machineCpu - serverCpu - r.cpu),
          peakRss,
        });
      } catch (e) {
        reject(new Error(`load generator failed (${String(e)}): ${err || out}`));
      }
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Correctness

interface Check {
  what: string;
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  /** Exact status, or 'client-error' for any 4xx. */
  status: number | 'client-error';
  json?: unknown;
}

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

async function checkServer(s: RunningServer): Promise<string[]> {
  const problems: string[] = [];
  for (const c of CHECKS) {
    const label = `${c.what} (${c.method} ${c.path})`;
    try {
      const res = await fetch(s.base + c.path, {
        method: c.method,
        headers: c.body === undefined ? {} : JSON_HEADERS,
        body: c.body === undefined ? undefined : JSON.stringify(c.body),
        signal: AbortSignal.timeout(5000),
      });
      const text = await res.text();
      const ok = c.status === 'client-error' ? res.status >= 400 && res.status < 500 : res.status === c.status;
      if (!ok) {
        problems.push(`${label}: status ${res.status}, expected ${c.status}; body ${text.slice(0, 300)}`);
        continue;
      }
      if (c.json === undefined) continue;
      const type = res.headers.get('content-type') ?? '';
      if (!type.includes('application/json')) problems.push(`${label}: content-type ${JSON.stringify(type)}`);
      let got: unknown;
      try {
        got = JSON.parse(text);
      } catch {
        problems.push(`${label}: body is not JSON: ${text.slice(0, 300)}`);
        continue;
      }
      if (!isDeepStrictEqual(got, c.json)) {
        problems.push(`${label}: body ${text.slice(0, 300)}, expected ${JSON.stringify(c.json)}`);
      }
    } catch (e) {
      problems.push(`${label}: request failed: ${String(e)}`);
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Reporting helpers

function median(xs: number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function versionOf(pkg: string): string {
  for (const base of [join(here, 'node_modules'), join(here, '..', 'node_modules')]) {
    const file = join(base, pkg, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  }
  return '?';
}

function cpuModel(): string {
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('model name'));
    if (line) return line.split(':')[1]!.trim();
  } catch {
    // not Linux
  }
  return cpus()[0]?.model ?? 'unknown';
}

function table(header: string[], rows: string[][], align: ('l' | 'r')[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const cell = (s: string, i: number) => (align[i] === 'r' ? s.padStart(widths[i]!) : s.padEnd(widths[i]!));
  const line = (r: string[]) => `| ${r.map(cell).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (align[i] === 'r' ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

const fmtInt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '—');
const fmtMs = (n: number) => (Number.isFinite(n) ? n.toFixed(n < 10 ? 2 : 1) : '—');
const fmtRatio = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '—');
const fmtPct = (n: number) => (Number.isFinite(n) ? `${Math.round(n * 100)}%` : '—');

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

// ---------------------------------------------------------------------------------------------
// Main

async function main(): Promise<number> {
  const started = new Date();
  const runs = frameworks.length * endpoints.length * settings.rounds;
  const estimate = Math.ceil((runs * (settings.warmup + settings.duration + 1.5)) / 60);
  process.stdout.write(
    `fnapi benchmark: ${frameworks.map((f) => f.name).join(', ')} × ${endpoints.map((e) => e.name).join(', ')}` +
      ` × ${settings.rounds} round(s); ${settings.warmup} s warm-up + ${settings.duration} s per run,` +
      ` ${settings.connections} connections, pipelining ${settings.pipelining}` +
      (pin ? '; server on CPU 1, load generator on CPU 0' : '; not pinned (no taskset or < 2 CPUs)') +
      (args['check-only'] ? '' : `; about ${estimate} min`) +
      '\n',
  );

  // Start every server once and check it before measuring anything.
  const checked: Framework[] = [];
  let failed = false;
  for (const fw of frameworks) {
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
    const problems = await checkServer(s);
    await stopServer(s);
    if (problems.length > 0) {
      failed = true;
      process.stderr.write(`✗ ${fw.name} (port ${s.port}) fails its correctness checks:\n`);
      for (const p of problems) process.stderr.write(`    - ${p}\n`);
      if (s.stderr()) process.stderr.write(`  server stderr:\n${s.stderr()}\n`);
    } else {
      checked.push(fw);
      process.stdout.write(`✓ ${fw.name} answers all ${CHECKS.length} checks\n`);
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
  interface Row {
    fw: Framework;
    ep: Endpoint;
    rps: number;
    min: number;
    max: number;
    p99: number;
    ratio: number;
    loadCpu: number;
    serverCpu: number;
    otherCpu: number;
    cpuPerRequest: number;
    cpuRatio: number;
    peakRss: number;
    bad: number;
  }
  const rows: Row[] = [];
  for (const ep of endpoints) {
    const agg = (fw: Framework) => {
      const list = samples.get(`${fw.name}/${ep.name}`) ?? [];
      return {
        rps: median(list.map((x) => x.rps)),
        min: Math.min(...list.map((x) => x.rps)),
        max: Math.max(...list.map((x) => x.rps)),
        p99: median(list.map((x) => x.p99)),
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

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    killAll();
    process.exitCode = 1;
  },
);
