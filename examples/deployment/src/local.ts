// Runs the deployment on this machine: instances of the app as child processes behind a real
// HAProxy, load driven through it, instances restarted one at a time. Used by the test and by
// `pnpm loadtest`.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { haproxyConfig } from './haproxy.js';
import type { Duration } from '@fnapi/core';

const here = dirname(fileURLToPath(import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Debian installs HAProxy in /usr/sbin, which is not on every user's PATH. */
export function haproxyPath(): string | undefined {
  return ['/usr/sbin/haproxy', '/usr/bin/haproxy', '/usr/local/sbin/haproxy'].find((p) => existsSync(p));
}

export interface Instance {
  port: number;
  child: ChildProcess;
  exited: Promise<number | null>;
  /** Every JSON log line written so far. */
  lines: Record<string, unknown>[];
}

/** Starts one instance on `port`; resolves once it listens. */
export function startInstance(port: number, env: Record<string, string>): Promise<Instance> {
  const child = spawn(process.execPath, ['--conditions=@fnapi/source', '--import', 'tsx', join(here, 'main.ts')], {
    // info: the "listening" line is how the start is seen.
    env: { ...process.env, ...env, FNAPI_LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const lines: Record<string, unknown>[] = [];
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (data: Buffer) => {
      buffer += data;
      for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
        const text = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        try {
          const line = JSON.parse(text) as Record<string, unknown>;
          lines.push(line);
          if (typeof line.msg === 'string' && line.msg.startsWith('fnapi listening')) resolve({ port, child, exited, lines });
        } catch {
          // not a log line
        }
      }
    });
    void exited.then((code) => reject(new Error(`instance on port ${port} exited with ${code} before listening`)));
  });
}

export interface Balancer {
  url: string;
  child: ChildProcess;
  /** Each instance's state as HAProxy sees it (`UP`, `DOWN`, `UP 1/2`, …), by port. */
  states(): Promise<Map<number, string>>;
  /** Resolves once HAProxy sees the instance on `port` in `state` (`UP` or `DOWN`). */
  waitFor(port: number, state: 'UP' | 'DOWN', timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** Starts HAProxy in front of `ports`, with a generated configuration in a temporary directory. */
export async function startBalancer(port: number, statsPort: number, ports: number[], checkInterval: Duration): Promise<Balancer> {
  const binary = haproxyPath();
  if (binary === undefined) throw new Error('HAProxy is not installed (apt-get install haproxy)');
  const dir = mkdtempSync(join(tmpdir(), 'fnapi-haproxy-'));
  const config = join(dir, 'haproxy.cfg');
  writeFileSync(config, haproxyConfig({ port, statsPort, checkInterval, servers: ports.map((p) => `127.0.0.1:${p}`) }));
  const child = spawn(binary, ['-db', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stats = new Agent({ connections: 1 });
  const states = async () => {
    const res = await request(`http://127.0.0.1:${statsPort}/stats;csv`, { dispatcher: stats });
    const text = await res.body.text();
    const [header, ...rows] = text.replace(/^# /, '').trim().split('\n');
    const columns = header!.split(',');
    const out = new Map<number, string>();
    for (const row of rows) {
      const cells = row.split(',');
      const record = Object.fromEntries(columns.map((c, i) => [c, cells[i]]));
      const server = ports[Number(/^app(\d+)$/.exec(record.svname ?? '')?.[1]) - 1];
      if (record.pxname === 'app' && server !== undefined) out.set(server, record.status ?? '');
    }
    return out;
  };
  const waitFor = async (server: number, state: 'UP' | 'DOWN', timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const now = (await states().catch(() => new Map<number, string>())).get(server);
      if (now === state) return;
      if (Date.now() > deadline) throw new Error(`HAProxy saw port ${server} as ${now}, not ${state}, after ${timeoutMs} ms\n${stderr}`);
      await sleep(50);
    }
  };
  // Listening once the stats page answers.
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`haproxy exited: ${stderr}`);
    try {
      await states();
      break;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(50);
    }
  }
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    states,
    waitFor,
    async stop() {
      await stats.close();
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface LoadReport {
  sent: number;
  /** Answers by status. */
  statuses: Record<number, number>;
  /** Requests that did not end in a 200: transport errors and other statuses (first few kept). */
  failed: number;
  failures: string[];
  /** Instances (pids) that answered. */
  pids: Set<number>;
}

/** Drives `concurrency` keep-alive loops of GETs over `paths` through `url` until `stop()`. */
export function driveLoad(url: string, paths: string[], concurrency: number): { stop(): Promise<LoadReport> } {
  const agent = new Agent({ connections: concurrency, keepAliveTimeout: 5_000 });
  const report: LoadReport = { sent: 0, statuses: {}, failed: 0, failures: [], pids: new Set() };
  let running = true;
  const loop = async (worker: number) => {
    for (let i = worker; running; i++) {
      const path = paths[i % paths.length]!;
      report.sent++;
      try {
        const res = await request(`${url}${path}`, { dispatcher: agent });
        const text = await res.body.text();
        report.statuses[res.statusCode] = (report.statuses[res.statusCode] ?? 0) + 1;
        if (res.statusCode !== 200) {
          report.failed++;
          if (report.failures.length < 10) report.failures.push(`${path}: ${res.statusCode} ${text.slice(0, 200)}`);
        } else {
          const pid = /"pid":(\d+)/.exec(text)?.[1];
          if (pid) report.pids.add(Number(pid));
        }
      } catch (error) {
        report.failed++;
        if (report.failures.length < 10) report.failures.push(`${path}: ${(error as Error).message}`);
      }
    }
  };
  const loops = Array.from({ length: concurrency }, (_, i) => loop(i));
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      await agent.close();
      return report;
    },
  };
}

/**
 * Restarts each instance in turn as an orchestrator would: SIGTERM, wait for it to exit (after
 * `shutdownDelay` and the drain), start it again on the same port, wait until HAProxy has it back.
 * Returns the restarted instances and each one's exit code.
 */
export async function rollingRestart(
  balancer: Balancer,
  instances: Instance[],
  env: Record<string, string>,
): Promise<{ instances: Instance[]; exitCodes: (number | null)[] }> {
  const next: Instance[] = [];
  const exitCodes: (number | null)[] = [];
  for (const instance of instances) {
    instance.child.kill('SIGTERM');
    await balancer.waitFor(instance.port, 'DOWN');
    exitCodes.push(await instance.exited);
    const fresh = await startInstance(instance.port, env);
    await balancer.waitFor(instance.port, 'UP');
    next.push(fresh);
  }
  return { instances: next, exitCodes };
}

/** Sends `count` GETs to `path`, one at a time on fresh connections (so HAProxy spreads them); tallies statuses and pids. */
export async function sendEach(url: string, path: string, count: number): Promise<{ statuses: Record<number, number>; pids: Set<number> }> {
  const statuses: Record<number, number> = {};
  const pids = new Set<number>();
  for (let i = 0; i < count; i++) {
    const agent = new Agent({ connections: 1 });
    try {
      const res = await request(`${url}${path}`, { dispatcher: agent, headers: { connection: 'close' } });
      const text = await res.body.text();
      statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      const pid = /"pid":(\d+)/.exec(text)?.[1];
      if (pid) pids.add(Number(pid));
    } finally {
      await agent.close();
    }
  }
  return { statuses, pids };
}
