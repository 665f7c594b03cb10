/**
 * The endpoint option `middleware`: runs for that endpoint only, after the app's and its routers'
 * middleware, over real HTTP.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { API, api, type CallNext, type Middleware, NotFoundError, type Request, Response, Router } from '../src/index.js';
import { TestClient } from '../src/server/testing.js';
import { recorder } from './helpers.js';

let client: TestClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

describe('endpoint middleware', () => {
  it('runs after the app’s and the routers’ middleware, for that endpoint only', async () => {
    const log: string[] = [];
    const app = new API({ logger: false });
    app.addMiddleware(recorder('app', log));
    const outer = new Router({ prefix: '/books' });
    outer.addMiddleware(recorder('outer', log));
    const inner = new Router({ prefix: '/shelf' });
    inner.addMiddleware(recorder('inner', log));
    inner.get(
      '/list',
      {
        middleware: [
          recorder('own1', log),
          { dispatch: recorder('own2', log) as (request: Request, callNext: CallNext) => Promise<Response> },
        ],
      },
      () => {
        log.push('handler');
        return { list: true };
      },
    );
    inner.get('/other', () => {
      log.push('handler');
      return { other: true };
    });
    outer.includeRouter(inner);
    app.includeRouter(outer);
    app.get('/plain', () => ({ plain: true }));
    client = await TestClient.start(app);

    const res = await client.get('/books/shelf/list');
    expect(res.status).toBe(200);
    expect(log).toEqual([
      'app:in',
      'outer:in',
      'inner:in',
      'own1:in',
      'own2:in',
      'handler',
      'own2:out',
      'own1:out',
      'inner:out',
      'outer:out',
      'app:out',
    ]);
    expect(res.headers['x-through']).toEqual(['own2', 'own1', 'inner', 'outer', 'app']);

    log.length = 0;
    expect((await client.get('/books/shelf/other')).headers['x-through']).toEqual(['inner', 'outer', 'app']);
    expect(log).not.toContain('own1:in');
    expect((await client.get('/plain')).headers['x-through']).toBe('app');
  });

  it('works with api() definitions, shorthands and decorators, and may answer without the handler', async () => {
    let reached = 0;
    const block: Middleware = async (request, callNext) => {
      if (request.headers.get('x-key') !== 'ok') return new Response({ detail: 'blocked' }, { statusCode: 429 });
      return callNext(request);
    };
    class Books {
      @api({ route: '/decorated', middleware: [block] })
      decorated() {
        reached++;
        return { decorated: true };
      }
    }
    const app = new API({ logger: false });
    app.include(
      api({ route: '/defined', method: 'POST', middleware: [block] })(() => {
        reached++;
        return { defined: true };
      }),
    );
    app.include(new Books());
    client = await TestClient.start(app);
    expect((await client.post('/defined')).status).toBe(429);
    expect((await client.get('/decorated')).status).toBe(429);
    expect(reached).toBe(0);
    expect((await client.post('/defined', { headers: { 'x-key': 'ok' } })).json()).toEqual({ defined: true });
    expect((await client.get('/decorated', { headers: { 'x-key': 'ok' } })).json()).toEqual({ decorated: true });
    expect(reached).toBe(2);
  });

  it('sees the endpoint’s errors as responses, like router middleware', async () => {
    const app = new API({ logger: false });
    const seen: number[] = [];
    const watch: Middleware = async (request, callNext) => {
      const response = await callNext(request);
      seen.push(response.statusCode);
      return response;
    };
    app.get('/missing', { middleware: [watch] }, () => {
      throw new NotFoundError('no such book');
    });
    client = await TestClient.start(app);
    expect((await client.get('/missing')).status).toBe(404);
    expect(seen).toEqual([404]);
  });

  it('refuses something that is not middleware at registration', () => {
    const app = new API({ logger: false });
    expect(() => app.get('/x', { middleware: [{} as Middleware] }, () => 1)).toThrow(
      /Endpoint \/x: A middleware is an object with dispatch/,
    );
    expect(() => app.get('/y', { middleware: 'cache' as never }, () => 1)).toThrow(/middleware must be an array/);
  });
});
