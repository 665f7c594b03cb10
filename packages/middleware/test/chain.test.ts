import { API, HTTPError, NotFoundError, Response, type CallNext, type Request } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorHandlingMiddleware, Middleware } from '../src/index.js';

class Recorder extends Middleware {
  constructor(
    private readonly name: string,
    private readonly log: string[],
  ) {
    super();
  }
  async dispatch(request: Request, callNext: CallNext) {
    this.log.push(`${this.name}:in`);
    const response = await callNext(request);
    this.log.push(`${this.name}:out`);
    response.headers.append('x-seen-by', this.name);
    return response;
  }
}

let client: TestClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

describe('the middleware chain over HTTP', () => {
  it('runs three middlewares in order on the way in and in reverse on the way out', async () => {
    const log: string[] = [];
    const app = new API({ logger: false });
    app.addMiddleware(new Recorder('a', log));
    app.addMiddleware(new Recorder('b', log));
    app.addMiddleware(async (request: Request, callNext: CallNext) => {
      log.push('c:in');
      const response = await callNext(request);
      log.push('c:out');
      return response;
    });
    app.get('/x', () => {
      log.push('handler');
      return { ok: true };
    });
    client = await TestClient.start(app);
    const res = await client.get('/x');
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ ok: true });
    expect(log).toEqual(['a:in', 'b:in', 'c:in', 'handler', 'c:out', 'b:out', 'a:out']);
    // b appended first (inner), then a.
    expect(res.headers['x-seen-by']).toEqual(['b', 'a']);
  });

  it('lets a middleware answer without calling callNext', async () => {
    const log: string[] = [];
    class Gate extends Middleware {
      dispatch(request: Request, callNext: CallNext) {
        if (request.headers.get('x-token') !== 'open') return new Response({ blocked: true }, { statusCode: 403 });
        return callNext(request);
      }
    }
    const app = new API({ logger: false });
    app.addMiddleware(new Recorder('outer', log));
    app.addMiddleware(new Gate());
    app.addMiddleware(new Recorder('inner', log));
    app.get('/x', () => {
      log.push('handler');
      return 'hi';
    });
    client = await TestClient.start(app);
    const blocked = await client.get('/x');
    expect(blocked.status).toBe(403);
    expect(blocked.json()).toEqual({ blocked: true });
    expect(log).toEqual(['outer:in', 'outer:out']);
    log.length = 0;
    const open = await client.get('/x', { headers: { 'x-token': 'open' } });
    expect(open.status).toBe(200);
    expect(open.json()).toBe('hi');
    expect(log).toEqual(['outer:in', 'inner:in', 'handler', 'inner:out', 'outer:out']);
  });

  it('also accepts a Web Response from a middleware', async () => {
    const app = new API({ logger: false });
    app.addMiddleware(() => new globalThis.Response('web', { status: 202, headers: { 'x-web': '1' } }));
    app.get('/x', () => 'never');
    client = await TestClient.start(app);
    const res = await client.get('/x');
    expect(res.status).toBe(202);
    expect(res.body).toBe('web');
    expect(res.headers['x-web']).toBe('1');
  });

  it('without ErrorHandlingMiddleware, a middleware that throws gives the app 500 (generic body)', async () => {
    const log: string[] = [];
    const app = new API({ logger: false });
    app.addMiddleware(new Recorder('outer', log));
    app.addMiddleware(() => {
      throw new Error('secret failure');
    });
    app.get('/x', () => 'never');
    client = await TestClient.start(app);
    const res = await client.get('/x');
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toBe('application/problem+json');
    const body = res.json<Record<string, unknown>>();
    expect(body).toMatchObject({ type: 'about:blank', title: 'Internal Server Error', status: 500 });
    expect(body.debug).toBeUndefined();
    expect(res.body).not.toContain('secret failure');
    // The exception went through the outer middleware (re-thrown to it): it never reached "out".
    expect(log).toEqual(['outer:in']);
  });

  it('with ErrorHandlingMiddleware outermost, a throwing middleware becomes a problem body it formats', async () => {
    const log: string[] = [];
    const app = new API({ logger: false });
    app.addMiddleware(new ErrorHandlingMiddleware({ debug: true, logExceptions: false }));
    app.addMiddleware(new Recorder('inner', log));
    app.addMiddleware(async () => {
      throw new TypeError('bad thing');
    });
    app.get('/x', () => 'never');
    client = await TestClient.start(app);
    const res = await client.get('/x');
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(res.json()).toEqual({
      type: 'about:blank',
      title: 'Internal Server Error',
      status: 500,
      detail: 'An unexpected error occurred',
      debug: { name: 'TypeError', message: 'bad thing' },
    });
    expect(log).toEqual(['inner:in']);
  });

  it('an HTTPError thrown by a middleware keeps its status, problem body and headers', async () => {
    const app = new API({ logger: false });
    app.addMiddleware(new ErrorHandlingMiddleware({ logExceptions: false }));
    app.addMiddleware(() => {
      throw new HTTPError(401, 'token missing', { scheme: 'Bearer' }, { headers: { 'www-authenticate': 'Bearer' } });
    });
    app.get('/x', () => 'never');
    client = await TestClient.start(app);
    const res = await client.get('/x');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(res.json()).toEqual({
      type: 'about:blank',
      title: 'Unauthorized',
      status: 401,
      detail: 'token missing',
      details: { scheme: 'Bearer' },
    });
  });

  it('HTTP errors from handlers reach middleware as responses, with or without the error middleware', async () => {
    const seen: number[] = [];
    const app = new API({ logger: false });
    app.addMiddleware(async (request: Request, callNext: CallNext) => {
      const response = await callNext(request);
      seen.push(response.statusCode);
      return response;
    });
    app.get('/users/{id}', ({ id }) => {
      throw new NotFoundError(`User ${id} not found`, { user_id: id });
    });
    client = await TestClient.start(app);
    const res = await client.get('/users/7');
    expect(res.status).toBe(404);
    expect(res.json()).toMatchObject({ status: 404, detail: 'User 7 not found', details: { user_id: '7' } });
    const unknown = await client.get('/nowhere');
    expect(unknown.status).toBe(404);
    expect(seen).toEqual([404, 404]);
  });
});
