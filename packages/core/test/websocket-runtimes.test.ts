/**
 * The same WebSocket app on Bun and Deno (binaries from the `bun` and `deno` npm packages): a typed
 * echo through each runtime's own upgrade API, 1007 for a message that does not fit, 422 and 426 as
 * HTTP answers before any upgrade.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { REQUIRE_SERVICES, runtimeBinary } from '@fnapi/test-support';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';

const runtimes = { bun: runtimeBinary('bun'), deno: runtimeBinary('deno') };
for (const [name, path] of Object.entries(runtimes)) {
  if (path === undefined && REQUIRE_SERVICES)
    throw new Error(`FNAPI_REQUIRE_SERVICES=1 but the ${name} binary (npm package "${name}") is missing`);
}

let dir: string;
let bundle: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fnapi-ws-runtimes-'));
  bundle = join(dir, 'app.mjs');
  await build({
    entryPoints: [fileURLToPath(new URL('./fixtures/ws-runtime-app.ts', import.meta.url))],
    bundle: true,
    format: 'esm',
    platform: 'node',
    conditions: ['@fnapi/source'],
    outfile: bundle,
    logLevel: 'silent',
    // What only app.run needs: never loaded on these runtimes' fetch path.
    external: ['ws'],
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function serve(runtime: 'bun' | 'deno'): Promise<{ url: string; child: ChildProcess }> {
  const args = runtime === 'bun' ? [bundle] : ['run', '--allow-net', '--allow-env', '--allow-read', '--allow-sys', bundle];
  const child = spawn(runtimes[runtime]!, args, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, NO_COLOR: '1' } });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('{')) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`${runtime} exited with ${code}`)));
  });
  return { url, child };
}

function connect(url: string): Promise<{ socket: WebSocket; messages: unknown[]; closed: Promise<number> }> {
  const socket = new WebSocket(url);
  const messages: unknown[] = [];
  socket.on('message', (data) => messages.push(JSON.parse(String(data))));
  const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve({ socket, messages, closed }));
    socket.once('unexpected-response', (_req, res) => reject(Object.assign(new Error('refused'), { status: res.statusCode })));
    socket.once('error', reject);
  });
}

for (const runtime of ['bun', 'deno'] as const) {
  describe.skipIf(runtimes[runtime] === undefined)(`WebSockets on ${runtime}`, () => {
    let server: { url: string; child: ChildProcess };
    beforeAll(async () => {
      server = await serve(runtime);
    }, 30_000);
    afterAll(() => {
      server?.child.kill('SIGKILL');
    });

    it('echoes typed messages through the runtime’s upgrade API', async () => {
      const { socket, messages, closed } = await connect(`${server.url.replace('http', 'ws')}/echo/ada`);
      socket.send(JSON.stringify({ text: 'hello', extra: 1 }));
      socket.send(JSON.stringify({ text: 'again' }));
      await vi.waitUntil(() => messages.length >= 2, { timeout: 5000, interval: 10 });
      expect(messages).toEqual([
        { name: 'ada', text: 'hello' },
        { name: 'ada', text: 'again' },
      ]);
      socket.send('not json');
      expect(await closed).toBe(1007);
    });

    it("chooses the endpoint's subprotocol, refuses unlisted offers with 400, never echoes one", async () => {
      const base = server.url.replace('http', 'ws');
      const chosen = new WebSocket(`${base}/proto`, ['chat.v1', 'chat.v2']);
      const first = await new Promise<unknown>((resolve, reject) => {
        chosen.once('message', (data) => resolve(JSON.parse(String(data))));
        chosen.once('error', reject);
      });
      expect(chosen.protocol).toBe('chat.v2');
      expect(first).toEqual({ protocol: 'chat.v2' });
      chosen.close();
      const none = await connect(`${base}/proto`);
      await vi.waitUntil(() => none.messages.length >= 1, { timeout: 5000, interval: 10 });
      expect(none.socket.protocol).toBe('');
      expect(none.messages).toEqual([{ protocol: '' }]);
      none.socket.close();
      for (const [path, offer] of [
        ['/proto', ['chat', 'superchat']],
        ['/no-proto', ['chat', 'superchat']],
      ] as const) {
        const refused = await new Promise<number>((resolve, reject) => {
          const socket = new WebSocket(`${base}${path}`, [...offer]);
          socket.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
          socket.once('open', () => reject(new Error(`${path} opened with ${socket.protocol}`)));
          socket.once('error', reject);
        });
        expect(refused, path).toBe(400);
      }
    });

    it('refuses before upgrading: 422 for a bad parameter, 426 for a plain request', async () => {
      const refused = await connect(`${server.url.replace('http', 'ws')}/echo/far-too-long-name`).catch((e: { status?: number }) => e);
      expect((refused as { status?: number }).status).toBe(422);
      const plain = await fetch(`${server.url}/echo/ada`);
      expect(plain.status).toBe(426);
      expect(plain.headers.get('upgrade')).toBe('websocket');
    });
  });
}
