// The bookshelf driven as an agent drives it: the official MCP client over Streamable HTTP, over stdio
// (`fnapi-mcp`), and through HAProxy in front of two instances.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { TestClient } from '@fnapi/core/testing';
import { freePort } from '@fnapi/test-support';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { app } from '../src/app.js';

const here = dirname(fileURLToPath(import.meta.url));
const BIN = join(here, '../../../packages/mcp/src/bin.ts');
const ENTRY = join(here, '../src/app.ts');
const NODE_ARGS = ['--conditions=@fnapi/source', '--import', 'tsx'];

async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'bookshelf-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
  return client;
}

describe('over Streamable HTTP', () => {
  let server: TestClient;
  beforeAll(async () => {
    server = await TestClient.start(app);
  });
  afterAll(() => server.close());

  it('lists the tools and calls them', async () => {
    const client = await connect(server.url);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(['addBook', 'deleteBook', 'getBook', 'listBooks']);
      const list = await client.callTool({ name: 'listBooks', arguments: { author: 'Octavia E. Butler' } });
      expect(list.structuredContent).toEqual({ result: [{ id: 2, title: 'Kindred', author: 'Octavia E. Butler', year: 1979 }] });
      const added = await client.callTool({ name: 'addBook', arguments: { title: 'Piranesi', author: 'Susanna Clarke', year: 2020 } });
      expect(added.structuredContent).toMatchObject({ title: 'Piranesi', author: 'Susanna Clarke' });
      const read = await client.readResource({ uri: 'books://1' });
      expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ id: 1, author: 'Ursula K. Le Guin' });
    } finally {
      await client.close();
    }
  });

  it('answers a bad argument with the endpoint own 422', async () => {
    const client = await connect(server.url);
    try {
      const result = await client.callTool({ name: 'addBook', arguments: { title: '', author: 'Nobody' } });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({ status: 422, errors: [expect.objectContaining({ path: ['title'] })] });
    } finally {
      await client.close();
    }
  });

  it('refuses a key without the books:admin permission with 403, and lets the admin delete', async () => {
    const reader = await connect(server.url, { 'x-api-key': 'reader-key' });
    try {
      const refused = await reader.callTool({ name: 'deleteBook', arguments: { id: 2 } }).then(
        () => undefined,
        (error: unknown) => error as { status?: number; message: string },
      );
      expect(refused?.status ?? refused?.message).toSatisfy((value: unknown) => value === 403 || String(value).includes('403'));
    } finally {
      await reader.close();
    }
    const admin = await connect(server.url, { 'x-api-key': 'admin-key' });
    try {
      expect((await admin.callTool({ name: 'deleteBook', arguments: { id: 2 } })).isError).toBeFalsy();
      const gone = await admin.callTool({ name: 'getBook', arguments: { id: 2 } });
      expect(gone).toMatchObject({ isError: true, structuredContent: { status: 404 } });
    } finally {
      await admin.close();
    }
  });
});

describe('fnapi-mcp', () => {
  it('prints the catalogue with --list, logs kept off stdout', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [...NODE_ARGS, BIN, ENTRY, '--list'], { cwd: here });
    const catalogue = JSON.parse(stdout) as { tools: Array<{ name: string; inputSchema: unknown }>; resourceTemplates: unknown[] };
    expect(catalogue.tools.map((tool) => tool.name).sort()).toEqual(['addBook', 'deleteBook', 'getBook', 'listBooks']);
    expect(catalogue.resourceTemplates).toEqual([expect.objectContaining({ uriTemplate: 'books://{id}' })]);
  });

  it('serves the tools over stdio; a guarded tool answers its 401 as isError', async () => {
    const client = new Client({ name: 'desktop', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [...NODE_ARGS, BIN, ENTRY], cwd: here, stderr: 'ignore' }),
    );
    try {
      const got = await client.callTool({ name: 'getBook', arguments: { id: 1 } });
      expect(got.structuredContent).toMatchObject({ id: 1 });
      const refused = await client.callTool({ name: 'deleteBook', arguments: { id: 1 } });
      expect(refused).toMatchObject({ isError: true, structuredContent: { status: 401 } });
    } finally {
      await client.close();
    }
  });
});

describe('behind HAProxy, round robin over two instances', () => {
  const children: ChildProcess[] = [];
  let dir: string | undefined;
  afterAll(() => {
    for (const child of children) child.kill('SIGTERM');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers one client sequence whichever instance takes each request', async () => {
    const haproxy = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((path) => existsSync(path));
    if (haproxy === undefined) {
      console.warn('!!! SKIPPED: HAProxy is not installed (apt-get install haproxy)');
      return;
    }
    const ports = [await freePort(), await freePort()];
    for (const port of ports) {
      const child = spawn(process.execPath, [...NODE_ARGS, join(here, '../src/main.ts')], {
        env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), FNAPI_LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      children.push(child);
      await new Promise<void>((resolve) => child.stdout!.on('data', (data: Buffer) => data.toString().includes('listening') && resolve()));
    }
    const front = await freePort();
    dir = mkdtempSync(join(tmpdir(), 'fnapi-mcp-haproxy-'));
    const config = join(dir, 'haproxy.cfg');
    writeFileSync(
      config,
      [
        'defaults',
        '  mode http',
        '  timeout connect 2s',
        '  timeout client 30s',
        '  timeout server 30s',
        'frontend web',
        `  bind 127.0.0.1:${front}`,
        '  default_backend mcp',
        'backend mcp',
        '  balance roundrobin',
        ...ports.map((port, i) => `  server app${i + 1} 127.0.0.1:${port}`),
        '',
      ].join('\n'),
    );
    children.push(spawn(haproxy, ['-db', '-f', config], { stdio: ['ignore', 'ignore', 'inherit'] }));
    const url = `http://127.0.0.1:${front}`;
    await vi.waitUntil(
      () =>
        fetch(`${url}/openapi.json`).then(
          (res) => res.ok,
          () => false,
        ),
      { timeout: 10_000, interval: 50 },
    );
    const client = await connect(url);
    try {
      for (let i = 0; i < 6; i++) {
        expect((await client.listTools()).tools).toHaveLength(4);
        const got = await client.callTool({ name: 'getBook', arguments: { id: 1 } });
        expect(got.structuredContent).toMatchObject({ id: 1, title: 'The Left Hand of Darkness' });
      }
    } finally {
      await client.close();
    }
  });
});
