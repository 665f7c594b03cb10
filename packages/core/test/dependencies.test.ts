/**
 * Dependencies (API.md, Dependencies) over real HTTP: values, caching, one binding pass, the
 * document, lifetimes, teardown, overrides, routers and the app, streams and WebSockets.
 */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { API, ConflictError, dependency, header, type Logger, type Request, Router, UnauthorizedError, z } from '../src/index.js';
import { TestClient } from '../src/server/testing.js';

const clients: TestClient[] = [];
async function start(app: API, options?: Parameters<typeof TestClient.start>[1]): Promise<TestClient> {
  const client = await TestClient.start(app, options);
  clients.push(client);
  return client;
}
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

function capturedLogger(): { logger: Logger; lines: { level: number; msg: string; dependency?: string }[] } {
  const lines: { level: number; msg: string; dependency?: string }[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) }) as unknown as Logger;
  return { logger, lines };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 20));
async function until(check: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await tick();
  }
}

describe('values', () => {
  it('gives a plain, an async, a generator and an async generator value under the names used', async () => {
    const plain = dependency({}, () => 1);
    const promised = dependency({}, async () => 'two');
    const generated = dependency({}, function* () {
      yield { three: 3 };
    });
    const asyncGenerated = dependency({}, async function* () {
      yield [4];
    });
    const app = new API({ logger: false });
    app.get('/values', { uses: { plain, promised, generated, asyncGenerated } }, ({ plain, promised, generated, asyncGenerated }) => ({
      plain,
      promised,
      generated,
      asyncGenerated,
    }));
    const client = await start(app);
    const res = await client.get('/values');
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ plain: 1, promised: 'two', generated: { three: 3 }, asyncGenerated: [4] });
  });

  it('a dependency receives its params and the values of what it uses, and the request', async () => {
    const base = dependency({ params: { factor: z.coerce.number().default(2) } }, ({ factor }) => factor);
    const scaled = dependency({ uses: { base }, params: { n: z.int() } }, ({ base, n }, request: Request) => ({
      value: base * n,
      path: request.path,
    }));
    const app = new API({ logger: false });
    app.get('/scaled', { uses: { scaled } }, ({ scaled }) => scaled);
    const client = await start(app);
    expect((await client.get('/scaled?n=5')).json()).toEqual({ value: 10, path: '/scaled' });
    expect((await client.get('/scaled?n=5&factor=3')).json()).toEqual({ value: 15, path: '/scaled' });
  });

  it('dependencies: [...] run for their effect, without a value', async () => {
    const seen: string[] = [];
    const audit = dependency({}, (_input, request: Request) => {
      seen.push(request.path);
    });
    const app = new API({ logger: false });
    app.get('/audited', { dependencies: [audit] }, (input) => ({ keys: Object.keys(input) }));
    const client = await start(app);
    expect((await client.get('/audited')).json()).toEqual({ keys: [] });
    expect(seen).toEqual(['/audited']);
  });
});

describe('caching', () => {
  it('runs a dependency once per request however many dependants it has; cache: false runs it for each use', async () => {
    let counted = 0;
    let uncached = 0;
    const counter = dependency({}, () => ++counted);
    const fresh = dependency({ cache: false }, () => ++uncached);
    const a = dependency({ uses: { counter, fresh } }, ({ counter, fresh }) => ({ counter, fresh }));
    const b = dependency({ uses: { counter, fresh } }, ({ counter, fresh }) => ({ counter, fresh }));
    const app = new API({ logger: false });
    app.get('/cache', { uses: { a, b, counter } }, ({ a, b, counter }) => ({ a, b, counter }));
    const client = await start(app);
    const first = (await client.get('/cache')).json<{
      a: { counter: number; fresh: number };
      b: { counter: number; fresh: number };
      counter: number;
    }>();
    expect(first.a.counter).toBe(1);
    expect(first.b.counter).toBe(1);
    expect(first.counter).toBe(1);
    expect(first.a.fresh).not.toBe(first.b.fresh);
    expect(counted).toBe(1);
    expect(uncached).toBe(2);
    const second = (await client.get('/cache')).json<{ counter: number }>();
    expect(second.counter).toBe(2);
  });
});

describe('one binding pass', () => {
  const token = dependency({ params: { x_token: header(z.string().min(3)) } }, ({ x_token }) => x_token);
  const page = dependency({ params: { page: z.coerce.number().int().min(1).default(1) } }, ({ page }) => page);

  function app(): API {
    const app = new API({ logger: false });
    app.get('/items/{id}', { params: { id: z.int(), q: z.string().optional() }, uses: { token, page } }, (input) => input);
    const Order = z.object({ sku: z.string() });
    const Buyer = z.object({ name: z.string() });
    const buyer = dependency({ params: { buyer: Buyer } }, ({ buyer }) => buyer.name);
    app.post('/orders', { params: { order: Order }, uses: { buyer } }, ({ order, buyer }) => ({ sku: order.sku, buyer }));
    const solo = dependency({ params: { note: z.object({ text: z.string() }) } }, ({ note }) => note.text);
    app.post('/notes', { uses: { solo } }, ({ solo }) => ({ solo }));
    return app;
  }

  it('binds the endpoint and its dependencies together; the handler sees only its own params and the values', async () => {
    const client = await start(app());
    const res = await client.get('/items/7?q=a&page=2', { headers: { 'x-token': 'secret' } });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ id: 7, q: 'a', token: 'secret', page: 2 });
  });

  it('one 422 names every failing input, whoever declared it, before any dependency runs', async () => {
    let ran = 0;
    const counted = dependency({ params: { limit: z.int() } }, ({ limit }) => {
      ran++;
      return limit;
    });
    const a = new API({ logger: false });
    a.get('/x/{id}', { params: { id: z.int() }, uses: { token, counted } }, () => 'never');
    const client = await start(a);
    const res = await client.get('/x/abc?limit=z', { headers: { 'x-token': 'ab' } });
    expect(res.status).toBe(422);
    const locations = res
      .json<{ errors: { in: string; path: (string | number)[] }[] }>()
      .errors.map((e) => `${e.in}:${e.path.join('.')}`)
      .sort();
    expect(locations).toEqual(['header:x-token', 'path:id', 'query:limit']);
    expect(ran).toBe(0);
  });

  it('two dependencies may read the same parameter, one schema each, both applied', async () => {
    const asText = dependency({ params: { size: z.string().max(3) } }, ({ size }) => size);
    const asNumber = dependency({ params: { size: z.coerce.number().int().min(10) } }, ({ size }) => size);
    const a = new API({ logger: false });
    a.get('/size', { uses: { asText, asNumber } }, ({ asText, asNumber }) => ({ asText, asNumber }));
    const client = await start(a);
    expect((await client.get('/size?size=42')).json()).toEqual({ asText: '42', asNumber: 42 });
    const both = await client.get('/size?size=5');
    expect(both.status).toBe(422);
    expect(both.json<{ errors: { path: string[] }[] }>().errors.map((e) => e.path.join('.'))).toEqual(['size']);
    const other = await client.get('/size?size=1234');
    expect(other.status).toBe(422);
    expect(other.json<{ errors: unknown[] }>().errors).toHaveLength(1);
  });

  it('counts body parameters together: two models are each read by name; one alone takes the whole body', async () => {
    const client = await start(app());
    const both = await client.post('/orders', { json: { order: { sku: 'A1' }, buyer: { name: 'Ada' } } });
    expect(both.status).toBe(200);
    expect(both.json()).toEqual({ sku: 'A1', buyer: 'Ada' });
    const whole = await client.post('/notes', { json: { text: 'hi' } });
    expect(whole.json()).toEqual({ solo: 'hi' });
    const missing = await client.post('/orders', { json: { order: { sku: 'A1' } } });
    expect(missing.status).toBe(422);
    expect(missing.json<{ errors: { path: string[] }[] }>().errors[0]!.path).toEqual(['buyer']);
  });

  it('documents dependency params as the operation parameters and body fields, and their responses', () => {
    const a = app();
    const needsUser = dependency({ responses: { 401: 'Not signed in' } }, () => {
      throw new UnauthorizedError('Not signed in');
    });
    a.get('/me', { uses: { needsUser } }, ({ needsUser }) => needsUser);
    const doc = a.openapi() as {
      paths: Record<
        string,
        Record<string, { parameters?: { name: string; in: string }[]; requestBody?: unknown; responses: Record<string, unknown> }>
      >;
    };
    const items = doc.paths['/items/{id}']!.get!;
    expect(items.parameters!.map((p) => `${p.in}:${p.name}`).sort()).toEqual(['header:x-token', 'path:id', 'query:page', 'query:q']);
    expect(Object.keys(items.responses)).toContain('422');
    const orders = JSON.stringify(doc.paths['/orders']!.post!.requestBody);
    expect(orders).toContain('"order"');
    expect(orders).toContain('"buyer"');
    expect(Object.keys(doc.paths['/me']!.get!.responses)).toContain('401');
  });
});

describe('registration', () => {
  it('refuses an app dependency with params, and a dependency using a shorter-lived one, naming the chain', () => {
    expect(() => dependency({ lifetime: 'app', params: { a: z.string() } }, () => 1)).toThrow(/'app' dependency .* cannot have params/);
    const perRequest = dependency({ name: 'session' }, () => 1);
    expect(() => dependency({ lifetime: 'app', uses: { perRequest }, name: 'pool' }, () => 1)).toThrow(/pool → session/);
    const perCall = dependency({ lifetime: 'call', name: 'tx' }, () => 1);
    expect(() => dependency({ uses: { perCall }, name: 'repo' }, () => 1)).toThrow(
      /repo \(lifetime 'request'\) uses tx \(lifetime 'call'\)/,
    );
    expect(() => dependency({ uses: { x: 1 as never } }, () => 1)).toThrow(/uses.x is not a dependency/);
  });

  it('refuses a uses name that is also a parameter, at registration', () => {
    const id = dependency({}, () => 1);
    const app = new API({ logger: false });
    // @ts-expect-error: "id" is both a path parameter and a dependency
    expect(() => app.get('/a/{id}', { uses: { id } }, () => 1)).toThrow(/"id" is both a parameter and a dependency/);
    // @ts-expect-error: "q" is both a parameter and a dependency
    expect(() => app.get('/b', { params: { q: z.string() }, uses: { q: id } }, () => 1)).toThrow(/"q" is both/);
  });
});

describe('teardown', () => {
  it("closes in reverse order: 'call' before the answer, 'request' after the answer and its deferred tasks", async () => {
    const log: string[] = [];
    const outer = dependency({}, function* () {
      log.push('outer up');
      yield 'outer';
      log.push('outer down');
    });
    const inner = dependency({ uses: { outer } }, async function* () {
      log.push('inner up');
      yield 'inner';
      log.push('inner down');
    });
    const tx = dependency({ lifetime: 'call' }, function* () {
      log.push('tx up');
      yield 'tx';
      log.push('tx down');
    });
    const app = new API({ logger: false });
    app.get('/t', { uses: { inner, tx } }, (_input, request) => {
      log.push('handler');
      request.defer(async () => {
        await tick();
        log.push('deferred');
      });
      return log.slice();
    });
    const client = await start(app);
    const res = await client.get('/t');
    expect(res.json()).toEqual(['outer up', 'inner up', 'tx up', 'handler']);
    await until(() => log.includes('outer down'));
    expect(log).toEqual(['outer up', 'inner up', 'tx up', 'handler', 'tx down', 'deferred', 'inner down', 'outer down']);
  });

  it("a failing 'call' teardown (a commit) is the answer", async () => {
    const tx = dependency({ lifetime: 'call' }, function* () {
      yield 'tx';
      throw new ConflictError('commit failed');
    });
    const app = new API({ logger: false });
    app.get('/commit', { uses: { tx } }, () => ({ ok: true }));
    const client = await start(app);
    const res = await client.get('/commit');
    expect(res.status).toBe(409);
  });

  it('throws the handler error into each generator before the error answer; a translation answers', async () => {
    const log: string[] = [];
    const db = dependency({}, function* () {
      try {
        yield 'db';
      } catch (error) {
        log.push(`db saw ${(error as Error).message}`);
        throw error;
      } finally {
        log.push('db closed');
      }
    });
    const tx = dependency({ uses: { db } }, async function* () {
      try {
        yield 'tx';
      } catch (error) {
        log.push(`tx saw ${(error as Error).message}`);
        throw new ConflictError('translated');
      }
    });
    const app = new API({ logger: false });
    app.get('/fail', { uses: { tx } }, () => {
      throw new Error('boom');
    });
    const client = await start(app);
    const res = await client.get('/fail');
    expect(res.status).toBe(409);
    expect(res.json<{ detail: string }>().detail).toBe('translated');
    // Teardown ran before the answer.
    expect(log).toEqual(['tx saw boom', 'db saw translated', 'db closed']);
  });

  it('a generator that swallows the error cannot make a success: the original error answers and a warning names it', async () => {
    const { logger, lines } = capturedLogger();
    const quiet = dependency({ name: 'quietDb' }, function* () {
      try {
        yield 1;
      } catch {
        // swallowed
      }
    });
    const app = new API({ logger });
    app.get('/swallow', { uses: { quiet } }, () => {
      throw new ConflictError('original');
    });
    const client = await start(app);
    const res = await client.get('/swallow');
    expect(res.status).toBe(409);
    expect(res.json<{ detail: string }>().detail).toBe('original');
    const warning = lines.find((line) => line.level === 40 && line.dependency === 'quietDb');
    expect(warning?.msg).toMatch(/quietDb swallowed an error/);
  });

  it('a dependency that throws answers with its error, and what was opened before it is closed', async () => {
    const log: string[] = [];
    const first = dependency({}, function* () {
      try {
        yield 1;
      } finally {
        log.push('first closed');
      }
    });
    const refuse = dependency({ uses: { first } }, () => {
      throw new UnauthorizedError('Not signed in');
    });
    const app = new API({ logger: false });
    app.get('/refused', { uses: { refuse } }, () => {
      log.push('handler');
      return 1;
    });
    const client = await start(app);
    const res = await client.get('/refused');
    expect(res.status).toBe(401);
    expect(log).toEqual(['first closed']);
  });

  it('after a timeout, teardown runs once the handler has settled', async () => {
    const log: string[] = [];
    const held = dependency({}, async function* () {
      try {
        yield 'held';
      } finally {
        log.push('closed');
      }
    });
    const app = new API({ logger: false });
    app.get('/slow', { uses: { held }, timeout: 0.05 }, async (_input, request) => {
      await new Promise((resolve) => request.signal.addEventListener('abort', resolve));
      log.push('handler saw abort');
      await tick();
      log.push('handler settled');
      return 1;
    });
    const client = await start(app);
    const res = await client.get('/slow');
    expect(res.status).toBe(504);
    await until(() => log.includes('closed'));
    expect(log).toEqual(['handler saw abort', 'handler settled', 'closed']);
  });

  it("a stream's 'call' and 'request' values are closed when the stream ends", async () => {
    const log: string[] = [];
    const source = dependency({ lifetime: 'call' }, function* () {
      yield [1, 2, 3];
      log.push('source closed');
    });
    const app = new API({ logger: false });
    app.get('/lines', { uses: { source }, lines: z.int() }, async function* ({ source }) {
      for (const n of source) {
        log.push(`item ${n}`);
        yield n;
      }
    });
    const client = await start(app);
    const res = await client.get('/lines');
    expect(res.body.trim().split('\n')).toEqual(['1', '2', '3']);
    await until(() => log.includes('source closed'));
    expect(log).toEqual(['item 1', 'item 2', 'item 3', 'source closed']);
  });
});

describe("'app' lifetime", () => {
  it('is made once after onStartup and before ready, shared, and closed after in-flight work and before onShutdown', async () => {
    const log: string[] = [];
    const settings = dependency({ lifetime: 'app' }, () => {
      log.push('settings');
      return { url: 'db://x' };
    });
    const pool = dependency({ lifetime: 'app', uses: { settings } }, async function* ({ settings }) {
      log.push(`pool open ${settings.url}`);
      yield { query: () => 42 };
      log.push('pool closed');
    });
    const app = new API({ logger: false });
    app.onStartup(() => void log.push('onStartup'));
    app.onShutdown(() => void log.push('onShutdown'));
    app.get('/q', { uses: { pool } }, async ({ pool }, request) => {
      request.defer(async () => {
        await tick();
        log.push('deferred done');
      });
      return { answer: pool.query() };
    });
    const client = await TestClient.start(app);
    expect((await client.get('/q')).json()).toEqual({ answer: 42 });
    expect((await client.get('/q')).json()).toEqual({ answer: 42 });
    await client.close();
    expect(log).toEqual(['onStartup', 'settings', 'pool open db://x', 'deferred done', 'deferred done', 'pool closed', 'onShutdown']);
  });

  it('a failure fails startup (503), and the next request tries again', async () => {
    let attempts = 0;
    const flaky = dependency({ lifetime: 'app' }, () => {
      attempts++;
      if (attempts === 1) throw new Error('database away');
      return 'up';
    });
    const app = new API({ logger: false });
    app.get('/f', { uses: { flaky } }, ({ flaky }) => ({ flaky }));
    const client = await start(app);
    expect((await client.get('/f')).status).toBe(503);
    const res = await client.get('/f');
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ flaky: 'up' });
  });
});

describe('routers and the app', () => {
  it("run the app's, the routers' (outer to inner) and the endpoint's dependencies in that order, then uses", async () => {
    const log: string[] = [];
    const mark = (name: string) => dependency({ name }, () => void log.push(name));
    const app = new API({ logger: false, dependencies: [mark('app')] });
    const outer = new Router({ prefix: '/outer', dependencies: [mark('outer')] });
    const inner = new Router({ prefix: '/inner', dependencies: [mark('inner')] });
    inner.get('/x', { dependencies: [mark('endpoint')], uses: { used: mark('used') } }, () => log.slice());
    outer.includeRouter(inner);
    app.includeRouter(outer);
    const client = await start(app);
    expect((await client.get('/outer/inner/x')).json()).toEqual(['app', 'outer', 'inner', 'endpoint', 'used']);
  });

  it('an app dependency that refuses leaves the document and the docs pages open', async () => {
    const locked = dependency({}, () => {
      throw new UnauthorizedError('locked');
    });
    const app = new API({ logger: false, dependencies: [locked] });
    app.get('/private', () => 1);
    const client = await start(app);
    expect((await client.get('/private')).status).toBe(401);
    expect((await client.get('/openapi.json')).status).toBe(200);
    expect((await client.get('/docs')).status).toBe(200);
    expect((await client.get('/redoc')).status).toBe(200);
  });
});

describe('overrides', () => {
  const realUser = dependency({ params: { authorization: header(z.string()) } }, ({ authorization }) => ({
    name: `real ${authorization}`,
  }));

  function build(): API {
    const app = new API({ logger: false });
    app.get('/who', { uses: { user: realUser } }, ({ user }) => user);
    return app;
  }

  it('app.override replaces a dependency (and what is bound) until restore()', async () => {
    const app = build();
    const client = await start(app);
    expect((await client.get('/who')).status).toBe(422);
    const handle = app.override(realUser, () => ({ name: 'fake' }));
    expect((await client.get('/who')).json()).toEqual({ name: 'fake' });
    handle.restore();
    expect((await client.get('/who', { headers: { authorization: 'x' } })).json()).toEqual({ name: 'real x' });
    {
      using _scoped = app.override(
        realUser,
        dependency({}, () => ({ name: 'scoped' })),
      );
      expect((await client.get('/who')).json()).toEqual({ name: 'scoped' });
    }
    expect((await client.get('/who')).status).toBe(422);
  });

  it("TestClient overrides apply to that client's requests only, in parallel", async () => {
    const app = build();
    const plain = await start(app);
    const [a, b] = await Promise.all([
      start(app, { overrides: [[realUser, () => ({ name: 'A' })]] }),
      start(app, { overrides: [[realUser, () => ({ name: 'B' })]] }),
    ]);
    const answers = await Promise.all([
      a.get('/who'),
      b.get('/who'),
      plain.get('/who', { headers: { authorization: 'z' } }),
      a.get('/who'),
    ]);
    expect(answers.map((r) => r.json())).toEqual([{ name: 'A' }, { name: 'B' }, { name: 'real z' }, { name: 'A' }]);
  });

  it("an 'app' replacement is made once per client and closed with it", async () => {
    const log: string[] = [];
    const pool = dependency({ lifetime: 'app' }, function* () {
      log.push('real pool');
      yield 'real';
    });
    const app = new API({ logger: false });
    app.get('/pool', { uses: { pool } }, ({ pool }) => ({ pool }));
    const fake = dependency({ lifetime: 'app' }, function* () {
      log.push('fake open');
      yield 'fake';
      log.push('fake closed');
    });
    const client = await TestClient.start(app, { overrides: [[pool, fake]] });
    expect((await client.get('/pool')).json()).toEqual({ pool: 'fake' });
    expect((await client.get('/pool')).json()).toEqual({ pool: 'fake' });
    await client.close();
    expect(log.filter((l) => l.startsWith('fake'))).toEqual(['fake open', 'fake closed']);
  });

  it('does not change the document', () => {
    const app = build();
    app.override(realUser, () => ({ name: 'fake' }));
    const doc = app.openapi() as { paths: Record<string, Record<string, { parameters?: { name: string }[] }>> };
    expect(doc.paths['/who']!.get!.parameters!.map((p) => p.name)).toEqual(['authorization']);
  });
});

describe('WebSockets', () => {
  it("gives dependency values to the handler; a 'request' value lives as long as the connection", async () => {
    const log: string[] = [];
    const room = dependency({}, async function* () {
      log.push('room open');
      yield { name: 'lobby' };
      log.push('room closed');
    });
    const app = new API({ logger: false });
    app.ws('/chat', { uses: { room } }, async ({ room }, socket) => {
      for await (const message of socket) await socket.send(`${room.name}: ${String(message)}`);
    });
    const client = await start(app);
    const socket = await client.ws('/chat');
    await socket.send('hi');
    expect(await socket.next()).toBe('lobby: hi');
    expect(log).toEqual(['room open']);
    await socket.close();
    await until(() => log.includes('room closed'));
  });
});

describe("outside the app's dependencies", () => {
  it('an endpoint marked outsideAppDependencies (an extension with its own guard) is not behind the app guard', async () => {
    const { annotateHandler } = await import('../src/extend.js');
    const locked = dependency({}, () => {
      throw new UnauthorizedError('locked');
    });
    const app = new API({ logger: false, dependencies: [locked] });
    app.get('/inside', () => 1);
    app.get(
      '/outside',
      annotateHandler(() => ({ open: true }), { outsideAppDependencies: true }),
    );
    const client = await start(app);
    expect((await client.get('/inside')).status).toBe(401);
    expect((await client.get('/outside')).json()).toEqual({ open: true });
  });
});
