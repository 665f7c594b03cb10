/**
 * WebSocket subprotocols on Workers (workerd through miniflare, the app bundled as wrangler does):
 * the endpoint's first choice among the client's offers in the 101 and as `socket.protocol`, 400
 * before the upgrade for an offer of only unlisted ones (and for any offer to an endpoint without
 * `protocols`), no header when none is offered.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadMiniflare } from '@fnapi/test-support';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type Worker = InstanceType<Awaited<ReturnType<typeof loadMiniflare>>['Miniflare']>;
let worker: Worker;
const dir = mkdtempSync(join(tmpdir(), 'fnapi-ws-workers-'));

beforeAll(async () => {
  const outfile = join(dir, 'worker.mjs');
  await build({
    entryPoints: [fileURLToPath(new URL('./fixtures/ws-worker-app.ts', import.meta.url))],
    outfile,
    bundle: true,
    format: 'esm',
    logLevel: 'error',
    conditions: ['@fnapi/source', 'workerd', 'worker', 'browser'],
    platform: 'neutral',
    mainFields: ['browser', 'module', 'main'],
    target: 'es2022',
  });
  const { Miniflare } = await loadMiniflare();
  worker = new Miniflare({ modules: true, script: readFileSync(outfile, 'utf8'), compatibilityDate: '2025-09-01' });
}, 60_000);
afterAll(async () => {
  await worker?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

async function open(path: string, offer?: string) {
  const headers: Record<string, string> = { upgrade: 'websocket' };
  if (offer !== undefined) headers['sec-websocket-protocol'] = offer;
  const response = await worker.dispatchFetch(`http://localhost${path}`, { headers });
  const socket = response.webSocket;
  if (socket === null)
    return { status: response.status, protocol: response.headers.get('sec-websocket-protocol'), body: await response.text() };
  socket.accept();
  const first = await new Promise<string>((resolve) => socket.addEventListener('message', (event) => resolve(String(event.data))));
  socket.close();
  return { status: response.status, protocol: response.headers.get('sec-websocket-protocol'), body: first };
}

describe('WebSocket subprotocols on Workers', () => {
  it("chooses the endpoint's first protocol the client offers", async () => {
    expect(await open('/proto', 'chat.v1, chat.v2')).toEqual({ status: 101, protocol: 'chat.v2', body: '{"protocol":"chat.v2"}' });
    expect(await open('/proto', 'superchat, chat.v1')).toEqual({ status: 101, protocol: 'chat.v1', body: '{"protocol":"chat.v1"}' });
  });

  it('accepts no offer without the header', async () => {
    expect(await open('/proto')).toEqual({ status: 101, protocol: null, body: '{"protocol":""}' });
  });

  it('refuses an offer of only unlisted protocols, and any offer to an endpoint without protocols, with 400', async () => {
    const refused = await open('/proto', 'chat, superchat');
    expect(refused.status).toBe(400);
    expect(refused.protocol).toBeNull();
    expect(JSON.parse(refused.body)).toMatchObject({ status: 400, details: { accepted: ['chat.v2', 'chat.v1'] } });
    const plain = await open('/plain', 'chat');
    expect(plain.status).toBe(400);
    expect(plain.protocol).toBeNull();
  });
});
