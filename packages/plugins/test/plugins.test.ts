import { Writable } from 'node:stream';
import { API, NotFoundError, Response, type Request } from '@fnapi/core';
import type { EventName } from '@fnapi/core/extend';
import { TestClient } from '@fnapi/core/testing';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Plugin, type PluginMetadata } from '../src/index.js';

let client: TestClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

function capture() {
  const lines: Record<string, any>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino(stream), lines };
}

class Recording extends Plugin {
  constructor(
    private readonly name: string,
    private readonly log: string[],
    private readonly dependencies?: string[],
  ) {
    super();
  }
  getMetadata(): PluginMetadata {
    return { name: this.name, version: '1.0.0', description: `records ${this.name}`, dependencies: this.dependencies };
  }
  async preRequest(request: Request) {
    this.log.push(`${this.name}:pre`);
    return request;
  }
  async postResponse(response: Response) {
    this.log.push(`${this.name}:post`);
    response.headers.append('x-plugins', this.name);
    return response;
  }
}

/** A plugin that fails in every hook and every event, synchronously or not. */
class Broken extends Plugin {
  getMetadata() {
    return { name: 'broken', version: '0.0.1' };
  }
  preRequest(): never {
    throw new Error('pre');
  }
  async postResponse(): Promise<never> {
    throw new Error('post');
  }
  onError(): never {
    throw new Error('onError');
  }
  async onEvent(): Promise<never> {
    throw new Error('event');
  }
}

function appWithRoutes(options: ConstructorParameters<typeof API>[0] = { logger: false }) {
  const app = new API(options);
  app.get('/ok', () => ({ ok: true }));
  app.get('/missing', () => {
    throw new NotFoundError('no such thing', { id: 1 });
  });
  app.get('/boom', () => {
    throw new Error('kaput');
  });
  return app;
}

describe('Plugin hooks', () => {
  it('run preRequest in registration order and postResponse in reverse', async () => {
    const log: string[] = [];
    const app = new API({ logger: false });
    app.get('/x', () => {
      log.push('handler');
      return 'x';
    });
    app.addMiddleware(async (request: Request, callNext: (r: Request) => Promise<Response>) => {
      log.push('middleware:in');
      const response = await callNext(request);
      log.push('middleware:out');
      return response;
    });
    for (const name of ['a', 'b', 'c']) app.pluginManager.register(new Recording(name, log));
    client = await TestClient.start(app);
    const res = await client.get('/x');
    expect(res.status).toBe(200);
    expect(log).toEqual(['a:pre', 'b:pre', 'c:pre', 'middleware:in', 'handler', 'middleware:out', 'c:post', 'b:post', 'a:post']);
    expect(res.headers['x-plugins']).toEqual(['c', 'b', 'a']);
  });

  it('postResponse sees error responses too', async () => {
    const log: string[] = [];
    const app = appWithRoutes();
    app.pluginManager.register(new Recording('a', log));
    client = await TestClient.start(app);
    expect((await client.get('/missing')).headers['x-plugins']).toBe('a');
    expect((await client.get('/boom')).headers['x-plugins']).toBe('a');
    expect((await client.get('/nowhere')).headers['x-plugins']).toBe('a');
  });

  it('a preRequest hook may replace the request', async () => {
    const { Request: RequestClass } = await import('@fnapi/core');
    class Rewrite extends Plugin {
      getMetadata() {
        return { name: 'rewrite', version: '1' };
      }
      preRequest(request: Request) {
        if (request.path !== '/old') return request;
        return new RequestClass({ method: request.method, path: '/ok', headers: request.headers.raw });
      }
    }
    const app = appWithRoutes();
    app.pluginManager.register(new Rewrite());
    client = await TestClient.start(app);
    const res = await client.get('/old');
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ ok: true });
  });

  it('onError can answer a failed request; the first answer wins', async () => {
    const seen: string[] = [];
    class Rescue extends Plugin {
      getMetadata() {
        return { name: 'rescue', version: '1' };
      }
      onError(error: unknown, request: Request) {
        seen.push(`${request.path}:${(error as Error).message}`);
        if (request.path === '/boom') return new Response({ rescued: true }, { statusCode: 503, headers: { 'retry-after': '5' } });
        return undefined;
      }
    }
    class Second extends Plugin {
      getMetadata() {
        return { name: 'second', version: '1' };
      }
      onError() {
        seen.push('second');
        return new globalThis.Response('second answer', { status: 502 });
      }
    }
    const app = appWithRoutes();
    app.pluginManager.register(new Rescue());
    client = await TestClient.start(app);
    const boom = await client.get('/boom');
    expect(boom.status).toBe(503);
    expect(boom.headers['retry-after']).toBe('5');
    expect(boom.json()).toEqual({ rescued: true });
    // Not answered: the HTTPError keeps its own problem response.
    const missing = await client.get('/missing');
    expect(missing.status).toBe(404);
    expect(seen).toEqual(['/boom:kaput', '/missing:no such thing']);

    app.pluginManager.register(new Second());
    seen.length = 0;
    expect((await client.get('/boom')).status).toBe(503);
    const answered = await client.get('/missing');
    expect(answered.status).toBe(502);
    expect(answered.body).toBe('second answer');
    expect(seen).toEqual(['/boom:kaput', '/missing:no such thing', 'second']);
  });

  it('a plugin that throws in every hook changes no response, and is logged', async () => {
    const paths = ['/ok', '/missing', '/boom', '/nowhere'];
    const plain = await TestClient.start(appWithRoutes());
    const expected = [];
    for (const path of paths) expected.push(await plain.get(path));
    await plain.close();

    const { logger, lines } = capture();
    const app = appWithRoutes({ logger });
    app.pluginManager.register(new Broken());
    client = await TestClient.start(app);
    for (const [i, path] of paths.entries()) {
      const res = await client.get(path);
      expect(res.status, path).toBe(expected[i]!.status);
      expect(res.body, path).toBe(expected[i]!.body);
      expect(res.headers['content-type'], path).toBe(expected[i]!.headers['content-type']);
    }
    // Async event failures are logged when they reject: wait for every hook's line.
    const hooksLogged = () => new Set(lines.filter((l) => l.plugin === 'broken').map((l) => String(l.hook).replace(/\(.*\)/, '')));
    await vi.waitUntil(() => hooksLogged().size >= 4);
    expect(hooksLogged()).toEqual(new Set(['preRequest', 'postResponse', 'onError', 'onEvent']));
  });
});

describe('Plugin events', () => {
  it('delivers plugin, endpoint, server and request events with their payloads', async () => {
    const events: [EventName, Record<string, unknown>][] = [];
    const named: string[] = [];
    class Watcher extends Plugin {
      getMetadata() {
        return { name: 'watcher', version: '1' };
      }
      override initialize(api: API) {
        super.initialize(api);
        this.registerHook('server_started', (payload) => named.push(`started ${String(payload.url)}`));
        this.registerHook('endpoint_registered', (payload) => named.push(`endpoint ${String(payload.route)}`));
      }
      onEvent(event: EventName, payload: Record<string, unknown>) {
        events.push([event, payload]);
      }
    }
    const app = new API({ logger: false });
    app.get('/before', () => 'before');
    const watcher = new Watcher();
    app.pluginManager.register(watcher);
    app.get('/after', () => 'after');
    app.pluginManager.register(new Recording('other', []));
    app.pluginManager.deactivate('other');
    app.pluginManager.activate('other');

    client = await TestClient.start(app);
    const res = await client.get('/after');
    expect(res.status).toBe(200);
    await client.close();
    client = undefined;

    const names = events.map(([event]) => event);
    expect(names).toEqual([
      'plugin_registered', // its own registration
      'endpoint_registered',
      'plugin_registered',
      'plugin_deactivated',
      'plugin_activated',
      'server_starting',
      'server_started',
      'request_received',
      'response_sent',
      'server_stopping',
      'server_stopped',
    ]);
    const payload = (name: EventName) => events.find(([event]) => event === name)![1];
    expect(payload('plugin_registered')).toEqual({ name: 'watcher' });
    expect(events[2]![1]).toEqual({ name: 'other' });
    expect(payload('plugin_deactivated')).toEqual({ name: 'other' });
    expect(payload('plugin_activated')).toEqual({ name: 'other' });
    expect(payload('endpoint_registered')).toMatchObject({ method: 'GET', route: '/after' });
    expect(payload('endpoint_registered').operationId).toBeTypeOf('string');
    expect(String(payload('server_started').url)).toMatch(/^http:\/\/127\.0\.0\.1:\d+/);
    expect((payload('request_received').request as Request).path).toBe('/after');
    const sent = payload('response_sent');
    expect((sent.response as Response).statusCode).toBe(200);
    expect(sent.duration).toBeTypeOf('number');
    expect(named).toEqual(['endpoint /after', expect.stringMatching(/^started http:\/\/127\.0\.0\.1:\d+/)]);
    // Endpoints registered earlier are listed on the app.
    expect(watcher.api.routes.map((r) => r.route)).toEqual(['/before', '/after']);
  });

  it('reports error_occurred for failed requests', async () => {
    const errors: unknown[] = [];
    class Errors extends Plugin {
      getMetadata() {
        return { name: 'errors', version: '1' };
      }
    }
    const plugin = new Errors();
    plugin.registerHook('error_occurred', (payload) => errors.push((payload.error as Error).message));
    const app = appWithRoutes();
    app.pluginManager.register(plugin);
    client = await TestClient.start(app);
    await client.get('/boom');
    await client.get('/missing');
    await client.get('/ok');
    expect(errors).toEqual(['kaput', 'no such thing']);
  });
});

describe('Plugin registration', () => {
  it('initialize sets api and a logger child named after the plugin', () => {
    const { logger, lines } = capture();
    class Audit extends Plugin {
      getMetadata() {
        return { name: 'audit', version: '1.0.0', description: 'Audit trail' };
      }
      override initialize(api: API) {
        super.initialize(api);
        this.logger.info('audit ready');
      }
    }
    const app = new API({ logger });
    const audit = new Audit();
    app.pluginManager.register(audit);
    expect(audit.api).toBe(app);
    expect(lines).toEqual([expect.objectContaining({ plugin: 'audit', msg: 'audit ready' })]);
    expect(app.pluginManager.isActive('audit')).toBe(true);
    app.pluginManager.activate('audit'); // activating an active plugin does nothing
    expect(app.pluginManager.isActive(audit)).toBe(true);
  });

  it('enforces dependencies', () => {
    const app = new API({ logger: false });
    expect(() => app.pluginManager.register(new Recording('child', [], ['parent']))).toThrow(/depends on "parent"/);
    expect(app.pluginManager.get('child')).toBeUndefined();
    app.pluginManager.register(new Recording('parent', []));
    expect(() => app.pluginManager.register(new Recording('child', [], ['parent']))).not.toThrow();
  });

  it('refuses a second plugin of the same name', () => {
    const app = new API({ logger: false });
    app.pluginManager.register(new Recording('same', []));
    expect(() => app.pluginManager.register(new Recording('same', []))).toThrow(/already registered/);
  });

  it('deactivate stops its hooks and activate resumes them', async () => {
    const log: string[] = [];
    const app = appWithRoutes();
    const plugin = new Recording('switch', log);
    app.pluginManager.register(plugin);
    client = await TestClient.start(app);
    await client.get('/ok');
    app.pluginManager.deactivate(plugin);
    const off = await client.get('/ok');
    expect(off.headers['x-plugins']).toBeUndefined();
    app.pluginManager.activate('switch');
    await client.get('/ok');
    expect(log).toEqual(['switch:pre', 'switch:post', 'switch:pre', 'switch:post']);
    expect(() => app.pluginManager.activate('unknown')).toThrow(/not registered/);
  });

  it('registerHook after registration takes effect at once', async () => {
    class Late extends Plugin {
      getMetadata() {
        return { name: 'late', version: '1' };
      }
    }
    const app = appWithRoutes();
    const late = new Late();
    app.pluginManager.register(late);
    client = await TestClient.start(app);
    expect((await client.get('/ok')).headers['x-late']).toBeUndefined();
    late.registerHook('postResponse', (response) => {
      response.headers.set('x-late', 'yes');
      return response;
    });
    expect((await client.get('/ok')).headers['x-late']).toBe('yes');
    const untyped = late.registerHook.bind(late) as (name: string, callback: () => void) => unknown;
    expect(() => untyped('nonsense', () => {})).toThrow(/Unknown hook/);
  });
});
