// Child processes for the multi-instance test: a private redis-server (stopped and started by the
// test, never the shared one), chat instances, and HAProxy in front of them.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

export function haproxyPath(): string | undefined {
  return ['/usr/sbin/haproxy', '/usr/bin/haproxy', '/usr/local/sbin/haproxy'].find((p) => existsSync(p));
}

export function redisServerPath(): string | undefined {
  return ['/usr/bin/redis-server', '/usr/local/bin/redis-server', '/usr/sbin/redis-server'].find((p) => existsSync(p));
}

export class PrivateRedis {
  private child: ChildProcess | undefined;
  private readonly dir = mkdtempSync(join(tmpdir(), 'fnapi-chat-redis-'));
  constructor(readonly port: number) {}
  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }
  async start(): Promise<void> {
    const child = spawn(
      redisServerPath()!,
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.dir],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    this.child = child;
    await new Promise<void>((resolve, reject) => {
      child.once('error', reject);
      child.stdout!.on('data', (data: Buffer) => {
        if (data.toString().includes('Ready to accept connections')) resolve();
      });
    });
  }
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export interface Instance {
  child: ChildProcess;
  exited: Promise<number | null>;
}

/** Starts the chat's main.ts on `port`; resolves once it listens. */
export function startInstance(port: number, env: Record<string, string>): Promise<Instance> {
  const child = spawn(process.execPath, ['--conditions=@fnapi/source', '--import', 'tsx', join(here, '../src/main.ts')], {
    env: { ...process.env, ...env, FNAPI_LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (data: Buffer) => {
      if (data.toString().includes('fnapi listening')) resolve({ child, exited });
    });
    void exited.then((code) => reject(new Error(`chat instance on ${port} exited with ${code} before listening`)));
  });
}

/** HAProxy in front of `ports`, round robin, with WebSocket tunnels kept open. */
export async function startHaproxy(port: number, ports: number[]): Promise<{ url: string; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'fnapi-chat-haproxy-'));
  const config = join(dir, 'haproxy.cfg');
  writeFileSync(
    config,
    [
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 30s',
      '  timeout server 30s',
      // An upgraded connection is a tunnel: its idle time is this one.
      '  timeout tunnel 1h',
      'frontend web',
      `  bind 127.0.0.1:${port}`,
      '  default_backend chat',
      'backend chat',
      '  balance roundrobin',
      ...ports.map((p, i) => `  server chat${i + 1} 127.0.0.1:${p}`),
      '',
    ].join('\n'),
  );
  const child = spawn(haproxyPath()!, ['-db', '-f', config], { stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/asyncapi.json`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline || child.exitCode !== null) throw new Error('HAProxy did not start');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
