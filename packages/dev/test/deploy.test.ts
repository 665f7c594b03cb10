/**
 * `fnapi deploy haproxy` in a real child process: the configuration names every instance and the
 * readiness check, and Debian's HAProxy accepts it (`haproxy -c`).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { API } from '@fnapi/core';
import { freePort, until } from '@fnapi/test-support';
import { WebSocket } from 'undici';
import { describe, expect, it } from 'vitest';
import { haproxyConfig } from '../src/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '../src/cli.ts');
const env = { ...process.env, NODE_OPTIONS: '--conditions=@fnapi/source' };
const haproxy = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((p) => existsSync(p));

function fnapi(...args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', cli, ...args], { encoding: 'utf8', env, timeout: 30_000 });
}

describe('fnapi deploy haproxy', () => {
  it('writes a configuration with every instance and the readiness check, which HAProxy accepts', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fnapi-deploy-'));
    try {
      const file = join(dir, 'haproxy.cfg');
      const result = fnapi(
        'deploy',
        'haproxy',
        '--servers',
        '10.0.0.1:8000,10.0.0.2:8000,[::1]:8000',
        '--port',
        '9090',
        '--health',
        '/ready',
        '-o',
        file,
      );
      expect(result.status, result.stderr).toBe(0);
      const text = readFileSync(file, 'utf8');
      expect(text).toContain('  bind 127.0.0.1:9090');
      expect(text).toContain('  option httpchk GET /ready');
      expect(text).toContain('  server app1 10.0.0.1:8000');
      expect(text).toContain('  server app3 [::1]:8000');
      expect(text).toBe(haproxyConfig({ servers: ['10.0.0.1:8000', '10.0.0.2:8000', '[::1]:8000'], port: 9090, health: '/ready' }));
      // Long-lived connections: twice the 30 s heartbeat for client and server, an hour once upgraded.
      expect(text).toContain('  timeout client 60s\n  timeout server 60s\n  timeout tunnel 1h\n');
      if (haproxy || process.env.FNAPI_REQUIRE_SERVICES === '1') {
        const check = spawnSync(haproxy ?? 'haproxy', ['-c', '-f', file], { encoding: 'utf8' });
        expect(check.status, `${check.stdout}${check.stderr}`).toBe(0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('sets the timeouts from --heartbeat and --tunnel-timeout, which HAProxy accepts, and refuses milliseconds as seconds', () => {
    const result = fnapi('deploy', 'haproxy', '--heartbeat', '20', '--tunnel-timeout', '30m');
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('  timeout client 40s\n  timeout server 40s\n  timeout tunnel 30m\n');
    expect(haproxyConfig({ heartbeat: '250ms', tunnelTimeout: 90 })).toContain(
      '  timeout client 500ms\n  timeout server 500ms\n  timeout tunnel 90s\n',
    );
    expect(haproxyConfig({ checkInterval: '2s' })).toContain('check inter 2000ms fastinter 2000ms downinter 2000ms');
    if (haproxy) {
      const dir = mkdtempSync(join(tmpdir(), 'fnapi-deploy-'));
      try {
        const file = join(dir, 'haproxy.cfg');
        writeFileSync(file, result.stdout);
        const check = spawnSync(haproxy, ['-c', '-f', file], { encoding: 'utf8' });
        expect(check.status, `${check.stdout}${check.stderr}`).toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    const bad = fnapi('deploy', 'haproxy', '--heartbeat', '30000');
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("heartbeat is in seconds: 30000 s is over an hour (for milliseconds write '30000ms'");
  });

  it.skipIf(!haproxy)(
    'keeps an idle WebSocket open past the client/server timeouts, until the tunnel timeout',
    async () => {
      const app = new API({ logger: false });
      // No pings from the app: only HAProxy's timeouts decide how long an idle socket lives.
      app.get('/readyz', () => ({ ok: true }));
      app.ws('/echo', { heartbeat: 0 }, async (_input, socket) => {
        for await (const message of socket) await socket.send(message);
      });
      const server = await app.run({ host: '127.0.0.1', port: 0, handleSignals: false });
      const dir = mkdtempSync(join(tmpdir(), 'fnapi-deploy-'));
      const balancers: ChildProcess[] = [];
      const behind = async (tunnelTimeout: '1h' | '1s') => {
        const port = await freePort();
        const file = join(dir, `haproxy-${tunnelTimeout}.cfg`);
        // client/server 600 ms: an idle HTTP connection would be cut well before the checks below.
        writeFileSync(file, haproxyConfig({ port, servers: [`127.0.0.1:${server.port}`], heartbeat: '300ms', tunnelTimeout }));
        const child = spawn(haproxy!, ['-db', '-f', file], { stdio: 'ignore' });
        balancers.push(child);
        await until(async () => {
          try {
            // Up once HAProxy has seen the instance ready.
            return (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200;
          } catch {
            return false;
          }
        }, 10_000);
        return port;
      };
      const idleThenEcho = async (port: number, idleMs: number) => {
        const socket = new WebSocket(`ws://127.0.0.1:${port}/echo`);
        const events: string[] = [];
        socket.addEventListener('message', (event) => events.push(`message ${String(event.data)}`));
        const closed = new Promise<void>((resolve) => socket.addEventListener('close', () => resolve()));
        await new Promise<void>((resolve, reject) => {
          socket.addEventListener('open', () => resolve());
          socket.addEventListener('error', () => reject(new Error('the WebSocket did not open')));
        });
        await new Promise((resolve) => setTimeout(resolve, idleMs));
        if (socket.readyState === socket.OPEN) socket.send('"still here"');
        await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 1000))]);
        socket.close();
        return events;
      };
      try {
        // Idle for 2 s: over three times the client/server timeouts, within the tunnel's hour.
        expect(await idleThenEcho(await behind('1h'), 2000)).toEqual(['message "still here"']);
        // The same with a tunnel timeout of 1 s: HAProxy closes the idle socket.
        expect(await idleThenEcho(await behind('1s'), 2000)).toEqual([]);
      } finally {
        for (const child of balancers) child.kill('SIGKILL');
        await server.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
    60_000,
  );

  it('prints to stdout with defaults, and refuses a malformed server or an unknown target', () => {
    const result = fnapi('deploy', 'haproxy');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('  server app1 127.0.0.1:8001');
    expect(result.stdout).toContain('  option httpchk GET /readyz');
    const bad = fnapi('deploy', 'haproxy', '--servers', 'no-port');
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('a server is host:port, not "no-port"');
    const other = fnapi('deploy', 'nginx');
    expect(other.status).toBe(2);
    expect(other.stderr).toContain('deploy knows "haproxy"');
  });
});
