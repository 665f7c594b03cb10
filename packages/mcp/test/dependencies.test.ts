import { API, dependency, header, z } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { createToken, jwtRequired } from '@fnapi/auth';
import { afterEach, describe, expect, it } from 'vitest';
import { mcp } from '../src/index.js';

const SECRET = 'a-secret-of-at-least-32-bytes-length!!';
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

let client: TestClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

async function call(name: string, args: Record<string, unknown>, headers: Record<string, string> = {}) {
  const response = await fetch(`${client!.url}/mcp`, {
    method: 'POST',
    headers: { ...HEADERS, ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: response.status === 200 ? await rpc(response) : await response.text(),
  };
}

/** A JSON-RPC answer, sent as JSON or as one server-sent event. */
async function rpc(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text.startsWith('{')) return JSON.parse(text);
  const data = text.split('\n').find((line) => line.startsWith('data: '));
  return JSON.parse(data!.slice('data: '.length));
}

describe('a tool call uses the endpoint dependencies', () => {
  it('runs guard dependencies (app, endpoint) before the SDK, and resolves and tears down used values per call', async () => {
    const admin = jwtRequired({ secret: SECRET, algorithm: 'HS256', scopes: ['books:admin'] });
    const signedIn = jwtRequired({ secret: SECRET, algorithm: 'HS256' });
    const closed: string[] = [];
    const tenant = dependency({ params: { x_tenant: header(z.string()) } }, async function* tenant({ x_tenant }) {
      yield `tenant:${x_tenant}`;
      closed.push(x_tenant);
    });
    const app = new API({ logger: false, dependencies: [signedIn] });
    app.get('/shelf', { params: { limit: z.int().default(1) }, uses: { tenant }, mcp: true }, function shelf({ limit, tenant }) {
      return { limit, tenant };
    });
    app.delete('/shelf/{id}', { params: { id: z.int() }, dependencies: [admin], mcp: true }, function dropBook({ id }) {
      return { dropped: id };
    });
    app.extend(mcp({ authorizationServers: ['https://id.example.com'] }));
    client = await TestClient.start(app);

    const list = await fetch(`${client.url}/mcp`, {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    // The app's guards guard each tool call, not the list.
    expect(list.status).toBe(200);
    const tools = ((await rpc(list)) as { result: { tools: { name: string; inputSchema: { properties: Record<string, unknown> } }[] } })
      .result.tools;
    // A dependency's parameter is an argument of the tool, by its parameter name.
    expect(Object.keys(tools.find((tool) => tool.name === 'shelf')!.inputSchema.properties).sort()).toEqual(['limit', 'x_tenant']);

    const anonymous = await call('shelf', { x_tenant: 'a' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toContain('resource_metadata=');

    const user = await createToken({ sub: 'ann' }, { secret: SECRET, algorithm: 'HS256' });
    const ok = await call('shelf', { x_tenant: 'acme', limit: 3 }, { authorization: `Bearer ${user}` });
    expect(ok.status).toBe(200);
    expect((ok.body as { result: { structuredContent: unknown } }).result.structuredContent).toEqual({ limit: 3, tenant: 'tenant:acme' });
    await expect.poll(() => closed).toEqual(['acme']);

    // A guard dependency of the endpoint itself: a missing scope is the guard's 403, as the HTTP answer.
    const refused = await call('dropBook', { id: 1 }, { authorization: `Bearer ${user}` });
    expect(refused.status).toBe(403);
    const adminToken = await createToken({ sub: 'ann', scope: 'books:admin' }, { secret: SECRET, algorithm: 'HS256' });
    const dropped = await call('dropBook', { id: 1 }, { authorization: `Bearer ${adminToken}` });
    expect((dropped.body as { result: { structuredContent: unknown } }).result.structuredContent).toEqual({ dropped: 1 });

    // The metadata names the scopes of the guard dependencies too.
    const metadata = (await client.get('/.well-known/oauth-protected-resource/mcp')).json() as { scopes_supported: string[] };
    expect(metadata.scopes_supported).toContain('books:admin');
  });
});
