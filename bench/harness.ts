// What every benchmark script here shares: servers started as child processes (pinned to CPU 1
// where taskset exists), the load generator (load.ts, CPU 0) with the server's CPU time and memory
// read from /proc around the measured run, correctness checks, and the report's formatting.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import type { LoadJob, LoadResult } from './load.ts';

export const here = dirname(fileURLToPath(import.meta.url));

/** A server file in its own process; prints `{"port": N}` as its first line. */
export interface ServerSpec {
  name: string;
  label: string;
  file: string;
  /** Packages whose versions go into the report (read from their package.json). */
  packages: string[];
  /** Extra environment for the server process. */
  env?: Record<string, string>;
}

const options = { pin: false, source: false };

/** Pins (server on CPU 1, load on CPU 0) where taskset and two CPUs exist, unless told not to. */
export function configure(opts: { noPin?: boolean; source?: boolean }): { pin: boolean } {
  options.source = opts.source ?? false;
  options.pin =
    !opts.noPin &&
    process.platform === 'linux' &&
    cpus().length >= 2 &&
    spawnSync('taskset', ['-c', '0,1', 'true'], { stdio: 'ignore' }).status === 0;
  return { pin: options.pin };
}

/** node (+ tsx) command line, optionally behind `taskset -c <cpu>`. */
function command(cpu: number, script: string, scriptArgs: string[] = []): [string, string[]] {
  const nodeArgs = ['--import', 'tsx'];
  if (options.source) nodeArgs.push('--conditions=@fnapi/source');
  const argv = [...nodeArgs, join(here, script), ...scriptArgs];
  return options.pin ? ['taskset', ['-c', String(cpu), process.execPath, ...argv]] : [process.execPath, argv];
}

export interface RunningServer {
  fw: ServerSpec;
  child: ChildProcess;
  port: number;
  base: string;
  stderr: () => string;
}

const children = new Set<ChildProcess>();

export function killAll(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
}
process.on('exit', killAll);
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    killAll();
    process.exit(130);
  });
}

/** Runs a script's `main`: its result is the exit code; a throw is printed and stops every server. */
export function runMain(main: () => Promise<number>): void {
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
}

export function startServer(fw: ServerSpec): Promise<RunningServer> {
  const [cmd, argv] = command(1, fw.file);
  const child = spawn(cmd, argv, {
    cwd: here,
    env: { ...process.env, NODE_ENV: 'production', ...fw.env },
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

export function stopServer(s: RunningServer): Promise<void> {
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
export function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, USER_HZ = 100
  } catch {
    return undefined;
  }
}

export interface Sample extends LoadResult {
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
export function rssBytes(pid: number | undefined): number | undefined {
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
export function machineBusySeconds(): number | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    return (user! + nice! + system! + irq! + softirq! + (steal ?? 0)) / 100;
  } catch {
    return undefined;
  }
}

export function runLoad(job: LoadJob, serverPid: number | undefined): Promise<Sample> {
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

export interface Check {
  what: string;
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  /** Exact status, or 'client-error' for any 4xx. */
  status: number | 'client-error';
  json?: unknown;
}

export async function checkServer(s: RunningServer, checks: Check[]): Promise<string[]> {
  const problems: string[] = [];
  for (const c of checks) {
    const label = `${c.what} (${c.method} ${c.path})`;
    try {
      const res = await fetch(s.base + c.path, {
        method: c.method,
        headers: c.body === undefined ? {} : { 'content-type': 'application/json' },
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

export function median(xs: number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function versionOf(pkg: string): string {
  for (const base of [join(here, 'node_modules'), join(here, '..', 'node_modules')]) {
    const file = join(base, pkg, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  }
  return '?';
}

export function cpuModel(): string {
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

export function table(header: string[], rows: string[][], align: ('l' | 'r')[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const cell = (s: string, i: number) => (align[i] === 'r' ? s.padStart(widths[i]!) : s.padEnd(widths[i]!));
  const line = (r: string[]) => `| ${r.map(cell).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (align[i] === 'r' ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

export const fmtInt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '—');
export const fmtMs = (n: number) => (Number.isFinite(n) ? n.toFixed(n < 10 ? 2 : 1) : '—');
export const fmtRatio = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '—');
export const fmtPct = (n: number) => (Number.isFinite(n) ? `${Math.round(n * 100)}%` : '—');
