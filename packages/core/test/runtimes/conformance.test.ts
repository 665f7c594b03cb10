/**
 * One app, one list of requests, four runtimes: Node (node:http), Bun (`bun` serving the module's
 * default export), Deno (`deno serve` of the module's default export) and workerd (the default export
 * as a Workers module, bundled as wrangler does it, without nodejs_compat) — the real runtimes from the npm registry. Every answer's
 * status, content type, chosen headers and body must equal Node's. Each runtime starts once.
 *
 * Adding a case is one entry in CASES.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { loadMiniflare, runtimeAvailable, runtimeBinary } from '@fnapi/test-support';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '@fnapi/auth';
import app from './app.js';
import { JWT_SECRET } from './secret.js';

interface Case {
  name: string;
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: () => BodyInit;
  /** Text each JavaScript engine words its own way (a JSON.parse message), blanked before comparing. */
  engineText?: RegExp;
}

const PNG = Uint8Array.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0,
]);

function form(parts: [string, string | [Uint8Array, string, string]][]): () => FormData {
  return () => {
    const data = new FormData();
    for (const [name, value] of parts) {
      if (typeof value === 'string') data.append(name, value);
      else data.append(name, new Blob([value[0] as Uint8Array<ArrayBuffer>], { type: value[2] }), value[1]);
    }
    return data;
  };
}

const json = (value: unknown) => () => JSON.stringify(value);
// Fixed claims and no expiry, so every runtime verifies the very same token.
const TOKEN = await createToken({ sub: 'ada', iat: 1_700_000_000 }, { secret: JWT_SECRET, algorithm: 'HS256', expiresIn: null });
const BAD_TOKEN = `${TOKEN.slice(0, -2)}xx`;
const JSON_HEADERS = { 'content-type': 'application/json' };
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const MCP_LEGACY = { ...MCP_HEADERS, 'mcp-protocol-version': '2025-11-25' };
const MCP_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'conformance', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const rpc = (method: string, params: unknown) => ({ jsonrpc: '2.0', id: 1, method, params });

export const CASES: Case[] = [
  { name: 'path and query parameters', path: '/items/42?q=shoe&limit=5' },
  { name: 'defaults applied', path: '/items/7' },
  { name: 'a path parameter of the wrong type is 422', path: '/items/abc' },
  { name: 'a query parameter past its maximum is 422', path: '/items/1?limit=1000' },
  { name: 'an unknown route is 404', path: '/nowhere' },
  { name: 'a wrong method is 405', method: 'DELETE', path: '/items/1' },
  { name: 'a trailing slash redirects (308)', path: '/items/1/?q=a' },
  { name: 'an HTTPError keeps its status', path: '/teapot' },
  { name: 'a string answer is UTF-8 text', path: '/text' },
  { name: 'an unexpected error is a 500 without details', path: '/crash' },
  { name: 'a validated JSON body', method: 'POST', path: '/items', headers: JSON_HEADERS, body: json({ name: 'Hat', price: 9.5 }) },
  { name: 'an invalid JSON body is 422', method: 'POST', path: '/items', headers: JSON_HEADERS, body: json({ name: '', price: -1 }) },
  {
    name: 'malformed JSON is 400',
    method: 'POST',
    path: '/items',
    headers: JSON_HEADERS,
    body: () => '{"name": ',
    engineText: /(?<=Malformed JSON body: )[^"]*/,
  },
  {
    name: 'a body past bodyLimit is 413',
    method: 'POST',
    path: '/items',
    headers: JSON_HEADERS,
    body: json({ name: 'x'.repeat(4000), price: 1 }),
  },
  { name: 'JSON to an upload endpoint is 415', method: 'POST', path: '/upload', headers: JSON_HEADERS, body: json({ doc: 'x' }) },
  {
    name: 'an upload',
    method: 'POST',
    path: '/upload',
    body: form([
      ['doc', [PNG, 'dot.png', 'image/png']],
      ['caption', 'a dot'],
    ]),
  },
  {
    name: 'an upload whose content type is not accepted is 422',
    method: 'POST',
    path: '/upload',
    body: form([['doc', [PNG.subarray(8), 'x.bin', 'application/octet-stream']]]),
  },
  {
    name: 'an upload past bodyLimit but within uploadLimit',
    method: 'POST',
    path: '/upload',
    body: form([['doc', [new TextEncoder().encode('line of text\n'.repeat(400)), 'notes.txt', 'text/plain']]]),
  },
  {
    name: 'an upload past the file size is 413',
    method: 'POST',
    path: '/upload',
    body: form([['doc', [new Uint8Array(9000), 'big.txt', 'text/plain']]]),
  },
  { name: 'a missing file is 422', method: 'POST', path: '/upload', body: form([['caption', 'no file']]) },
  { name: 'an event stream', path: '/ticks?count=3' },
  { name: 'an event stream with invalid parameters is 422', path: '/ticks?count=99' },
  { name: 'the OpenAPI document', path: '/openapi.json' },
  { name: 'Swagger UI', path: '/docs' },
  { name: 'a JWT guard without a token is 401', path: '/secure/jwt' },
  { name: 'a JWT guard with a bad signature is 401', path: '/secure/jwt', headers: { authorization: `Bearer ${BAD_TOKEN}` } },
  { name: 'a JWT guard with a valid token', path: '/secure/jwt', headers: { authorization: `Bearer ${TOKEN}` } },
  { name: 'an API key guard', path: '/secure/key', headers: { 'x-api-key': 'key-1' } },
  { name: 'a wrong API key is 401', path: '/secure/key', headers: { 'x-api-key': 'key-2' } },
  { name: 'Basic credentials', path: '/secure/basic', headers: { authorization: `Basic ${btoa('ada:lovelace')}` } },
  {
    name: 'a CORS preflight',
    method: 'OPTIONS',
    path: '/items/1',
    headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' },
  },
  { name: 'ReDoc', path: '/redoc' },
  { name: 'bytes through the cache middleware (computed)', path: '/stored/bytes' },
  { name: 'bytes through the cache middleware (stored)', path: '/stored/bytes' },
  { name: 'MCP tools/list (2025-11-25)', method: 'POST', path: '/mcp', headers: MCP_LEGACY, body: json(rpc('tools/list', {})) },
  {
    name: 'MCP tools/call (2026-07-28)',
    method: 'POST',
    path: '/mcp',
    headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'getBook' },
    body: json(rpc('tools/call', { name: 'getBook', arguments: { id: 7 }, _meta: MCP_META })),
  },
  {
    name: 'MCP tools/call with a bad argument is isError (422)',
    method: 'POST',
    path: '/mcp',
    headers: MCP_LEGACY,
    body: json(rpc('tools/call', { name: 'getBook', arguments: { id: 1000 } })),
  },
  { name: 'MCP malformed JSON is a JSON-RPC error', method: 'POST', path: '/mcp', headers: MCP_LEGACY, body: () => '{"jsonrpc": ' },
  { name: 'MCP GET is 405', path: '/mcp', headers: { accept: 'text/event-stream', 'mcp-protocol-version': '2025-11-25' } },
];

/** Headers compared besides the content type (the rest — date, length, connection — are the transport's). */
const COMPARED_HEADERS = [
  'location',
  'cache-control',
  'x-request-id',
  'allow',
  'content-security-policy',
  'x-accel-buffering',
  'www-authenticate',
  'access-control-allow-origin',
  'access-control-allow-methods',
  'vary',
];

interface Answer {
  status: number;
  headers: Record<string, string | null>;
  body: string;
}

type Send = (path: string, init: RequestInit) => Promise<globalThis.Response>;

async function ask(send: Send, entry: Case): Promise<Answer> {
  const headers: Record<string, string> = { 'x-request-id': `case-${CASES.indexOf(entry)}`, ...entry.headers };
  let body: Uint8Array<ArrayBuffer> | undefined;
  if (entry.body !== undefined) {
    // Encoded once here (a form with its boundary), so every runtime receives the same bytes.
    const encoded = new globalThis.Response(entry.body());
    body = new Uint8Array(await encoded.arrayBuffer());
    headers['content-type'] ??= encoded.headers.get('content-type')!;
  }
  const response = await send(entry.path, { method: entry.method ?? 'GET', headers, body, redirect: 'manual' });
  const seen: Record<string, string | null> = { 'content-type': response.headers.get('content-type') };
  for (const name of COMPARED_HEADERS) seen[name] = response.headers.get(name);
  const text = await response.text();
  return { status: response.status, headers: seen, body: entry.engineText ? text.replace(entry.engineText, '…') : text };
}

const here = fileURLToPath(new URL('.', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'fnapi-runtimes-'));

/** Bundles `entry` as a user's build would: for Workers as wrangler does (esbuild, no Node built-ins). */
async function bundle(entry: string, outfile: string, target: 'node' | 'workerd'): Promise<string> {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'esm',
    logLevel: 'error',
    conditions: target === 'workerd' ? ['@fnapi/source', 'workerd', 'worker', 'browser'] : ['@fnapi/source'],
    ...(target === 'workerd'
      ? { platform: 'neutral', mainFields: ['browser', 'module', 'main'], target: 'es2022' }
      : {
          platform: 'node',
          target: 'node20',
          banner: {
            js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
          },
        }),
  });
  return outfile;
}

/** Starts a child that prints the port it listens on; resolves with a sender for it. */
function startChild(
  command: string,
  args: string[],
  pattern: RegExp,
  children: ChildProcess[],
  env: Record<string, string> = {},
): Promise<Send> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', ...env } });
    children.push(child);
    let output = '';
    const timer = setTimeout(() => reject(new Error(`${command} did not start within 20 s:\n${output}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = pattern.exec(output);
      if (match) {
        clearTimeout(timer);
        const base = `http://127.0.0.1:${match[1]}`;
        resolve((path, init) => fetch(base + path, init));
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited with ${code}:\n${output}`));
    });
  });
}

const children: ChildProcess[] = [];
const senders: Record<string, Send> = {};
let nodeAnswers: Answer[] = [];
let workerLog = '';
let closeNode: (() => Promise<void>) | undefined;
let disposeWorker: (() => Promise<void>) | undefined;

const hasBun = runtimeAvailable('bun', 'the runtime conformance test');
const hasDeno = runtimeAvailable('deno', 'the runtime conformance test');

beforeAll(async () => {
  const server = await app.run({ port: 0, handleSignals: false });
  closeNode = server.close;
  senders.node = (path, init) => fetch(server.url + path, init);
  nodeAnswers = [];
  for (const entry of CASES) nodeAnswers.push(await ask(senders.node, entry));

  const appEntry = join(here, 'app.ts');
  const [bunBundle, denoBundle, workerBundle] = await Promise.all([
    hasBun ? bundle(appEntry, join(dir, 'bun.mjs'), 'node') : undefined,
    hasDeno ? bundle(appEntry, join(dir, 'deno.mjs'), 'node') : undefined,
    bundle(appEntry, join(dir, 'worker.mjs'), 'workerd'),
  ]);
  const starting: Promise<void>[] = [];
  if (bunBundle)
    // `bun <module>` serves the module's default export (the app) on $PORT.
    starting.push(
      startChild(runtimeBinary('bun')!, [bunBundle], /server: https?:\/\/[^:]+:(\d+)/, children, { PORT: '0' }).then(
        (send) => void (senders.bun = send),
      ),
    );
  if (denoBundle)
    starting.push(
      startChild(
        runtimeBinary('deno')!,
        ['serve', '-A', '--host', '127.0.0.1', '--port', '0', denoBundle],
        /Listening on https?:\/\/[^:]+:(\d+)/,
        children,
      ).then((send) => void (senders.deno = send)),
    );
  const { Miniflare } = await loadMiniflare();
  const worker = new Miniflare({
    handleRuntimeStdio(stdout: Readable, stderr: Readable) {
      stdout.on('data', (chunk: Buffer) => void (workerLog += chunk.toString()));
      stderr.on('data', (chunk: Buffer) => void (workerLog += chunk.toString()));
    },
    modules: true,
    script: readFileSync(workerBundle!, 'utf8'),
    compatibilityDate: '2025-09-01',
    bindings: { GREETING: 'hello from a binding' },
    kvNamespaces: ['KV'],
  });
  disposeWorker = () => worker.dispose();
  senders.workerd = (path, init) =>
    worker.dispatchFetch(`http://127.0.0.1${path}`, init as never) as unknown as Promise<globalThis.Response>;
  await Promise.all(starting);
}, 60_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await disposeWorker?.();
  await closeNode?.();
  rmSync(dir, { recursive: true, force: true });
});

const RUNTIMES = [
  { name: 'bun', available: hasBun },
  { name: 'deno', available: hasDeno },
  { name: 'workerd', available: true },
];

describe.each(RUNTIMES)('$name answers as Node does', ({ name, available }) => {
  it.skipIf(!available)('every case: status, content type, headers and body', async () => {
    const send = senders[name]!;
    for (const [index, entry] of CASES.entries()) {
      const answer = await ask(send, entry).catch((error: unknown) => {
        throw new Error(`${name}: "${entry.name}" failed`, { cause: error });
      });
      expect({ case: entry.name, ...answer }).toEqual({ case: entry.name, ...nodeAnswers[index] });
    }
  });

  it.skipIf(!available)('request.platform names the runtime; waitUntil work outlives the answer', async () => {
    const send = senders[name]!;
    expect(await (await send('/signal/watch', {})).json()).toEqual({ watching: true });
    // A window in which a signal aborted after a successful answer would show.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await (await send('/signal/aborted', {})).json()).toEqual({ aborted: 0 });
    const platform = (await (await send('/platform', {})).json()) as Record<string, unknown>;
    expect(platform.runtime).toBe(name);
    if (name === 'workerd') expect(platform).toEqual({ runtime: 'workerd', greeting: 'hello from a binding', hasCtx: true });
    expect((await (await send('/later', { method: 'POST' })).json()) as unknown).toEqual({ accepted: true });
    await expect
      .poll(async () => ((await (await send('/later', {})).json()) as { value: string }).value, { timeout: 5000, interval: 50 })
      .toBe('done');
  });
});

// workerd is left out: miniflare's dispatchFetch hands back no Content-Length for any answer.
describe.each([
  { name: 'node', available: true },
  { name: 'bun', available: hasBun },
  { name: 'deno', available: hasDeno },
])('$name frames a download under LoggingMiddleware', ({ name, available }) => {
  it.skipIf(!available)('with Content-Length for 200, 206 and HEAD', async () => {
    const send = senders[name]!;
    const whole = await send('/download/ten.txt', {});
    expect(whole.headers.get('content-length')).toBe('10');
    expect(whole.headers.get('transfer-encoding')).toBeNull();
    expect(await whole.text()).toBe('0123456789');
    const part = await send('/download/ten.txt', { headers: { range: 'bytes=2-4' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-length')).toBe('3');
    expect(await part.text()).toBe('234');
    const head = await send('/download/ten.txt', { method: 'HEAD' });
    expect(head.headers.get('content-length')).toBe('10');
    expect(await head.text()).toBe('');
  });
});

describe('workerd', () => {
  it('logs an unexpected error as one JSON line through console', async () => {
    await expect.poll(() => workerLog, { timeout: 5000 }).toContain('kaput');
    const line = workerLog.split('\n').find((text) => text.includes('kaput'))!;
    const entry = JSON.parse(line.slice(line.indexOf('{'))) as Record<string, unknown>;
    expect(entry).toMatchObject({ level: 50, name: 'fnapi', err: { type: 'Error', message: 'kaput' } });
    expect(typeof entry.time).toBe('number');
    expect(typeof entry.reqId).toBe('string');
  });
});

describe('node', () => {
  it('the reference answers are what the cases ask for', () => {
    const byName = Object.fromEntries(CASES.map((entry, i) => [entry.name, nodeAnswers[i]!]));
    expect(byName['path and query parameters']!.body).toBe('{"item_id":42,"q":"shoe","limit":5}');
    expect(byName['a path parameter of the wrong type is 422']!.status).toBe(422);
    expect(byName['an unknown route is 404']!.status).toBe(404);
    expect(byName['a body past bodyLimit is 413']!.status).toBe(413);
    expect(byName['JSON to an upload endpoint is 415']!.status).toBe(415);
    expect(byName['an upload']!.body).toBe('{"name":"dot.png","type":"image/png","size":29,"caption":"a dot","head":[137,80,78,71]}');
    expect(byName['an upload whose content type is not accepted is 422']!.status).toBe(422);
    expect(byName['an upload past the file size is 413']!.status).toBe(413);
    expect(byName['an upload past bodyLimit but within uploadLimit']!.body).toContain('"size":5200');
    expect(byName['an event stream']!.headers['content-type']).toBe('text/event-stream');
    expect(byName['an event stream']!.body).toContain('event: last');
    expect(byName['Swagger UI']!.body).toContain('/static/docs/swagger-ui-bundle.js');
    expect(byName['a trailing slash redirects (308)']!.status).toBe(308);
    expect(byName['a JWT guard with a valid token']!.body).toBe('{"subject":"ada"}');
    expect(byName['a JWT guard with a bad signature is 401']!.status).toBe(401);
    expect(byName['a wrong API key is 401']!.status).toBe(401);
    expect(byName['Basic credentials']!.body).toBe('{"user":"ada"}');
    expect(byName['a CORS preflight']!.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(byName['an unexpected error is a 500 without details']!.status).toBe(500);
    expect(byName['bytes through the cache middleware (stored)']!.body).toBe('\x01\x02\x03\x01');
    expect(byName['MCP tools/list (2025-11-25)']!.body).toContain('"name":"getBook"');
    expect(byName['MCP tools/call (2026-07-28)']!.body).toContain('"structuredContent":{"id":7,"title":"Book 7"}');
    expect(byName['MCP tools/call with a bad argument is isError (422)']!.body).toContain('"isError":true');
    expect(byName['MCP malformed JSON is a JSON-RPC error']!.status).toBe(400);
    expect(byName['MCP GET is 405']!.status).toBe(405);
  });

  it('request.platform is node', async () => {
    expect(await (await senders.node!('/platform', {})).json()).toEqual({ runtime: 'node', greeting: null, hasCtx: false });
  });
});
