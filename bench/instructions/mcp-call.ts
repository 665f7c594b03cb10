// One tool call through MCP against the same request through `app.fetch`, in one process, for
// measure-mcp.sh: it warms up with <warm> requests, prints "warm", waits for a line on stdin, sends <n>
// requests one after another, prints "counted" and waits for another line before it exits. `sdk` is
// the SDK's own floor: the same tools/call answered by a bare `createMcpHandler` (an `McpServer` per
// request with one tool that returns the answer at once), without fnapi. `sdk-reused` is the same SDK
// served as @fnapi/mcp serves it: an idle `McpServer` serves the next exchange, and the body is read and
// parsed once and handed over as `parsedBody`.
// <tools> (default 1) is how many endpoints the app offers as tools: the others are alike and never called.
//   node --import tsx mcp-call.ts <fetch|mcp|mcp-2025|sdk|sdk-reused> <warm> <n> [tools]
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { API, z } from '@fnapi/core';
import { mcp } from '@fnapi/mcp';

const [mode = 'mcp', warm = '2000', count = '1000', tools = '1'] = process.argv.slice(2);

const Book = z.object({ id: z.int(), title: z.string(), author: z.string() });
const app = new API({ logger: false });
app.get('/books/{id}', { params: { id: z.int() }, response: Book, mcp: true }, function getBook({ id }) {
  return { id, title: 'Kindred', author: 'Octavia E. Butler' };
});
for (let i = 1; i < Number(tools); i++) {
  app.get(`/shelves/${i}/books/{id}`, { params: { id: z.int(), q: z.string().optional() }, response: Book, mcp: true }, ({ id }) => ({
    id,
    title: 'Kindred',
    author: 'Octavia E. Butler',
  }));
}
app.extend(mcp());

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const modern = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'getBook', arguments: { id: 7 }, _meta: META },
});
const legacy = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'getBook', arguments: { id: 7 } } });
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** What of the SDK the floor uses (the bench does not depend on the SDK, @fnapi/mcp does). */
interface Sdk {
  fromJsonSchema(schema: unknown): unknown;
  createMcpHandler(
    factory: () => unknown,
    options: { legacy: 'stateless' },
  ): { fetch(request: Request, options?: { parsedBody?: unknown }): Promise<Response> };
  McpServer: new (
    info: { name: string; version: string },
    options: { capabilities: Record<string, unknown> },
  ) => { server: { onclose?: () => void }; registerTool(name: string, config: Record<string, unknown>, handler: () => unknown): void };
}
const BOOK = { id: 7, title: 'Kindred', author: 'Octavia E. Butler' };
const BOOK_SCHEMA = {
  type: 'object',
  properties: { id: { type: 'integer' }, title: { type: 'string' }, author: { type: 'string' } },
  required: ['id', 'title', 'author'],
};
/** The SDK as @fnapi/mcp resolves it (the bench does not depend on it itself). */
async function bareSdk(reuse: boolean): Promise<{ fetch(request: Request): Promise<Response> }> {
  const sdk = (await import(createRequire(import.meta.resolve('@fnapi/mcp')).resolve('@modelcontextprotocol/server'))) as Sdk;
  const input = { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] };
  const passThrough = {
    '~standard': {
      version: 1,
      vendor: 'bench',
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: () => input, output: () => input },
    },
  };
  const output = sdk.fromJsonSchema(BOOK_SCHEMA);
  const idle: unknown[] = [];
  const handler = sdk.createMcpHandler(
    () => {
      if (reuse && idle.length > 0) return idle.pop();
      const server = new sdk.McpServer({ name: 'bench', version: '1' }, { capabilities: { tools: { listChanged: false } } });
      server.registerTool('getBook', { inputSchema: passThrough, outputSchema: output }, () => ({
        content: [{ type: 'text', text: JSON.stringify(BOOK) }],
        structuredContent: { ...BOOK },
      }));
      if (reuse) server.server.onclose = () => void idle.push(server);
      return server;
    },
    { legacy: 'stateless' },
  );
  if (!reuse) return handler;
  return { fetch: async (request) => handler.fetch(request, { parsedBody: JSON.parse(await request.text()) }) };
}
const bare = mode === 'sdk' || mode === 'sdk-reused' ? await bareSdk(mode === 'sdk-reused') : undefined;

function one(): Promise<string> {
  const request =
    mode === 'fetch'
      ? new Request('http://localhost/books/7')
      : mode === 'mcp' || mode === 'sdk' || mode === 'sdk-reused'
        ? new Request('http://localhost/mcp', {
            method: 'POST',
            headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'getBook' },
            body: modern,
          })
        : new Request('http://localhost/mcp', {
            method: 'POST',
            headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-11-25' },
            body: legacy,
          });
  return (bare ?? app).fetch(request).then(async (response) => {
    const text = await response.text();
    if (response.status !== 200 || !text.includes('Kindred')) throw new Error(`${mode}: ${response.status} ${text}`);
    return text;
  });
}

async function run(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await one();
}

const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
await run(Number(warm));
process.stdout.write('warm\n');
await lines.next();
await run(Number(count));
process.stdout.write('counted\n');
await lines.next();
process.exit(0);
