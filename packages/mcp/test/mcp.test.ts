import { API, HTTPError, JSONResponse, Router, z } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { apiKeyRequired, createToken, jwtRequired } from '@fnapi/auth';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { mcp } from '../src/index.js';

const SECRET = 'a-secret-of-at-least-32-bytes-length!!';
const token = () => createToken({ sub: 'ann' }, { secret: SECRET, algorithm: 'HS256' });

const Book = z.object({ id: z.int(), title: z.string(), year: z.int().default(2000) }).meta({ id: 'Book' });
const NewBook = z.object({ title: z.string().min(1), year: z.int().optional() }).meta({ id: 'NewBook' });

function bookshelf(options: Parameters<typeof mcp>[0] = {}) {
  const app = new API({ title: 'Shelf', version: '1.2.3', logger: false });
  const books = new Map<number, { id: number; title: string; year: number }>([[1, { id: 1, title: 'Dune', year: 1965 }]]);
  const seen: string[] = [];
  app.addMiddleware({
    dispatch: async (request, next) => {
      seen.push(`${request.method} ${request.path}`);
      return next(request);
    },
  });
  app.get(
    '/books/{id}',
    { params: { id: z.int() }, response: Book, mcp: { title: 'Look up a book', resource: 'books://{id}' } },
    function getBook({ id }) {
      const book = books.get(id);
      if (!book) throw new HTTPError(404, `No book ${id}`);
      return book;
    },
  );
  app.get(
    '/books',
    { params: { limit: z.int().default(10) }, response: z.array(Book), summary: 'List books' },
    function listBooks({ limit }) {
      return [...books.values()].slice(0, limit);
    },
  );
  app.post('/books', { params: { book: NewBook }, response: Book, statusCode: 201, mcp: true }, function addBook({ book }) {
    const created = { id: books.size + 1, title: book.title, year: book.year ?? 2000 };
    books.set(created.id, created);
    return created;
  });
  app.get('/whoami', { params: {}, mcp: true }, (_input, request) => ({
    ua: request.headers.get('user-agent'),
    cookie: request.headers.get('cookie'),
  }));
  app.delete(
    '/books/{id}',
    { params: { id: z.int() }, statusCode: 204, mcp: true },
    apiKeyRequired({ apiKeys: { 'reader-key': ['books:read'], 'admin-key': ['books:admin'] }, permissions: ['books:admin'] })(
      function deleteBook({ id }: { id: number }) {
        books.delete(id);
      },
    ),
  );
  app.get(
    '/me',
    { mcp: true },
    jwtRequired({ secret: SECRET, algorithm: 'HS256' })(function me(_input: unknown, request: { auth?: { subject?: string } }) {
      return { subject: request.auth?.subject };
    }),
  );
  app.get('/cover', { mcp: true }, () => new JSONResponse({ x: 1 }));
  app.extend(mcp(options));
  return { app, books, seen };
}

let client: TestClient | undefined;
let mcpClient: Client | undefined;
afterEach(async () => {
  await mcpClient?.close();
  await client?.close();
  client = undefined;
  mcpClient = undefined;
});

async function connect(app: API, headers: Record<string, string> = {}): Promise<Client> {
  client = await TestClient.start(app);
  mcpClient = new Client({ name: 'test', version: '1.0.0' });
  await mcpClient.connect(new StreamableHTTPClientTransport(new URL(`${client.url}/mcp`), { requestInit: { headers } }));
  return mcpClient;
}

describe('tools', () => {
  it('lists the marked endpoints with flat input schemas, output schemas and hints', async () => {
    const { app } = bookshelf();
    const mcp = await connect(app);
    const { tools } = await mcp.listTools();
    const names = tools.map((tool) => tool.name).sort();
    expect(names).toEqual(['addBook', 'deleteBook', 'getBook', 'get_cover', 'get_whoami', 'me'].sort());
    const get = tools.find((tool) => tool.name === 'getBook')!;
    expect(get.title).toBe('Look up a book');
    expect(get.inputSchema).toMatchObject({ type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] });
    expect(get.inputSchema.$ref).toBeUndefined();
    expect(get.outputSchema).toMatchObject({ type: 'object', required: expect.arrayContaining(['id', 'title', 'year']) });
    expect(get.annotations).toEqual({ readOnlyHint: true });
    const add = tools.find((tool) => tool.name === 'addBook')!;
    expect(add.inputSchema).toMatchObject({ type: 'object', properties: { title: { type: 'string' } }, required: ['title'] });
    expect(add.annotations).toEqual({ readOnlyHint: false });
    const remove = tools.find((tool) => tool.name === 'deleteBook')!;
    expect(remove.annotations).toEqual({ readOnlyHint: false, idempotentHint: true, destructiveHint: true });
    // The credential header is the MCP request's, never an argument.
    expect(Object.keys(remove.inputSchema.properties ?? {})).toEqual(['id']);
  });

  it('calls a tool through the whole pipeline, in process', async () => {
    const { app, seen } = bookshelf();
    const mcp = await connect(app);
    const result = await mcp.callTool({ name: 'getBook', arguments: { id: 1 } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ id: 1, title: 'Dune', year: 1965 });
    expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toEqual({ id: 1, title: 'Dune', year: 1965 });
    // The app's middleware saw the tool call's request, and never the MCP endpoint itself.
    expect(seen).toContain('GET /books/1');
    expect(seen.filter((line) => line.includes('/mcp'))).toEqual([]);
    const created = await mcp.callTool({ name: 'addBook', arguments: { title: 'Emma' } });
    expect(created.structuredContent).toEqual({ id: 2, title: 'Emma', year: 2000 });
  });

  it('answers a bad argument with the endpoint own 422 as isError', async () => {
    const { app } = bookshelf();
    const mcp = await connect(app);
    const result = await mcp.callTool({ name: 'addBook', arguments: { title: '' } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ status: 422 });
    expect((result.content as Array<{ text: string }>)[0]!.text).toContain('title');
    const missing = await mcp.callTool({ name: 'getBook', arguments: { id: 99 } });
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent).toMatchObject({ status: 404, detail: 'No book 99' });
  });

  it('answers a refused guard with its 401 as the HTTP answer, and passes the credentials of the MCP request', async () => {
    const { app, books } = bookshelf({ authorizationServers: ['https://id.example.com'] });
    client = await TestClient.start(app);
    const refused = await fetch(`${client.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'me', arguments: {} } }),
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain(`resource_metadata="${client.url}/.well-known/oauth-protected-resource/mcp"`);
    const reader = await fetch(`${client.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        'x-api-key': 'reader-key',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'deleteBook', arguments: { id: 1 } } }),
    });
    expect(reader.status).toBe(403);
    await client.close();
    client = undefined;
    const mcp = await connect(app, { 'x-api-key': 'admin-key', authorization: `Bearer ${await token()}` });
    const result = await mcp.callTool({ name: 'deleteBook', arguments: { id: 1 } });
    expect(result.isError).toBeFalsy();
    expect((await mcp.callTool({ name: 'me', arguments: {} })).structuredContent).toEqual({ subject: 'ann' });
    expect(books.has(1)).toBe(false);
  });

  it('serves RFC 9728 metadata', async () => {
    const { app } = bookshelf({ authorizationServers: ['https://id.example.com'] });
    client = await TestClient.start(app);
    const response = await client.get('/.well-known/oauth-protected-resource/mcp');
    expect(response.status).toBe(200);
    expect(response.json()).toMatchObject({
      resource: `${client.url}/mcp`,
      authorization_servers: ['https://id.example.com'],
      bearer_methods_supported: ['header'],
    });
  });

  it('passes the MCP request headers but not its cookies', async () => {
    const { app } = bookshelf();
    const mcp = await connect(app, { 'user-agent': 'agent/1', cookie: 'session=secret' });
    const result = await mcp.callTool({ name: 'get_whoami', arguments: {} });
    expect(result.structuredContent).toEqual({ ua: 'agent/1', cookie: null });
  });

  it('reads a resource template through its endpoint', async () => {
    const { app } = bookshelf();
    const mcp = await connect(app);
    const { resourceTemplates } = await mcp.listResourceTemplates();
    expect(resourceTemplates).toMatchObject([{ name: 'getBook', uriTemplate: 'books://{id}' }]);
    const read = await mcp.readResource({ uri: 'books://1' });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual({ id: 1, title: 'Dune', year: 1965 });
    await expect(mcp.readResource({ uri: 'books://99' })).rejects.toThrow();
  });

  it('refuses a foreign Origin and a rebinding Host with 403', async () => {
    const { app } = bookshelf({ allowedOrigins: ['https://ok.example'] });
    client = await TestClient.start(app);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    };
    const foreign = await client.request('POST', '/mcp', { headers: { ...headers, origin: 'https://evil.example' }, body });
    expect(foreign.status).toBe(403);
    const rebinding = await client.request('POST', '/mcp', { headers: { ...headers, host: 'evil.example' }, body });
    expect(rebinding.status).toBe(403);
    const allowed = await client.request('POST', '/mcp', { headers: { ...headers, origin: 'https://ok.example' }, body });
    expect(allowed.status).toBe(200);
    expect(allowed.headers['access-control-allow-origin']).toBe('https://ok.example');
  });

  it('serves an older client (2025-11-25) and answers GET with 405', async () => {
    const { app } = bookshelf();
    client = await TestClient.start(app);
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await client.request('POST', '/mcp', {
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
      }),
    });
    expect(init.status).toBe(200);
    expect(init.body).toContain('2025-11-25');
    const call = await client.request('POST', '/mcp', {
      headers: { ...headers, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'getBook', arguments: { id: 1 } } }),
    });
    expect(call.status).toBe(200);
    expect(call.body).toContain('Dune');
    const get = await client.request('GET', '/mcp', { headers: { accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
  });

  it('serves through app.fetch too', async () => {
    const { app } = bookshelf();
    const response = await app.fetch(
      new Request('http://localhost/mcp', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'getBook', arguments: { id: 1 } } }),
      }),
    );
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('Dune');
  });

  it('gives each call its own MCP request, however many are served at once and in turn', async () => {
    const { app } = bookshelf();
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const call = async (agent: string, modern: boolean) => {
      const params = { name: 'get_whoami', arguments: {}, ...(modern ? { _meta: meta } : {}) };
      const response = await app.fetch(
        new Request('http://localhost/mcp', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'user-agent': agent,
            'mcp-protocol-version': modern ? '2026-07-28' : '2025-11-25',
            ...(modern ? { 'mcp-method': 'tools/call', 'mcp-name': 'get_whoami' } : {}),
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
        }),
      );
      expect(response.status).toBe(200);
      const text = await response.text();
      const json = modern ? text : text.slice(text.indexOf('data: ') + 6, text.lastIndexOf('}') + 1);
      return (JSON.parse(json) as { result: { structuredContent: { ua: string } } }).result.structuredContent.ua;
    };
    for (const round of [1, 2, 3]) {
      const agents = Array.from({ length: 12 }, (_, i) => `agent-${round}-${i}`);
      expect(await Promise.all(agents.map((agent, i) => call(agent, i % 3 !== 0)))).toEqual(agents);
    }
  });

  it('ends a call whose client went away', async () => {
    const app = new API({ logger: false });
    let ended: (reason: string) => void = () => {};
    const aborted = new Promise<string>((resolve) => {
      ended = resolve;
    });
    let started: () => void = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    app.get('/slow', { mcp: true }, async (_input, request) => {
      started();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          ended('finished');
          resolve();
        }, 5000);
        request.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          ended('aborted');
          resolve();
        });
      });
      return { done: true };
    });
    app.extend(mcp());
    client = await TestClient.start(app);
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const controller = new AbortController();
    const sent = fetch(`${client.url}/mcp`, {
      method: 'POST',
      signal: controller.signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'get_slow',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_slow', arguments: {}, _meta: meta } }),
    }).catch(() => undefined);
    await running;
    controller.abort();
    await sent;
    expect(await aborted).toBe('aborted');
  });
});

describe('protocol 2026-07-28 and the mcp guard', () => {
  it('serves a client pinned to the stateless revision', async () => {
    const { app } = bookshelf();
    client = await TestClient.start(app);
    mcpClient = new Client({ name: 'modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } } as never);
    await mcpClient.connect(new StreamableHTTPClientTransport(new URL(`${client.url}/mcp`)));
    expect((await mcpClient.listTools()).tools.length).toBeGreaterThan(0);
    const result = await mcpClient.callTool({ name: 'getBook', arguments: { id: 1 } });
    expect(result.structuredContent).toEqual({ id: 1, title: 'Dune', year: 1965 });
    const bad = await mcpClient.callTool({ name: 'addBook', arguments: { title: '' } });
    expect(bad).toMatchObject({ isError: true, structuredContent: { status: 422 } });
  });

  it('requires mcp({ guard }) of every request, lists included', async () => {
    const { app } = bookshelf({
      guard: jwtRequired({ secret: SECRET, algorithm: 'HS256' }),
      authorizationServers: ['https://id.example.com'],
    });
    client = await TestClient.start(app);
    const list = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    };
    const refused = await client.request('POST', '/mcp', { headers, body: list });
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toContain('resource_metadata=');
    const allowed = await client.request('POST', '/mcp', { headers: { ...headers, authorization: `Bearer ${await token()}` }, body: list });
    expect(allowed.status).toBe(200);
    expect(allowed.body).toContain('getBook');
  });
});

describe('selection', () => {
  it('exposes safe endpoints, filters them, and refuses duplicate names', () => {
    const app = new API({ logger: false });
    app.get('/a', { tags: ['x'] }, function alpha() {
      return 1;
    });
    app.get('/b', { tags: ['y'] }, function beta() {
      return 1;
    });
    app.post('/c', {}, function gamma() {
      return 1;
    });
    const extension = mcp({ expose: 'safe', exclude: { tags: ['y'] } });
    app.extend(extension);
    expect([...extension.catalogue().tools.keys()]).toEqual(['alpha']);
    expect(() => app.get('/d', { mcp: { name: 'alpha' } }, () => 1)).toThrow(/alpha/);
    expect(() => app.get('/e', { mcp: { name: 'bad name!' } }, () => 1)).toThrow(/tool name/);
    const router = new Router({ prefix: '/r' });
    router.get('/f', { mcp: { name: 'alpha' } }, function other() {
      return 1;
    });
    expect(() => app.includeRouter(router)).toThrow(/alpha/);
  });

  it('refuses two inputs sharing an argument name, and a marked endpoint kept out of the document', async () => {
    const app = new API({ logger: false });
    app.put('/items/{id}', { params: { id: z.int(), item: z.object({ id: z.int(), name: z.string() }) }, mcp: true }, function putItem() {
      return 1;
    });
    const extension = mcp();
    app.extend(extension);
    expect(() => extension.catalogue()).toThrow(/path parameter id.*body parameter id|share the tool argument "id"/);
    await expect(app.startup()).rejects.toThrow(/"id"/);
    const other = new API({ logger: false });
    other.extend(mcp());
    expect(() => other.get('/hidden', { includeInSchema: false, mcp: true }, () => 1)).toThrow(/includeInSchema/);
  });

  it('refuses an events endpoint marked without a timeout', () => {
    const app = new API({ logger: false });
    app.extend(mcp());
    expect(() =>
      app.get('/s', { events: z.int(), mcp: true }, async function* () {
        yield 1;
      }),
    ).toThrow(/timeout/);
  });
});
