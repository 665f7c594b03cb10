/**
 * The Workers example as a user ships it: `wrangler deploy --dry-run` bundles it (no nodejs_compat,
 * offline), the bundle runs on workerd with its bindings (a var and KV), and `wrangler dev` serves it.
 * wrangler resolves the packages' builds, as a user's install does: run `pnpm build` first (CI does).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadMiniflare } from '@fnapi/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const wrangler = join(root, 'node_modules/.bin/wrangler');
const dir = mkdtempSync(join(tmpdir(), 'fnapi-workers-'));
const env = { ...process.env, WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1', CI: 'true' };

type Send = (path: string, init?: RequestInit) => Promise<globalThis.Response>;

let script = '';
let dispose: (() => Promise<void>) | undefined;
let send: Send;

beforeAll(async () => {
  const result = spawnSync(wrangler, ['deploy', '--dry-run', '--outdir', dir], { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) throw new Error(`wrangler deploy --dry-run failed:\n${result.stdout}\n${result.stderr}`);
  script = readFileSync(join(dir, 'index.js'), 'utf8');
  const { Miniflare } = await loadMiniflare();
  const worker = new Miniflare({
    modules: true,
    script,
    compatibilityDate: '2025-09-01',
    bindings: { GREETING: 'Hello' },
    kvNamespaces: ['VISITS'],
  });
  dispose = () => worker.dispose();
  send = (path, init) => worker.dispatchFetch(`http://example.test${path}`, init as never) as unknown as Promise<globalThis.Response>;
}, 90_000);

afterAll(async () => {
  await dispose?.();
  rmSync(dir, { recursive: true, force: true });
});

describe('the Worker bundle (wrangler deploy --dry-run)', () => {
  it('needs no Node built-in: no nodejs_compat flag, no node: import', () => {
    const config = readFileSync(join(root, 'wrangler.jsonc'), 'utf8');
    expect(config).not.toMatch(/"compatibility_flags"/);
    expect(script).not.toMatch(/from\s*["']node:/);
    expect(script).not.toMatch(/require\(["']node:/);
  });

  it('answers through the bindings: a var and KV, with the write handed to waitUntil', async () => {
    expect(await (await send('/hello/Ada')).json()).toEqual({ message: 'Hello, Ada!', runtime: 'workerd' });
    expect((await send('/visits/home')).status).toBe(404);
    expect(await (await send('/visits/home', { method: 'POST' })).json()).toEqual({ page: 'home', count: 1 });
    await expect.poll(async () => (await send('/visits/home')).status, { timeout: 5000, interval: 50 }).toBe(200);
    expect(await (await send('/visits/home', { method: 'POST' })).json()).toEqual({ page: 'home', count: 2 });
  });

  it('validates, and answers 404 and 422 as everywhere', async () => {
    expect((await send(`/hello/${'x'.repeat(41)}`)).status).toBe(422);
    expect((await send('/nowhere')).status).toBe(404);
  });

  it('takes an upload in memory', async () => {
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
    const form = new FormData();
    form.append('avatar', new Blob([png], { type: 'image/png' }), 'me.png');
    const encoded = new globalThis.Response(form);
    const response = await send('/avatar', {
      method: 'POST',
      headers: { 'content-type': encoded.headers.get('content-type')! },
      body: new Uint8Array(await encoded.arrayBuffer()),
    });
    expect(await response.json()).toEqual({ name: 'me.png', type: 'image/png', size: 16 });
  });

  it('serves /docs with Swagger UI from the CDN, pinned by Subresource Integrity', async () => {
    const page = await (await send('/docs')).text();
    expect(page).toMatch(
      /<script src="https:\/\/cdn\.jsdelivr\.net\/npm\/swagger-ui-dist@[\d.]+\/swagger-ui-bundle\.js" integrity="sha384-[A-Za-z0-9+/=]+" crossorigin="anonymous"><\/script>/,
    );
    expect(page).toMatch(/<link rel="stylesheet" href="https:\/\/cdn\.jsdelivr\.net\/[^"]+swagger-ui\.css" integrity="sha384-/);
    const redoc = await (await send('/redoc')).text();
    expect(redoc).toMatch(/redoc\.standalone\.js" integrity="sha384-[^"]+" crossorigin="anonymous"/);
    const document = (await (await send('/openapi.json')).json()) as { info: { title: string } };
    expect(document.info.title).toBe('fnapi on Workers');
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('wrangler dev', () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    if (child?.pid) child.kill('SIGTERM');
  });

  it('serves the example offline', async () => {
    const [port, inspector] = [await freePort(), await freePort()];
    const state = join(dir, 'state');
    child = spawn(
      wrangler,
      [
        'dev',
        '--ip',
        '127.0.0.1',
        '--port',
        String(port),
        '--inspector-port',
        String(inspector),
        '--persist-to',
        state,
        '--log-level',
        'info',
      ],
      { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    await expect.poll(() => output, { timeout: 25_000, interval: 100 }).toContain('Ready on');
    const response = await fetch(`http://127.0.0.1:${port}/hello/Grace`);
    expect(await response.json()).toEqual({ message: 'Hello, Grace!', runtime: 'workerd' });
  }, 40_000);
});
