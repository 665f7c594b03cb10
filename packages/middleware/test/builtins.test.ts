import { Writable } from 'node:stream';
import { API, BadRequestError, HTTPError } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorHandlingMiddleware, LoggingMiddleware, ProfileMiddleware } from '../src/index.js';

let client: TestClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

/** A pino logger writing to an array of parsed lines. */
function capturedLogger(level = 'info') {
  const lines: Record<string, any>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level }, stream), lines };
}

describe('ProfileMiddleware', () => {
  it('adds Server-Timing and X-Process-Time that agree with how long the handler took', async () => {
    const app = new API({ logger: false });
    app.addMiddleware(new ProfileMiddleware());
    app.get('/slow', async () => {
      // A handler that takes a known time: the headers must report at least that.
      await new Promise((resolve) => setTimeout(resolve, 50));
      return { ok: true };
    });
    client = await TestClient.start(app);
    const res = await client.get('/slow');
    expect(res.status).toBe(200);
    const timing = String(res.headers['server-timing']);
    const match = /^app;dur=(\d+(?:\.\d+)?)$/.exec(timing);
    expect(match, timing).not.toBeNull();
    const ms = Number(match![1]);
    expect(ms).toBeGreaterThanOrEqual(45);
    expect(ms).toBeLessThan(5000);
    const seconds = Number(res.headers['x-process-time']);
    expect(String(res.headers['x-process-time'])).toMatch(/^\d+\.\d{6}$/);
    expect(Math.abs(seconds * 1000 - ms)).toBeLessThan(1);
  });

  it('times error responses and unknown routes too', async () => {
    const app = new API({ logger: false });
    app.addMiddleware(new ProfileMiddleware());
    client = await TestClient.start(app);
    const res = await client.get('/nowhere');
    expect(res.status).toBe(404);
    expect(res.headers['server-timing']).toMatch(/^app;dur=/);
    expect(res.headers['x-process-time']).toBeDefined();
  });
});

describe('ErrorHandlingMiddleware', () => {
  function failingApp(middleware: ErrorHandlingMiddleware) {
    const app = new API({ logger: false });
    app.addMiddleware(middleware);
    app.get('/boom', () => {
      throw new RangeError('value out of range');
    });
    app.get('/bad', () => {
      throw new BadRequestError('bad input', { field: 'x' });
    });
    app.get('/teapot', () => {
      throw new HTTPError(418, "I'm a teapot", undefined, { headers: { 'x-brew': 'no' } });
    });
    return app;
  }

  it('gives a generic 500 problem by default, and logs the exception', async () => {
    const { logger, lines } = capturedLogger();
    client = await TestClient.start(failingApp(new ErrorHandlingMiddleware({ logger })));
    const res = await client.get('/boom');
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(res.json()).toEqual({
      type: 'about:blank',
      title: 'Internal Server Error',
      status: 500,
      detail: 'An unexpected error occurred',
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 50, method: 'GET', path: '/boom', route: '/boom', msg: 'unhandled error' });
    expect(lines[0]!.err).toMatchObject({ type: 'RangeError', message: 'value out of range' });
  });

  it('adds debug { name, message } with debug, and the stack with includeTraceback', async () => {
    client = await TestClient.start(failingApp(new ErrorHandlingMiddleware({ debug: true, logExceptions: false })));
    const debugOnly = (await client.get('/boom')).json<Record<string, any>>();
    expect(debugOnly.debug).toEqual({ name: 'RangeError', message: 'value out of range' });
    await client.close();

    client = await TestClient.start(failingApp(new ErrorHandlingMiddleware({ debug: true, includeTraceback: true, logExceptions: false })));
    const withStack = (await client.get('/boom')).json<Record<string, any>>();
    expect(withStack.debug.name).toBe('RangeError');
    expect(withStack.debug.message).toBe('value out of range');
    expect(withStack.debug.stack).toContain('RangeError: value out of range');
    expect(withStack.debug.stack).toMatch(/\n\s+at /);
  });

  it('does not log when logExceptions is false', async () => {
    const { logger, lines } = capturedLogger();
    client = await TestClient.start(failingApp(new ErrorHandlingMiddleware({ logger, logExceptions: false })));
    expect((await client.get('/boom')).status).toBe(500);
    expect(lines).toHaveLength(0);
  });

  it('leaves HTTP errors as their own problem responses, headers included', async () => {
    const { logger, lines } = capturedLogger();
    client = await TestClient.start(failingApp(new ErrorHandlingMiddleware({ logger, debug: true })));
    const bad = await client.get('/bad');
    expect(bad.status).toBe(400);
    expect(bad.json()).toEqual({ type: 'about:blank', title: 'Bad Request', status: 400, detail: 'bad input', details: { field: 'x' } });
    const teapot = await client.get('/teapot');
    expect(teapot.status).toBe(418);
    expect(teapot.headers['x-brew']).toBe('no');
    expect(teapot.json()).toMatchObject({ status: 418, detail: "I'm a teapot" });
    expect(lines).toHaveLength(0); // client errors are not logged
  });
});

describe('LoggingMiddleware', () => {
  it('writes one structured line per request with method, path, route, status and duration', async () => {
    const { logger, lines } = capturedLogger();
    const app = new API({ logger: false });
    app.addMiddleware(new LoggingMiddleware({ logger }));
    app.get('/users/{user_id}', ({ user_id }) => ({ user_id }));
    app.post('/users', () => {
      throw new BadRequestError('nope');
    });
    client = await TestClient.start(app);
    await client.get('/users/42');
    await client.post('/users', { json: {} });
    await client.get('/nowhere');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatchObject({
      level: 30,
      method: 'GET',
      path: '/users/42',
      route: '/users/{user_id}',
      status: 200,
      msg: 'request completed',
    });
    expect(lines[1]).toMatchObject({ method: 'POST', path: '/users', route: '/users', status: 400 });
    expect(lines[2]).toMatchObject({ method: 'GET', path: '/nowhere', status: 404 });
    expect(lines[2]!.route).toBeUndefined();
    for (const line of lines) {
      expect(typeof line.duration).toBe('number');
      expect(line.duration).toBeGreaterThanOrEqual(0);
      expect(line.duration).toBeLessThan(5000);
    }
  });

  it('logs at the level asked for, and logs exceptions that pass through with status 500', async () => {
    const { logger, lines } = capturedLogger('debug');
    const app = new API({ logger: false });
    app.addMiddleware(new LoggingMiddleware({ logger, level: 'debug' }));
    app.addMiddleware(() => {
      throw new Error('kaput');
    });
    app.get('/x', () => 'never');
    client = await TestClient.start(app);
    expect((await client.get('/x')).status).toBe(500);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 20, method: 'GET', path: '/x', status: 500 });
    expect(lines[0]!.err).toMatchObject({ message: 'kaput' });
  });
});
