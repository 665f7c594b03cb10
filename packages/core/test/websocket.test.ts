import { Parser } from '@asyncapi/parser';
import { createToken, jwtRequired } from '@fnapi/auth';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { API, Hub, type Request, Router, UnauthorizedError, z } from '../src/index.js';
import { TestClient, WebSocketRefusedError } from '../src/server/testing.js';

const secret = 'test-secret-that-is-long-enough-for-hs256';
const Said = z.object({ text: z.string().min(1).max(500) });
const Line = z.object({ from: z.string(), text: z.string(), at: z.string() });

function build() {
  const events: string[] = [];
  const state = { handlerEnded: 0, lastSignalAborted: false, closes: [] as number[] };
  const hub = new Hub({ logger: false });
  const app = new API({ logger: false, wsOrigins: ['https://allowed.example'] });
  app.pluginManager.register({
    getMetadata: () => ({ name: 'seen', version: '1.0.0' }),
    initialize() {},
    async preRequest(request: Request) {
      events.push(`plugin ${request.path}`);
      return request;
    },
  } as never);
  app.addMiddleware(async (request, callNext) => {
    const response = await callNext(request);
    events.push(`mw ${request.path} ${response.statusCode}`);
    response.headers.set('x-seen', 'yes');
    return response;
  });
  app.ws('/echo', {}, async (_input, socket) => {
    for await (const message of socket) await socket.send(message);
    state.handlerEnded++;
  });
  app.ws(
    '/rooms/{room}',
    { params: { room: z.string().max(10), nick: z.string().optional() }, receive: Said, send: Line },
    async ({ room, nick }, socket) => {
      const feed = hub.subscribe<z.input<typeof Line>>(`room:${room}`, { signal: socket.signal });
      void socket.forward(feed);
      for await (const { text } of socket) {
        await hub.publish(`room:${room}`, { from: nick ?? 'anon', text, at: 'now', extra: 'dropped' });
      }
      state.lastSignalAborted = socket.signal.aborted;
      state.handlerEnded++;
    },
  );
  app.ws(
    '/private',
    {},
    jwtRequired({ secret, algorithm: 'HS256' })(async (_input: unknown, socket: { send(m: unknown): Promise<void> }, request: Request) => {
      await socket.send({ user: request.auth!.subject });
    }),
  );
  app.ws('/bad-send', { send: Line }, async (_input, socket) => {
    await socket.send({ from: 1 } as never);
  });
  app.ws('/throws', {}, async () => {
    throw new Error('boom');
  });
  app.ws('/small', { maxPayload: 16 }, async (_input, socket) => {
    for await (const _ of socket) {
      // read until closed
    }
  });
  app.ws('/guarded', {}, async () => {}).ws('/forbidden-guard', {}, async () => {});
  const router = new Router({ prefix: '/r' });
  router.ws('/hello', {}, async (_input, socket) => {
    await socket.send('hi');
  });
  app.includeRouter(router);
  app.get('/plain', {}, () => ({ ok: true }));
  void UnauthorizedError;
  return { app, events, state, hub };
}

let setup: ReturnType<typeof build>;
let client: TestClient;

beforeAll(async () => {
  setup = build();
  client = await TestClient.start(setup.app);
});
afterAll(async () => {
  await client.close();
});

describe('app.ws', () => {
  it('echoes text and binary, and closes 1000 when the client closes', async () => {
    const ws = await client.ws('/echo');
    await ws.send('hello');
    expect(await ws.next()).toBe('hello');
    await ws.send(new Uint8Array([1, 2, 3]));
    expect(await ws.next()).toEqual(new Uint8Array([1, 2, 3]));
    await ws.send({ a: 1 });
    expect(await ws.next()).toEqual({ a: 1 });
    const closed = await ws.close();
    expect(closed.code).toBe(1000);
    expect(await ws.next()).toBeUndefined();
  });

  it('runs plugins and middleware on the upgrade, which they see as 101', async () => {
    const ws = await client.ws('/echo');
    expect(ws.socket.readyState).toBe(1);
    await ws.close();
    expect(setup.events).toContain('plugin /echo');
    expect(setup.events).toContain('mw /echo 101');
  });

  it('answers a plain request 426 with Upgrade: websocket, through the middleware', async () => {
    const res = await client.get('/echo');
    expect(res.status).toBe(426);
    expect(res.headers.upgrade).toBe('websocket');
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(res.json<{ status: number }>().status).toBe(426);
    expect(res.headers['x-seen']).toBe('yes');
    // And through inject (no socket to upgrade) too.
    const injected = await setup.app.inject({ url: '/echo', headers: { upgrade: 'websocket', connection: 'Upgrade' } });
    expect(injected.status).toBe(426);
  });

  it('validates parameters before the upgrade: 422 as a problem body', async () => {
    const error = await client.ws('/rooms/far-too-long-a-room-name').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebSocketRefusedError);
    const refused = error as WebSocketRefusedError;
    expect(refused.status).toBe(422);
    expect(refused.json<{ errors: { in: string }[] }>().errors[0]!.in).toBe('path');
    expect(refused.headers['x-seen']).toBe('yes');
  });

  it('404 for an unknown WebSocket path', async () => {
    const error = (await client.ws('/nowhere').catch((e: unknown) => e)) as WebSocketRefusedError;
    expect(error.status).toBe(404);
  });

  it('guards wrap WebSocket handlers: 401 before the upgrade, the subject once accepted', async () => {
    const refused = (await client.ws('/private').catch((e: unknown) => e)) as WebSocketRefusedError;
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toContain('Bearer');
    const token = await createToken({ sub: 'ada' }, { secret, algorithm: 'HS256' });
    const ws = await client.ws('/private', { headers: { authorization: `Bearer ${token}` } });
    expect(await ws.next()).toEqual({ user: 'ada' });
    expect((await ws.closed).code).toBe(1000);
  });

  it('refuses a foreign browser Origin with 403; its own, a listed one, or none pass', async () => {
    const foreign = (await client
      .ws('/echo', { headers: { origin: 'https://evil.example' } })
      .catch((e: unknown) => e)) as WebSocketRefusedError;
    expect(foreign.status).toBe(403);
    const own = await client.ws('/echo', { headers: { origin: client.url } });
    await own.close();
    const listed = await client.ws('/echo', { headers: { origin: 'https://allowed.example' } });
    await listed.close();
  });

  it('typed rooms: messages validated both ways, hub fan-out in order, unknown keys dropped', async () => {
    const a = await client.ws('/rooms/blue', { query: { nick: 'a' } });
    const b = await client.ws('/rooms/blue', { query: { nick: 'b' } });
    for (let i = 0; i < 5; i++) await a.send({ text: `m${i}` });
    for (let i = 0; i < 5; i++) {
      expect(await b.next()).toEqual({ from: 'a', text: `m${i}`, at: 'now' });
      expect(await a.next()).toEqual({ from: 'a', text: `m${i}`, at: 'now' });
    }
    await a.close();
    await b.close();
  });

  it('a message that is not JSON or fails receive closes 1007 with a reason, and the iteration ends', async () => {
    const before = setup.state.handlerEnded;
    const ws = await client.ws('/rooms/green');
    await ws.send('not json');
    const closed = await ws.closed;
    expect(closed.code).toBe(1007);
    expect(closed.reason).toMatch(/JSON/);
    const ws2 = await client.ws('/rooms/green');
    await ws2.send({ text: '' });
    const closed2 = await ws2.closed;
    expect(closed2.code).toBe(1007);
    expect(closed2.reason).toMatch(/text/);
    expect(Buffer.byteLength(closed2.reason)).toBeLessThanOrEqual(123);
    await vi.waitUntil(() => setup.state.handlerEnded >= before + 2);
    expect(setup.state.handlerEnded).toBe(before + 2);
    expect(setup.state.lastSignalAborted).toBe(true);
  });

  it('a message that does not fit send closes 1011; a handler that throws closes 1011', async () => {
    const ws = await client.ws('/bad-send');
    expect((await ws.closed).code).toBe(1011);
    const ws2 = await client.ws('/throws');
    expect((await ws2.closed).code).toBe(1011);
  });

  it('a frame over maxPayload closes 1009', async () => {
    const ws = await client.ws('/small');
    await ws.send('x'.repeat(100));
    expect((await ws.closed).code).toBe(1009);
  });

  it('router WebSocket endpoints are served under the prefix', async () => {
    const ws = await client.ws('/r/hello');
    expect(await ws.next()).toBe('hi');
  });

  it('stays out of /openapi.json; AsyncAPI 3.0 at /asyncapi.json, valid', async () => {
    const openapi = (await client.get('/openapi.json')).json<{ paths: Record<string, unknown> }>();
    expect(Object.keys(openapi.paths)).toEqual(['/plain']);
    const res = await client.get('/asyncapi.json');
    expect(res.status).toBe(200);
    const doc = res.json<{ asyncapi: string; channels: Record<string, { address: string; parameters?: Record<string, unknown> }> }>();
    expect(doc.asyncapi).toBe('3.0.0');
    const room = Object.values(doc.channels).find((c) => c.address === '/rooms/{room}')!;
    expect(Object.keys(room.parameters!)).toEqual(['room']);
    const parsed = await new Parser().parse(res.body);
    const errors = parsed.diagnostics.filter((d) => d.severity === 0);
    expect(errors).toEqual([]);
    expect(parsed.document).toBeDefined();
    const operations = parsed
      .document!.operations()
      .all()
      .map((o) => `${o.action()} ${o.channels().all()[0]!.address()}`);
    expect(operations).toContain('receive /rooms/{room}');
    expect(operations).toContain('send /rooms/{room}');
  });
});

describe('heartbeat', () => {
  it('drops a peer that stops answering pings', async () => {
    const app = new API({ logger: false });
    let ended = false;
    app.ws('/beat', { heartbeat: 0.1 }, async (_input, socket) => {
      for await (const _ of socket) {
        // wait
      }
      ended = true;
    });
    const c = await TestClient.start(app);
    try {
      const ws = await c.ws('/beat');
      // A client that never answers pings: `ws` answers them automatically unless told otherwise.
      (ws.socket as unknown as { pong: () => void }).pong = () => {};
      (ws.socket as unknown as { _receiver: { removeAllListeners(e: string): void } })._receiver.removeAllListeners('ping');
      const closed = await ws.closed;
      expect(closed.code).toBe(1006);
      await vi.waitUntil(() => ended);
    } finally {
      await c.close();
    }
  });
});
