// Child processes for the multi-instance test: chat instances, and HAProxy in front of them (the
// private redis-server comes from the test support).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { vi } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));

export function haproxyPath(): string | undefined {
  return ['/usr/sbin/haproxy', '/usr/bin/haproxy', '/usr/local/sbin/haproxy'].find((p) => existsSync(p));
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
  await vi
    .waitUntil(
      async () => {
        if (child.exitCode !== null) throw new Error('HAProxy exited');
        return fetch(`http://127.0.0.1:${port}/asyncapi.json`).then(
          (res) => res.ok,
          () => false, // not listening yet
        );
      },
      { timeout: 10_000, interval: 50 },
    )
    .catch((error: unknown) => {
      throw new Error('HAProxy did not start', { cause: error });
    });
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
