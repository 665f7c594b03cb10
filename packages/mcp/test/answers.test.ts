import { API, binary, FileResponse, Response, z } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { TracingMiddleware } from '@fnapi/monitoring';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it } from 'vitest';
import { mcp } from '../src/index.js';

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);

let server: TestClient | undefined;
let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

async function connect(app: API): Promise<Client> {
  server = await TestClient.start(app);
  client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
  return client;
}

describe('answers', () => {
  it('collects a stream of events into items, one progress notification each', async () => {
    const app = new API({ logger: false });
    app.get(
      '/ticks',
      { params: { count: z.int().max(5) }, events: z.object({ n: z.int() }), timeout: 5, mcp: true },
      async function* ticks({ count }) {
        for (let n = 1; n <= count; n++) yield { n };
      },
    );
    app.get('/rows', { lines: z.int(), timeout: 5, mcp: { name: 'rows' } }, async function* rows() {
      for (let n = 0; n < 10; n++) yield n;
    });
    app.extend(mcp({ maxItems: 4 }));
    const mcpClient = await connect(app);
    const progress: Array<{ progress: number; message?: string }> = [];
    const result = await mcpClient.callTool(
      { name: 'ticks', arguments: { count: 3 } },
      { onprogress: (p: { progress: number; message?: string }) => progress.push(p) },
    );
    expect(result.structuredContent).toEqual({ items: [{ n: 1 }, { n: 2 }, { n: 3 }] });
    expect(progress.map((p) => p.progress)).toEqual([1, 2, 3]);
    expect(JSON.parse(progress[2]!.message!)).toEqual({ n: 3 });
    const rows = await mcpClient.callTool({ name: 'rows', arguments: {} });
    expect(rows.structuredContent).toEqual({ items: [0, 1, 2, 3], truncated: true });
  });

  it('answers an image as image content and other bytes as a resource', async () => {
    const app = new API({ logger: false });
    app.get('/dot.png', { response: binary(['image/png']), mcp: { name: 'dot' } }, () => new FileResponse(PNG, { mediaType: 'image/png' }));
    app.get(
      '/report',
      { response: binary(['application/pdf']), mcp: { name: 'report' } },
      () => new Response(new Uint8Array([37, 80, 68, 70]), { mediaType: 'application/pdf' }),
    );
    app.get('/empty', { mcp: { name: 'empty' } }, () => undefined);
    app.extend(mcp());
    const mcpClient = await connect(app);
    const image = await mcpClient.callTool({ name: 'dot', arguments: {} });
    expect(image.content).toEqual([{ type: 'image', data: Buffer.from(PNG).toString('base64'), mimeType: 'image/png' }]);
    const report = await mcpClient.callTool({ name: 'report', arguments: {} });
    expect(report.content).toEqual([
      {
        type: 'resource',
        resource: { uri: `${server!.url}/report`, mimeType: 'application/pdf', blob: Buffer.from('%PDF').toString('base64') },
      },
    ]);
    const empty = await mcpClient.callTool({ name: 'empty', arguments: {} });
    expect(empty.content).toEqual([]);
    expect(empty.structuredContent).toBeUndefined();
  });

  it('answers past bodyLimit with a 502 problem', async () => {
    const app = new API({ logger: false, bodyLimit: 2048 });
    app.get('/big', { mcp: true }, function big() {
      return { text: 'x'.repeat(5000) };
    });
    app.extend(mcp());
    const mcpClient = await connect(app);
    const result = await mcpClient.callTool({ name: 'big', arguments: {} });
    expect(result).toMatchObject({ isError: true, structuredContent: { status: 502 } });
  });

  it('maps header, cookie and query arguments back to their places', async () => {
    const app = new API({ logger: false });
    const { header, cookie } = await import('@fnapi/core');
    app.get(
      '/echo/{file_path:path}',
      {
        params: { file_path: z.string(), x_tenant: header(z.string()), session: cookie(z.string()), tag: z.array(z.string()).default([]) },
        mcp: true,
      },
      function echo(input) {
        return input;
      },
    );
    app.extend(mcp());
    const mcpClient = await connect(app);
    const { tools } = await mcpClient.listTools();
    expect(tools[0]!.inputSchema).toMatchObject({ required: expect.arrayContaining(['file_path', 'x_tenant', 'session']) });
    const result = await mcpClient.callTool({
      name: 'echo',
      arguments: { file_path: 'a/b c.txt', x_tenant: 'acme', session: 's1', tag: ['x', 'y'] },
    });
    expect(result.structuredContent).toEqual({ file_path: 'a/b c.txt', x_tenant: 'acme', session: 's1', tag: ['x', 'y'] });
  });

  it('gives the tool call span mcp.method.name and gen_ai.tool.name', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    const app = new API({ logger: false });
    app.addMiddleware(new TracingMiddleware({ tracer: provider.getTracer('test') }));
    app.get('/ping', { mcp: true }, function ping() {
      return { ok: true };
    });
    app.extend(mcp());
    const mcpClient = await connect(app);
    await mcpClient.callTool({ name: 'ping', arguments: {} });
    const spans = exporter.getFinishedSpans();
    // One span: the tool call's request; the MCP endpoint itself is answered before middleware.
    expect(spans.map((span) => span.name)).toEqual(['GET /ping']);
    expect(spans[0]!.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'ping' });
  });
});
