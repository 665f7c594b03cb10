/**
 * The middleware chain of core, through all three transports.
 */
import { describe, expect, it } from 'vitest';
import { API, type CallNext, ForbiddenError, NotFoundError, Request, Response, z } from '../src/index.js';
import { activeMiddleware, composeActive, type Step } from '../src/serve/pipeline.js';

const compose = (all: Parameters<typeof activeMiddleware>[0], final: Step) => composeActive(activeMiddleware(all), final);
import { GENERIC_500, problem, serve, TRANSPORTS, validationBody, viaInject } from './helpers.js';

const log: string[] = [];

class Recorder {
  constructor(private readonly name: string) {}
  async dispatch(request: Request, callNext: CallNext): Promise<Response> {
    log.push(`${this.name}:in`);
    try {
      const response = await callNext(request);
      log.push(`${this.name}:out:${response.statusCode}`);
      response.headers.append('x-chain', this.name);
      return response;
    } catch (error) {
      log.push(`${this.name}:caught:${(error as Error).message}`);
      throw error;
    }
  }
}

function build(): API {
  const app = new API({ logger: false });
  app.addMiddleware(new Recorder('outer'));
  // Function-style middleware: short-circuits /guarded without the right header.
  app.addMiddleware(async function guard(request, callNext) {
    log.push('guard:in');
    if (request.path === '/guarded' && request.headers.get('x-key') !== 'open-sesame') {
      log.push('guard:refused');
      return new Response({ refused: true }, { statusCode: 403, headers: { 'x-guard': 'refused' } });
    }
    if (request.path === '/web-short') return new globalThis.Response('from a web response', { status: 202 });
    if (request.path === '/mw-throws') throw new Error('middleware exploded');
    if (request.path === '/mw-http-error') throw new ForbiddenError('stopped by middleware');
    request.state.guarded = true;
    const response = await callNext(request);
    log.push('guard:out');
    return response;
  });
  app.addMiddleware(new Recorder('inner'));

  app.get('/hello', (_input, request) => {
    log.push('handler');
    return { hello: 'world', guarded: request.state.guarded };
  });
  app.get('/guarded', () => {
    log.push('handler');
    return { secret: 42 };
  });
  app.get('/not-found', () => {
    throw new NotFoundError('nothing here', { id: 1 });
  });
  app.get('/validate', { params: { n: z.int() } }, ({ n }) => ({ n }));
  app.get('/crash', () => {
    log.push('handler');
    throw new Error('handler exploded');
  });
  app.get('/web', () => new globalThis.Response('web body', { status: 201, headers: { 'content-type': 'text/plain' } }));
  app.get('/mw-throws', () => 'unreachable');
  app.get('/mw-http-error', () => 'unreachable');
  return app;
}

describe('the middleware chain', () => {
  const served = serve(build);

  describe.each(TRANSPORTS)('via %s', (transport) => {
    it('runs in the order added on the way in, and in reverse on the way out', async () => {
      log.length = 0;
      const res = await served.send(transport, { path: '/hello' });
      expect(res.status).toBe(200);
      expect(res.json()).toEqual({ hello: 'world', guarded: true });
      expect(log).toEqual(['outer:in', 'guard:in', 'inner:in', 'handler', 'inner:out:200', 'guard:out', 'outer:out:200']);
      expect(res.headers['x-chain']).toBe('inner, outer');
    });

    it('a middleware can short-circuit: the handler and inner middleware never run', async () => {
      log.length = 0;
      const res = await served.send(transport, { path: '/guarded' });
      expect(res.status).toBe(403);
      expect(res.json()).toEqual({ refused: true });
      expect(res.headers['x-guard']).toBe('refused');
      expect(res.headers['x-chain']).toBe('outer');
      expect(log).toEqual(['outer:in', 'guard:in', 'guard:refused', 'outer:out:403']);

      log.length = 0;
      const open = await served.send(transport, { path: '/guarded', headers: { 'X-Key': 'open-sesame' } });
      expect(open.json()).toEqual({ secret: 42 });
      expect(log).toContain('handler');
    });

    it('a Web Response returned by a middleware is converted', async () => {
      const res = await served.send(transport, { path: '/web-short' });
      expect(res.status).toBe(202);
      expect(res.body).toBe('from a web response');
      expect(res.headers['x-chain']).toBe('outer');
    });

    it('a middleware that throws becomes a 500 past the outermost, seen by the outer middleware', async () => {
      log.length = 0;
      const res = await served.send(transport, { path: '/mw-throws' });
      expect(res.status).toBe(500);
      expect(res.json()).toEqual(GENERIC_500);
      expect(log).toEqual(['outer:in', 'guard:in', 'outer:caught:middleware exploded']);
    });

    it('an HTTPError thrown by a middleware becomes its status past the outermost', async () => {
      const res = await served.send(transport, { path: '/mw-http-error' });
      expect(res.status).toBe(403);
      expect(res.json()).toEqual(problem(403, 'Forbidden', 'stopped by middleware'));
    });

    it('an unexpected exception from a handler propagates through the middleware as an exception', async () => {
      log.length = 0;
      const res = await served.send(transport, { path: '/crash' });
      expect(res.status).toBe(500);
      expect(res.json()).toEqual(GENERIC_500);
      expect(log).toEqual([
        'outer:in',
        'guard:in',
        'inner:in',
        'handler',
        'inner:caught:handler exploded',
        'outer:caught:handler exploded',
      ]);
    });

    it('an HTTPError thrown by a handler reaches middleware as a response', async () => {
      log.length = 0;
      const res = await served.send(transport, { path: '/not-found' });
      expect(res.status).toBe(404);
      expect(res.contentType).toBe('application/problem+json');
      expect(res.json()).toEqual(problem(404, 'Not Found', 'nothing here', { details: { id: 1 } }));
      expect(res.headers['x-chain']).toBe('inner, outer');
      expect(log).toEqual(['outer:in', 'guard:in', 'inner:in', 'inner:out:404', 'guard:out', 'outer:out:404']);
    });

    it('a 422 reaches middleware as a response', async () => {
      const res = await served.send(transport, { path: '/validate?n=x' });
      expect(res.status).toBe(422);
      expect(res.json()).toEqual(
        validationBody([{ in: 'query', path: ['n'], message: 'Expected an integer, got "x"', code: 'invalid_type' }]),
      );
      expect(res.headers['x-chain']).toBe('inner, outer');
    });

    it('an unknown path reaches every app middleware as a 404 response', async () => {
      log.length = 0;
      const res = await served.send(transport, { path: '/nowhere' });
      expect(res.status).toBe(404);
      expect(res.headers['x-chain']).toBe('inner, outer');
      expect(log).toEqual(['outer:in', 'guard:in', 'inner:in', 'inner:out:404', 'guard:out', 'outer:out:404']);
    });

    it('a Web Response from a handler reaches middleware as an fnapi Response', async () => {
      const res = await served.send(transport, { path: '/web' });
      expect(res.status).toBe(201);
      expect(res.body).toBe('web body');
      expect(res.contentType).toBe('text/plain');
      expect(res.headers['x-chain']).toBe('inner, outer');
    });
  });
});

describe('middleware details', () => {
  it('callNext always resolves to an fnapi Response with a numeric statusCode and mutable headers', async () => {
    const seen: unknown[] = [];
    const app = new API({ logger: false });
    app.addMiddleware(async (request, callNext) => {
      const response = await callNext(request);
      seen.push(response instanceof Response, typeof response.statusCode, response.statusCode);
      response.headers.set('x-seen', 'yes');
      response.statusCode = response.statusCode === 201 ? 299 : response.statusCode;
      return response;
    });
    app.get('/web', () => new globalThis.Response(null, { status: 201 }));
    const res = await viaInject(app, { path: '/web' });
    expect(seen).toEqual([true, 'number', 201]);
    expect(res.status).toBe(299);
    expect(res.headers['x-seen']).toBe('yes');
  });

  it('a middleware that returns something else is a 500', async () => {
    const app = new API({ logger: false });
    app.addMiddleware((() => ({ not: 'a response' })) as never);
    app.get('/x', () => 1);
    const res = await viaInject(app, { path: '/x' });
    expect(res.status).toBe(500);
    expect(res.json()).toEqual(GENERIC_500);
  });

  it('middleware added after endpoints applies to them', async () => {
    const app = new API({ logger: false });
    app.get('/x', () => 1);
    app.addMiddleware(async (request, callNext) => {
      const response = await callNext(request);
      response.headers.set('x-late', '1');
      return response;
    });
    expect((await viaInject(app, { path: '/x' })).headers['x-late']).toBe('1');
  });

  it('refuses things that are not middleware', () => {
    const app = new API({ logger: false });
    expect(() => app.addMiddleware({} as never)).toThrow(TypeError);
    expect(() => app.addMiddleware(42 as never)).toThrow(TypeError);
  });

  it('a middleware may replace the request it passes on', async () => {
    const app = new API({ logger: false });
    app.get('/x', (_input, request) => ({ header: request.headers.get('x-added') }));
    app.addMiddleware(async (request, callNext) => {
      const replaced = new Request({ method: request.method, path: request.path, headers: { 'x-added': 'by middleware' } });
      return callNext(replaced);
    });
    expect((await viaInject(app, { path: '/x' })).json()).toEqual({ header: 'by middleware' });
  });

  it('compose() with no middleware is the final step itself', () => {
    const final: Step = (_request, done) => done(undefined, new Response('x'));
    expect(compose([], final)).toBe(final);
  });

  it('leaves out a middleware whose isActive() says false when the chain is compiled', async () => {
    const final: Step = (_request, done) => done(undefined, new Response('x'));
    let dispatched = 0;
    let asked = 0;
    const idle = {
      isActive: () => {
        asked++;
        return false;
      },
      dispatch: (request: Request, callNext: CallNext) => {
        dispatched++;
        return callNext(request);
      },
    };
    expect(compose([idle], final)).toBe(final);
    const app = new API({ logger: false });
    app.get('/x', () => 1);
    app.addMiddleware(idle);
    app.addMiddleware({
      isActive: () => true,
      dispatch: (request: Request, callNext: CallNext) => {
        dispatched += 10;
        return callNext(request);
      },
    });
    expect((await viaInject(app, { path: '/x' })).status).toBe(200);
    expect((await viaInject(app, { path: '/x' })).status).toBe(200);
    expect(dispatched).toBe(20);
    expect(asked).toBe(2);
  });
});
