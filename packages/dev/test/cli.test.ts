/**
 * The fnapi command in real child processes: `openapi` writes the document the app serves, `routes`
 * lists the endpoints, an entry without an API gets an error naming what it found, and `dev` serves
 * an edit within 2 s.
 */
import { spawn, spawnSync } from 'node:child_process';
import { type AddressInfo, createServer } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@fnapi/test-support';
import { afterAll, describe, expect, it } from 'vitest';
import { stop } from './child.js';
import { app } from './fixtures/app.js';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '../src/cli.ts');
const fixture = join(here, 'fixtures/app.ts');
const env = { ...process.env, NODE_OPTIONS: '--conditions=@fnapi/source', FNAPI_LOG_LEVEL: 'silent' };

function fnapi(...args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', cli, ...args], { encoding: 'utf8', env, timeout: 30_000 });
}

describe('fnapi openapi and routes', () => {
  it('writes the same document the app serves', async () => {
    const out = join(mkdtempSync(join(here, 'tmp-')), 'openapi.json');
    try {
      const result = fnapi('openapi', fixture, '-o', out);
      expect(result.status, result.stderr).toBe(0);
      const served = (await app.inject('/openapi.json')).json();
      expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(served);
      const stdout = fnapi('openapi', fixture);
      expect(JSON.parse(stdout.stdout)).toEqual(served);
    } finally {
      rmSync(dirname(out), { recursive: true, force: true });
    }
  });

  it('lists method, route and operationId', () => {
    const result = fnapi('routes', fixture);
    expect(result.status, result.stderr).toBe(0);
    expect(
      result.stdout
        .trim()
        .split('\n')
        .map((line) => line.split(/\s{2,}/)),
    ).toEqual([
      ['METHOD', 'ROUTE', 'OPERATION ID'],
      ['GET', '/hello/{name}', 'sayHello'],
      ['POST', '/items', 'createItem'],
    ]);
  });

  it("--deps prints each endpoint's dependencies as a tree", () => {
    const result = fnapi('routes', join(here, 'fixtures/deps-app.ts'), '--deps');
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout.trimEnd().split('\n')).toEqual([
      'METHOD  ROUTE    OPERATION ID',
      'POST    /orders  createOrder',
      '  ├─ audit (request) [app]',
      '  ├─ ordersOnly (request, not cached) [router]',
      '  ├─ tx (call) as tx',
      '  │  └─ db (app) as db',
      '  │     └─ settings (app) as settings',
      '  └─ currentUser (request) as user',
      '     └─ db (app) as db',
      '        └─ settings (app) as settings',
      'GET     /health  health',
      '  └─ audit (request) [app]',
    ]);
  });

  it('names what an entry without an API exports', () => {
    const result = fnapi('routes', join(here, 'fixtures/not-an-app.ts'));
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('exports no API');
    expect(result.stderr).toContain('found default (function), router (Object)');
  });

  it('worker: an app with no jobs attached is an error naming the fix', () => {
    const result = fnapi('worker', fixture);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('the app has no jobs; define them with @fnapi/jobs and call jobs.attach(app)');
  });

  it('explains its usage', () => {
    expect(fnapi('frobnicate', fixture).stderr).toContain('unknown command "frobnicate"');
    expect(fnapi('--help').stdout).toContain('fnapi dev <entry>');
  });
});

describe('fnapi dev', () => {
  const dir = mkdtempSync(join(here, 'tmp-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // A timing on a shared 2-core machine: retried, so one busy moment does not fail the suite.
  it('serves the app and serves an edited imported file within 2 s', { retry: 2 }, async () => {
    writeFileSync(join(dir, 'version.ts'), `export const version = 'v1';\n`);
    writeFileSync(
      join(dir, 'app.ts'),
      `import { API } from '@fnapi/core';\nimport { version } from './version.js';\nconst app = new API({ logger: false });\napp.get('/version', () => ({ version }));\nexport default app;\n`,
    );
    const port = await freePort();
    let output = '';
    const child = spawn(process.execPath, ['--import', 'tsx', cli, 'dev', join(dir, 'app.ts')], {
      env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const url = `http://127.0.0.1:${port}/version`;
    const version = async () => {
      try {
        return ((await (await fetch(url)).json()) as { version: string }).version;
      } catch {
        return undefined;
      }
    };
    try {
      await expect.poll(version, { timeout: 20_000, interval: 100 }).toBe('v1');
      expect(output).toContain(`docs at http://127.0.0.1:${port}/docs`);

      writeFileSync(join(dir, 'version.ts'), `export const version = 'v2';\n`);
      const edited = performance.now();
      await expect.poll(version, { timeout: 5000, interval: 50 }).toBe('v2');
      expect(performance.now() - edited).toBeLessThan(2000);
    } finally {
      await stop(child);
    }
  });

  it('serves on --host/--port, which win over HOST/PORT', async () => {
    const port = await freePort();
    const other = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', cli, 'dev', fixture, '--host', '127.0.0.1', '--port', String(port)], {
      env: { ...env, PORT: String(other), HOST: '0.0.0.0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    try {
      const status = async () => {
        try {
          return (await fetch(`http://127.0.0.1:${port}/hello/ada`)).status;
        } catch {
          return 0;
        }
      };
      await expect.poll(status, { timeout: 20_000, interval: 100 }).toBe(200);
      expect(output).toContain(`on http://127.0.0.1:${port}`);
    } finally {
      await stop(child);
    }
  });

  it('prints one line and exits non-zero when the port is in use', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as AddressInfo).port;
    try {
      const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ['--import', 'tsx', cli, 'dev', fixture, '--port', String(port)], {
          env: { ...env, HOST: '127.0.0.1' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stderr = '';
        child.stderr!.on('data', (d) => (stderr += d));
        child.on('exit', (code) => resolve({ code, stderr }));
      });
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toContain(`Port ${port} on 127.0.0.1 is already in use`);
      expect(result.stderr).toContain('--port');
      expect(result.stderr).not.toMatch(/^\s+at /m);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it('refuses a port that is not a number', () => {
    const result = fnapi('dev', fixture, '--port', 'http');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('the port must be a whole number from 0 to 65535, got "http" (--port)');
  });
});
