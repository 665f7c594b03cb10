/**
 * The compile/serve split and the one error path: registration checks on the spot, lazy compilation,
 * each error reported to plugins exactly once wherever it is caught, compose's guard, and the sync
 * path kept when a plugin listens only to lifecycle events.
 */
import { describe, expect, it, vi } from 'vitest';
import { API, type CallNext, HTTPError, Request, type Response, Router, z } from '../src/index.js';
import { runtimeOf } from '../src/wire/index.js';
import type { EventName, PluginLike } from '../src/extend.js';
import { serve, viaInject } from './helpers.js';

/** A plugin that records what `onError` and the `error_occurred` event receive. */
function recorder(): PluginLike & { errors: unknown[]; events: unknown[] } {
  const errors: unknown[] = [];
  const events: unknown[] = [];
  return {
    errors,
    events,
    getMetadata: () => ({ name: 'recorder', version: '1.0.0' }),
    onError: (error: unknown) => {
      errors.push(error);
    },
    registeredHooks: () => [['error_occurred', (payload: { error: unknown }) => events.push(payload.error)]],
  };
}

/** A plugin with one event listener and nothing else. */
function listener(event: EventName, callback: (payload: Record<string, unknown>) => void): PluginLike {
  return { getMetadata: () => ({ name: `on-${event}`, version: '1' }), registeredHooks: () => [[event, callback]] };
}

function failing(message: string): never {
  throw new Error(message);
}

describe('registration', () => {
  it('refuses an Express-style :id segment, saying what to write', () => {
    const app = new API({ logger: false });
    expect(() => app.get('/users/:id', () => ({}))).toThrow(/Express-style.*write \{id\} instead/);
    expect(app.routes).toEqual([]);
  });

  it('refuses the same method and route twice as a duplicate, not as an operationId clash', () => {
    const app = new API({ logger: false });
    app.get('/a', function first() {});
    expect(() => app.get('/a', function second() {})).toThrow('GET /a is registered twice');
    app.get('/b', function first() {});
    expect(app.routes.map((r) => r.operationId)).toEqual(['first', 'first_get_b']);
  });

  it('checks an endpoint added to an included router against the app', () => {
    const app = new API({ logger: false });
    const users = new Router({ prefix: '/users' });
    app.get('/users/{id}', { params: { id: z.int() } }, () => ({}));
    app.includeRouter(users);
    expect(() => users.get('/{id}', () => ({}))).toThrow('GET /users/{id} is registered twice');
    expect(() => users.get('/{id}/x', () => ({}))).not.toThrow();
    expect(() => users.get('/{other}/y', () => ({}))).toThrow(/conflicts with \{id\}/);
    expect(app.routes.map((r) => r.route)).toEqual(['/users/{id}', '/users/{id}/x']);
  });

  it('refuses a path parameter whose schema cannot be read from a string, naming the endpoint', () => {
    const app = new API({ logger: false });
    expect(() => app.get('/x/{id}', { params: { id: z.object({ a: z.string() }) } }, () => ({}))).toThrow(
      /GET \/x\/\{id\}: Path parameter "id" has an object schema/,
    );
  });

  it('compiles lazily: the first request sees every registration, later ones recompile once', async () => {
    const app = new API({ logger: false });
    app.get('/one', () => 1);
    expect((await app.inject('/one')).body).toBe('1');
    app.get('/two', () => 2);
    app.addMiddleware(async (request, callNext) => {
      const response = await callNext(request);
      response.headers.set('x-late', 'yes');
      return response;
    });
    const two = await app.inject('/two');
    expect(two.body).toBe('2');
    expect(two.headers['x-late']).toBe('yes');
  });

  it('announces endpoint_registered once per endpoint, at registration', () => {
    const app = new API({ logger: false });
    const seen: unknown[] = [];
    app.pluginManager.register(listener('endpoint_registered', (payload) => seen.push(payload)));
    const router = new Router({ prefix: '/r' });
    app.includeRouter(router);
    router.get('/a', function a() {});
    app.get('/b', function b() {});
    void app.routes;
    void app.openapi();
    expect(seen).toEqual([
      { method: 'GET', route: '/r/a', operationId: 'a' },
      { method: 'GET', route: '/b', operationId: 'b' },
    ]);
  });
});

describe('compose', () => {
  it('refuses a second callNext from the same middleware, and the handler runs once', async () => {
    let calls = 0;
    const app = new API({ logger: false, debug: true });
    app.addMiddleware(async (request: Request, callNext: CallNext) => {
      await callNext(request);
      return callNext(request);
    });
    app.get('/count', () => ({ calls: ++calls }));
    const res = await app.inject('/count');
    expect(res.status).toBe(500);
    expect(res.json<{ debug: { message: string } }>().debug.message).toMatch(/called callNext\(\) more than once/);
    expect(calls).toBe(1);
  });
});

describe('errors reach onError and error_occurred exactly once', () => {
  const cases: [string, (app: API) => void][] = [
    ['in a handler', (app) => app.get('/boom', () => failing('handler'))],
    [
      'in app middleware',
      (app) => {
        app.addMiddleware(() => failing('middleware'));
        app.get('/boom', () => 'never');
      },
    ],
    [
      'in router middleware',
      (app) => {
        const router = new Router();
        router.addMiddleware(() => failing('router middleware'));
        router.get('/boom', () => 'never');
        app.includeRouter(router);
      },
    ],
    [
      'as an HTTPError in a handler, seen by middleware as a response',
      (app) => {
        app.addMiddleware(async (request, callNext) => callNext(request));
        app.get('/boom', () => {
          throw new HTTPError(418, 'teapot');
        });
      },
    ],
  ];
  for (const [where, setup] of cases) {
    it(where, async () => {
      const app = new API({ logger: false });
      const plugin = recorder();
      app.pluginManager.register(plugin);
      setup(app);
      const res = await app.inject('/boom');
      expect([418, 500]).toContain(res.status);
      expect(plugin.errors).toHaveLength(1);
      expect(plugin.events).toHaveLength(1);
      expect(plugin.events[0]).toBe(plugin.errors[0]);
    });
  }
});

describe('plugins that only listen to lifecycle events', () => {
  it('leave a sync route answered at once, with no promise on its path', async () => {
    const app = new API({ logger: false });
    app.pluginManager.register(listener('server_started', () => {}));
    app.get('/hello', () => ({ message: 'hello' }));
    const runtime = runtimeOf(app);
    await runtime.startup();
    const answered: Response[] = [];
    runtime.serve(new Request({ method: 'GET', path: '/hello' }), (response) => answered.push(response), undefined);
    expect(answered).toHaveLength(1);
    // A plugin that hooks each request makes the answer asynchronous.
    app.pluginManager.register(listener('response_sent', () => {}));
    runtime.serve(new Request({ method: 'GET', path: '/hello' }), (response) => answered.push(response), undefined);
    expect(answered).toHaveLength(1);
    await vi.waitFor(() => expect(answered).toHaveLength(2));
  });
});

describe('205 Reset Content', () => {
  const served = serve(() => {
    const app = new API({ logger: false });
    app.post('/forms/reset', { statusCode: 205 }, () => ({ ignored: true }));
    return app;
  });
  it('is sent without a body on every transport and documented without content', async () => {
    for (const transport of ['http', 'inject', 'fetch'] as const) {
      const res = await served.send(transport, { method: 'POST', path: '/forms/reset' });
      expect(res.status, transport).toBe(205);
      expect(res.body, transport).toBe('');
      expect(res.contentType, transport).toBeNull();
    }
    const doc = served.app.openapi() as { paths: Record<string, Record<string, { responses: Record<string, { content?: unknown }> }>> };
    const reset = doc.paths['/forms/reset']!.post!.responses['205']!;
    expect(reset).toBeDefined();
    expect(reset.content).toBeUndefined();
  });
});

describe('redirectSlashes', () => {
  function app(options: { redirectSlashes?: boolean } = {}) {
    const api = new API({ logger: false, ...options });
    api.get('/books/', () => ['dune']);
    api.get('/authors', () => ['herbert']);
    return api;
  }
  it('answers 308 to the registered path, query kept', async () => {
    const a = app();
    const books = await viaInject(a, { path: '/books?page=2' });
    expect(books.status).toBe(308);
    expect(books.headers.location).toBe('/books/?page=2');
    const authors = await viaInject(a, { path: '/authors/' });
    expect(authors.status).toBe(308);
    expect(authors.headers.location).toBe('/authors');
    expect((await viaInject(a, { method: 'POST', path: '/authors/' })).status).toBe(404);
  });
  it('is off with redirectSlashes: false', async () => {
    expect((await viaInject(app({ redirectSlashes: false }), { path: '/books' })).status).toBe(404);
  });
});

describe('decorators', () => {
  it('explain how to switch when called as experimentalDecorators', async () => {
    const { api } = await import('../src/index.js');
    const legacy = api({ route: '/x' }) as unknown as (target: object, key: string, descriptor: PropertyDescriptor) => void;
    expect(() => legacy({}, 'method', { value: () => 1 })).toThrow(/standard \(TC39\) decorator.*remove "experimentalDecorators"/);
  });
});
