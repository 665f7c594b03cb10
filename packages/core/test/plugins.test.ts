/**
 * Core's PluginManager with plain-object plugins: hook order, onError, failing hooks and events.
 */
import { describe, expect, it } from 'vitest';
import { API, NotFoundError, Request, Response, z } from '../src/index.js';
import type { EventName, PluginLike } from '../src/extend.js';
import { GENERIC_500, problem, serve, TRANSPORTS, viaInject, withTransport } from './helpers.js';
import { TestClient } from '../src/server/testing.js';

const log: string[] = [];

function tracer(name: string, extra: Partial<PluginLike> = {}): PluginLike {
  return {
    getMetadata: () => ({ name, version: '1.0.0' }),
    preRequest(request) {
      log.push(`${name}:pre`);
      request.state[name] = true;
      return request;
    },
    postResponse(response) {
      log.push(`${name}:post:${response.statusCode}`);
      response.headers.append('x-plugins', name);
      return response;
    },
    ...extra,
  };
}

function build(): API {
  const app = new API({ logger: false });
  app.addMiddleware(async (request, callNext) => {
    log.push('middleware:in');
    try {
      const response = await callNext(request);
      log.push('middleware:out');
      return response;
    } catch (error) {
      log.push('middleware:caught');
      throw error;
    }
  });
  app.pluginManager.register(tracer('first'));
  app.pluginManager.register(
    tracer('second', {
      onError(error) {
        log.push(`second:onError:${(error as Error).message}`);
        if (error instanceof TypeError) return new Response({ handledBy: 'second' }, { statusCode: 418 });
        return undefined;
      },
    }),
  );
  app.pluginManager.register(
    tracer('third', {
      onError(error) {
        log.push(`third:onError:${(error as Error).message}`);
        return undefined;
      },
    }),
  );
  app.get('/hello', (_input, request) => {
    log.push('handler');
    return { state: { first: request.state.first, second: request.state.second, third: request.state.third } };
  });
  app.get('/type-error', () => {
    log.push('handler');
    throw new TypeError('answered by a plugin');
  });
  app.get('/range-error', () => {
    throw new RangeError('nobody answers');
  });
  app.get('/not-found', () => {
    throw new NotFoundError('missing');
  });
  return app;
}

describe('plugin hooks', () => {
  const served = serve(build);

  describe.each(TRANSPORTS)('via %s', (transport) => {
    it('preRequest in registration order, postResponse in reverse, around the middleware', async () => {
      log.length = 0;
      const res = await served.send(transport, { path: '/hello' });
      expect(res.status).toBe(200);
      expect(res.json()).toEqual({ state: { first: true, second: true, third: true } });
      expect(log).toEqual([
        'first:pre',
        'second:pre',
        'third:pre',
        'middleware:in',
        'handler',
        'middleware:out',
        'third:post:200',
        'second:post:200',
        'first:post:200',
      ]);
      expect(res.headers['x-plugins']).toBe('third, second, first');
    });

    it('the first onError that returns a Response answers, inside the middleware', async () => {
      log.length = 0;
      const res = await served.send(transport, { path: '/type-error' });
      expect(res.status).toBe(418);
      expect(res.json()).toEqual({ handledBy: 'second' });
      expect(log).toEqual([
        'first:pre',
        'second:pre',
        'third:pre',
        'middleware:in',
        'handler',
        'second:onError:answered by a plugin',
        'middleware:out',
        'third:post:418',
        'second:post:418',
        'first:post:418',
      ]);
    });

    it('an unanswered exception goes on through the middleware to a 500 that postResponse sees', async () => {
      log.length = 0;
      const res = await served.send(transport, { path: '/range-error' });
      expect(res.status).toBe(500);
      expect(res.json()).toEqual(GENERIC_500);
      expect(log).toEqual([
        'first:pre',
        'second:pre',
        'third:pre',
        'middleware:in',
        'second:onError:nobody answers',
        'third:onError:nobody answers',
        'middleware:caught',
        'third:post:500',
        'second:post:500',
        'first:post:500',
      ]);
      expect(res.headers['x-plugins']).toBe('third, second, first');
    });

    it('an HTTPError is offered to onError, then becomes a problem response', async () => {
      log.length = 0;
      const res = await served.send(transport, { path: '/not-found' });
      expect(res.status).toBe(404);
      expect(res.json()).toEqual(problem(404, 'Not Found', 'missing'));
      expect(log).toContain('second:onError:missing');
      expect(log).toContain('third:onError:missing');
      expect(log.indexOf('third:onError:missing')).toBeLessThan(log.indexOf('middleware:out'));
    });

    it('postResponse sees 404s of unknown paths', async () => {
      log.length = 0;
      const res = await served.send(transport, { path: '/nowhere' });
      expect(res.status).toBe(404);
      expect(log).toEqual([
        'first:pre',
        'second:pre',
        'third:pre',
        'middleware:in',
        'middleware:out',
        'third:post:404',
        'second:post:404',
        'first:post:404',
      ]);
    });
  });
});

describe('failing and replacing hooks', () => {
  function failing(): PluginLike {
    return {
      getMetadata: () => ({ name: 'failing', version: '0.0.1' }),
      preRequest() {
        throw new Error('preRequest failed');
      },
      postResponse() {
        throw new Error('postResponse failed');
      },
      onError() {
        throw new Error('onError failed');
      },
      onEvent() {
        throw new Error('onEvent failed');
      },
    };
  }

  it.each(TRANSPORTS)('a throwing hook is skipped (%s)', async (transport) => {
    const app = new API({ logger: false });
    app.pluginManager.register(failing());
    app.pluginManager.register({
      getMetadata: () => ({ name: 'answering', version: '1.0.0' }),
      onError: (error) => new Response({ answered: (error as Error).message }, { statusCode: 503 }),
    });
    app.get('/ok', () => ({ ok: true }));
    app.get('/boom', () => {
      throw new Error('boom');
    });
    await withTransport(app, transport, async (send) => {
      const ok = await send({ path: '/ok' });
      expect(ok.status).toBe(200);
      expect(ok.json()).toEqual({ ok: true });
      const boom = await send({ path: '/boom' });
      expect(boom.status).toBe(503);
      expect(boom.json()).toEqual({ answered: 'boom' });
    });
  });

  it('a throwing hook leaves the 500 of an unanswered error intact', async () => {
    const app = new API({ logger: false });
    app.pluginManager.register(failing());
    app.get('/boom', () => {
      throw new Error('boom');
    });
    const res = await viaInject(app, { path: '/boom' });
    expect(res.status).toBe(500);
    expect(res.json()).toEqual(GENERIC_500);
  });

  it('preRequest may replace the request and postResponse the response', async () => {
    const app = new API({ logger: false });
    app.pluginManager.register({
      getMetadata: () => ({ name: 'rewrite', version: '1.0.0' }),
      preRequest: (request) => new Request({ method: request.method, path: '/rewritten', headers: { 'x-from': 'plugin' } }),
      postResponse: (response) => (response.statusCode === 200 ? new globalThis.Response('replaced', { status: 202 }) : undefined),
    });
    let seenHeader: string | null = null;
    app.get('/rewritten', (_input, request) => {
      seenHeader = request.headers.get('x-from');
      return 'original';
    });
    const res = await viaInject(app, { path: '/anything' });
    expect(seenHeader).toBe('plugin');
    expect(res.status).toBe(202);
    expect(res.body).toBe('replaced');
  });
});

describe('plugin events', () => {
  type Seen = [EventName, Record<string, unknown>];

  function observer(name: string, seen: Seen[]): PluginLike {
    return {
      getMetadata: () => ({ name, version: '1.0.0' }),
      onEvent: (event, payload) => {
        seen.push([event, payload]);
      },
    };
  }

  it('endpoint_registered for endpoints added after the plugin, with method, route and operationId', () => {
    const seen: Seen[] = [];
    const app = new API({ logger: false });
    app.get('/before', () => 1);
    app.pluginManager.register(observer('events', seen));
    app.get('/after/{id}', function getAfter() {
      return 2;
    });
    app.post('/after', () => 3);
    const registered = seen.filter(([event]) => event === 'endpoint_registered').map(([, payload]) => payload);
    expect(registered).toEqual([
      { method: 'GET', route: '/after/{id}', operationId: 'getAfter' },
      { method: 'POST', route: '/after', operationId: 'post_after' },
    ]);
    expect(app.routes.map((r) => r.route)).toEqual(['/before', '/after/{id}', '/after']);
  });

  it('request_received, response_sent and error_occurred with their payloads', async () => {
    const seen: Seen[] = [];
    const app = new API({ logger: false });
    app.pluginManager.register(observer('events', seen));
    app.get('/ok', () => 'ok');
    app.get('/boom', () => {
      throw new Error('boom');
    });
    app.get('/missing', () => {
      throw new NotFoundError('missing');
    });
    app.get('/slow-validate', { params: { n: z.int() } }, ({ n }) => n);

    seen.length = 0;
    await viaInject(app, { path: '/ok' });
    expect(seen.map(([event]) => event)).toEqual(['request_received', 'response_sent']);
    const [[, received], [, sent]] = seen as [Seen, Seen];
    expect(received.request).toBeInstanceOf(Request);
    expect((received.request as Request).path).toBe('/ok');
    expect(sent.request).toBe(received.request);
    expect(sent.response).toBeInstanceOf(Response);
    expect((sent.response as Response).statusCode).toBe(200);
    expect(typeof sent.duration).toBe('number');
    expect(sent.duration as number).toBeGreaterThanOrEqual(0);

    seen.length = 0;
    const boom = await viaInject(app, { path: '/boom' });
    expect(boom.status).toBe(500);
    expect(seen.map(([event]) => event)).toEqual(['request_received', 'error_occurred', 'response_sent']);
    const errorPayload = seen[1]![1];
    expect((errorPayload.error as Error).message).toBe('boom');
    expect((errorPayload.request as Request).path).toBe('/boom');
    expect((seen[2]![1].response as Response).statusCode).toBe(500);

    seen.length = 0;
    await viaInject(app, { path: '/missing' });
    expect(seen.map(([event]) => event)).toEqual(['request_received', 'error_occurred', 'response_sent']);
    expect(seen[1]![1].error).toBeInstanceOf(NotFoundError);

    seen.length = 0;
    await viaInject(app, { path: '/slow-validate?n=x' });
    expect(seen.map(([event]) => event)).toEqual(['request_received', 'error_occurred', 'response_sent']);
    expect((seen[1]![1].error as { statusCode: number }).statusCode).toBe(422);
  });

  it('error_occurred for an exception thrown by middleware', async () => {
    const seen: Seen[] = [];
    const app = new API({ logger: false });
    app.pluginManager.register(observer('events', seen));
    app.addMiddleware(() => {
      throw new Error('middleware failed');
    });
    app.get('/x', () => 1);
    const res = await viaInject(app, { path: '/x' });
    expect(res.status).toBe(500);
    const errors = seen.filter(([event]) => event === 'error_occurred');
    expect(errors).toHaveLength(1);
    expect((errors[0]![1].error as Error).message).toBe('middleware failed');
  });

  it('events through real HTTP', async () => {
    const seen: Seen[] = [];
    const app = new API({ logger: false });
    app.pluginManager.register(observer('events', seen));
    app.get('/ok', () => 'ok');
    const client = await TestClient.start(app);
    try {
      seen.length = 0;
      const res = await client.get('/ok');
      expect(res.status).toBe(200);
      expect(seen.map(([event]) => event)).toEqual(['request_received', 'response_sent']);
      expect((seen[0]![1].request as Request).client.address).toBe('127.0.0.1');
    } finally {
      await client.close();
    }
    const lifecycle = seen.map(([event]) => event).filter((e) => e.startsWith('server_'));
    expect(lifecycle).toEqual(['server_stopping', 'server_stopped']);
  });

  it('plugin_* events, and deactivated plugins are skipped', async () => {
    const seen: Seen[] = [];
    const app = new API({ logger: false });
    app.pluginManager.register(observer('watcher', seen));
    const hooks: string[] = [];
    const toggled: PluginLike = {
      getMetadata: () => ({ name: 'toggled', version: '1.0.0' }),
      preRequest: () => {
        hooks.push('pre');
      },
    };
    app.pluginManager.register(toggled);
    app.get('/x', () => 1);
    await viaInject(app, { path: '/x' });
    app.pluginManager.deactivate('toggled');
    expect(app.pluginManager.isActive('toggled')).toBe(false);
    await viaInject(app, { path: '/x' });
    app.pluginManager.activate(toggled);
    app.pluginManager.activate('toggled');
    await viaInject(app, { path: '/x' });
    expect(hooks).toEqual(['pre', 'pre']);
    expect(seen.filter(([event]) => event.startsWith('plugin_'))).toEqual([
      ['plugin_registered', { name: 'watcher' }],
      ['plugin_registered', { name: 'toggled' }],
      ['plugin_deactivated', { name: 'toggled' }],
      ['plugin_activated', { name: 'toggled' }],
    ]);
  });

  it('named event callbacks from registeredHooks()', async () => {
    const sent: number[] = [];
    const app = new API({ logger: false });
    app.pluginManager.register({
      getMetadata: () => ({ name: 'named', version: '1.0.0' }),
      *registeredHooks() {
        yield ['response_sent', (payload: Record<string, unknown>) => sent.push((payload.response as Response).statusCode)] as const;
      },
    });
    app.get('/x', () => 1);
    await viaInject(app, { path: '/x' });
    await viaInject(app, { path: '/y' });
    expect(sent).toEqual([200, 404]);
  });
});

describe('plugin registration', () => {
  it('calls initialize once with the API', () => {
    const app = new API({ logger: false });
    const calls: unknown[] = [];
    app.pluginManager.register({ getMetadata: () => ({ name: 'init', version: '1' }), initialize: (api) => calls.push(api) });
    expect(calls).toEqual([app]);
    expect(app.pluginManager.get('init')).toBeDefined();
  });

  it('refuses a second plugin of the same name', () => {
    const app = new API({ logger: false });
    app.pluginManager.register({ getMetadata: () => ({ name: 'dup', version: '1' }) });
    expect(() => app.pluginManager.register({ getMetadata: () => ({ name: 'dup', version: '2' }) })).toThrow(
      'A plugin named "dup" is already registered',
    );
  });

  it('refuses a plugin whose dependencies are not registered', () => {
    const app = new API({ logger: false });
    expect(() => app.pluginManager.register({ getMetadata: () => ({ name: 'child', version: '1', dependencies: ['parent'] }) })).toThrow(
      'Plugin "child" depends on "parent": register it first',
    );
    app.pluginManager.register({ getMetadata: () => ({ name: 'parent', version: '1' }) });
    app.pluginManager.register({ getMetadata: () => ({ name: 'child', version: '1', dependencies: ['parent'] }) });
    expect(app.pluginManager.plugins).toHaveLength(2);
  });

  it('activating an unknown plugin is an error', () => {
    const app = new API({ logger: false });
    expect(() => app.pluginManager.activate('ghost')).toThrow('Plugin "ghost" is not registered; register it first');
  });
});
