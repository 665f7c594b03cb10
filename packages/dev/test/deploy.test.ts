/**
 * `fnapi deploy haproxy` in a real child process: the configuration names every instance and the
 * readiness check, and Debian's HAProxy accepts it (`haproxy -c`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
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
      if (haproxy || process.env.FNAPI_REQUIRE_SERVICES === '1') {
        const check = spawnSync(haproxy ?? 'haproxy', ['-c', '-f', file], { encoding: 'utf8' });
        expect(check.status, `${check.stdout}${check.stderr}`).toBe(0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

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
