/**
 * What only a real connection shows (chunked bodies, disconnects, header limits), timeouts and
 * concurrency, with `inject` and `fetch` alongside where they apply.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { API, type Request, z } from '../src/index.js';
import { deferred, GENERIC_500, problem, rawExchange, serve, TRANSPORTS, viaFetch, within } from './helpers.js';

const LIMIT = 1024;

interface RawReply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A POST whose body is sent chunked (no Content-Length), in pieces. */
function postChunked(url: string, path: string, pieces: string[]): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    for (const piece of pieces) req.write(piece);
    req.end();
  });
}

describe('request bodies over bodyLimit on a real connection', () => {
  const served = serve(() => {
    const app = new API({ logger: false, bodyLimit: LIMIT });
    app.post('/echo', { params: { a: z.unknown().optional() } }, ({ a }) => ({ a: a ?? null }));
    app.post('/raw', async (_input, request) => ({ length: (await request.bytes()).byteLength }));
    return app;
  });
  const TOO_LARGE = problem(413, 'Content Too Large', `Request body exceeds the limit of ${LIMIT} bytes`);

  it('is 413 when Content-Length announces it', async () => {
    const res = await served.client.post('/echo', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ a: 'y'.repeat(2 * LIMIT) }),
    });
    expect(res.status).toBe(413);
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(res.json()).toEqual(TOO_LARGE);
  });

  it('is 413 while reading a chunked body without Content-Length', async () => {
    const pieces = ['{"a":"', ...Array.from({ length: 8 }, () => 'z'.repeat(256)), '"}'];
    const res = await postChunked(served.client.url, '/echo', pieces);
    expect(res.status).toBe(413);
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(res.body)).toEqual(TOO_LARGE);
  });

  it('is 413 for a chunked body read by the handler itself', async () => {
    const res = await postChunked(
      served.client.url,
      '/raw',
      Array.from({ length: 6 }, () => 'q'.repeat(300)),
    );
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual(TOO_LARGE);
  });

  it('accepts a chunked body under the limit', async () => {
    const res = await postChunked(served.client.url, '/echo', ['{"a":', '[1,2', ',3]}']);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ a: [1, 2, 3] });
  });

  it('serves the next request after a refused body', async () => {
    await served.client.post('/echo', { headers: { 'content-type': 'application/json' }, body: 'x'.repeat(3 * LIMIT) });
    const res = await served.client.post('/echo', { json: { a: 1 } });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ a: 1 });
  });

  it('is 413 through fetch for a streamed body without Content-Length', async () => {
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 5; i++) controller.enqueue(encoder.encode('w'.repeat(300)));
        controller.close();
      },
    });
    const res = await served.app.fetch(
      new globalThis.Request('http://localhost/raw', { method: 'POST', body, duplex: 'half' } as RequestInit),
    );
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual(TOO_LARGE);
  });
});

describe('a JSON body on a real connection', () => {
  const served = serve(() => {
    const app = new API({ logger: false });
    app.post('/again', { params: { user: z.object({ name: z.string() }) } }, async ({ user }, request) => ({
      user,
      json: await request.json(),
      length: (await request.bytes()).byteLength,
    }));
    return app;
  });

  it('is the body the handler reads again after binding', async () => {
    const body = JSON.stringify({ name: 'Ada' });
    const res = await served.client.post('/again', { headers: { 'content-type': 'application/json' }, body });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ user: { name: 'Ada' }, json: { name: 'Ada' }, length: body.length });
  });

  it('joins a body sent in pieces', async () => {
    const res = await postChunked(served.client.url, '/again', ['{"na', 'me":"Gr', 'ace"}']);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ user: { name: 'Grace' }, json: { name: 'Grace' }, length: 16 });
  });

  it('lets a server drain at once after a client left in the middle of a body', async () => {
    const app = new API({ logger: false, shutdownTimeout: 10 });
    let bound = false;
    const inFlight = deferred();
    const left = deferred();
    // Runs before the body is read: the request is in flight, then its client leaves.
    app.addMiddleware(async (request, callNext) => {
      request.signal.addEventListener('abort', () => left.resolve(), { once: true });
      inFlight.resolve();
      return callNext(request);
    });
    app.post('/users', { params: { user: z.object({ name: z.string() }) } }, ({ user }) => {
      bound = true;
      return user;
    });
    const server = await app.run({ host: '127.0.0.1', port: 0, handleSignals: false });
    const socket = connect(server.port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write('POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":');
    await within(inFlight.promise, 2000, 'the request reaching the app');
    socket.destroy();
    await within(left.promise, 2000, 'the server seeing the client leave');
    // The request whose body never came is over, not in flight: closing does not wait out shutdownTimeout.
    const started = performance.now();
    await server.close();
    expect(performance.now() - started).toBeLessThan(2000);
    expect(bound).toBe(false);
  });
});

describe('the 16 KiB cap on the request line and headers', () => {
  const served = serve(() => {
    const app = new API({ logger: false });
    app.get('/ok', () => ({ ok: true }));
    return app;
  });

  it('answers 431 past it', async () => {
    const answer = await rawExchange(served.client.url, `GET /ok HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
  });

  it('answers 431 for a request line past it', async () => {
    const answer = await rawExchange(served.client.url, `GET /ok?q=${'b'.repeat(17 * 1024)} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
  });

  it('serves requests with large headers under it', async () => {
    const res = await served.client.get('/ok', { headers: { 'x-big': 'a'.repeat(14 * 1024) } });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ ok: true });
  });
});

describe('per-endpoint timeout', () => {
  let aborted: { reason: unknown }[] = [];
  let answered = deferred();
  let handlerDone = deferred();
  const served = serve(() => {
    const app = new API({ logger: false });
    app.get('/slow', { timeout: 0.1 }, async (_input, request) => {
      request.signal.addEventListener('abort', () => aborted.push({ reason: request.signal.reason }), { once: true });
      // Slower than its timeout: it would answer only once aborted.
      await new Promise((resolve) => request.signal.addEventListener('abort', resolve, { once: true }));
      return { late: true };
    });
    app.get('/slow-sync-signal', { timeout: 0.05 }, async (_input, request) => {
      // Goes on once the 504 is out, without listening to the signal.
      await answered.promise;
      // The signal is read only after the timeout passed: it is already aborted.
      aborted.push({ reason: request.signal.aborted ? 'already' : 'not aborted' });
      handlerDone.resolve();
      return { late: true };
    });
    app.get('/quick', { timeout: 1 }, async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return { quick: true };
    });
    return app;
  });

  it.each(TRANSPORTS)('is 504 and aborts request.signal (%s)', async (transport) => {
    aborted = [];
    const started = performance.now();
    const res = await served.send(transport, { path: '/slow' });
    const elapsed = performance.now() - started;
    expect(res.status).toBe(504);
    expect(res.contentType).toBe('application/problem+json');
    expect(res.json()).toEqual(problem(504, 'Gateway Timeout', 'GET /slow did not answer within 0.1 s'));
    expect(elapsed).toBeLessThan(800);
    expect(aborted).toHaveLength(1);
    expect((aborted[0]!.reason as Error).name).toBe('GatewayTimeoutError');
  });

  it('a signal read after the timeout is already aborted', async () => {
    aborted = [];
    answered = deferred();
    handlerDone = deferred();
    const res = await served.send('inject', { path: '/slow-sync-signal' });
    expect(res.status).toBe(504);
    answered.resolve();
    await within(handlerDone.promise, 1000, 'the handler finishing');
    expect(aborted).toEqual([{ reason: 'already' }]);
  });

  it.each(TRANSPORTS)('does not affect a quick endpoint (%s)', async (transport) => {
    const res = await served.send(transport, { path: '/quick' });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ quick: true });
  });
});

describe('client disconnect', () => {
  let entered = deferred();
  let abortedSignal = deferred<unknown>();
  const served = serve(() => {
    const app = new API({ logger: false });
    app.get('/hang', async (_input: Record<string, never>, request: Request) => {
      request.signal.addEventListener('abort', () => abortedSignal.resolve(request.signal.reason), { once: true });
      entered.resolve();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 5000);
        request.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      return { finished: true };
    });
    app.get('/after', () => ({ alive: true }));
    return app;
  });

  it('aborts request.signal when the client goes away (node:http)', async () => {
    entered = deferred();
    abortedSignal = deferred();
    const req = httpRequest(`${served.client.url}/hang`);
    req.on('error', () => {});
    req.end();
    await within(entered.promise, 2000, 'the handler starting');
    req.destroy();
    const reason = await within(abortedSignal.promise, 2000, 'request.signal aborting');
    expect(reason).toBeInstanceOf(Error);
    const res = await served.client.get('/after');
    expect(res.json()).toEqual({ alive: true });
  });

  it('aborts request.signal when the client goes away (undici through TestClient)', async () => {
    entered = deferred();
    abortedSignal = deferred();
    const controller = new AbortController();
    const pending = served.client.get('/hang', { signal: controller.signal }).catch((error: unknown) => error);
    await within(entered.promise, 2000, 'the handler starting');
    controller.abort();
    await within(abortedSignal.promise, 2000, 'request.signal aborting');
    expect(await pending).toBeInstanceOf(Error);
  });

  it('aborts request.signal when the Web Request is aborted (fetch)', async () => {
    entered = deferred();
    abortedSignal = deferred();
    const controller = new AbortController();
    const pending = viaFetch(served.app, { path: '/hang' }, controller.signal);
    await within(entered.promise, 2000, 'the handler starting');
    controller.abort(new Error('gone'));
    const reason = await within(abortedSignal.promise, 2000, 'request.signal aborting');
    expect((reason as Error).message).toBe('gone');
    expect((await pending).json()).toEqual({ finished: true });
  });
});

describe('concurrency', () => {
  /** The first request to /pair waits here for a second one: neither answers unless both run at once. */
  let waitingForPair: (() => void) | undefined;
  let heldEntered = deferred();
  let releaseHeld = deferred();
  const served = serve(() => {
    const app = new API({ logger: false });
    app.get('/pair', async () => {
      if (waitingForPair !== undefined) {
        waitingForPair();
        waitingForPair = undefined;
      } else
        await new Promise<void>((resolve) => {
          waitingForPair = resolve;
        });
      return { together: true };
    });
    app.get('/held', async () => {
      heldEntered.resolve();
      await releaseHeld.promise;
      return { held: true };
    });
    app.get('/sync-throw', () => {
      JSON.parse('{not json');
      return { unreachable: true };
    });
    return app;
  });

  it.each(TRANSPORTS)('two requests to an async handler run side by side (%s)', async (transport) => {
    const replies = await within(
      Promise.all([served.send(transport, { path: '/pair' }), served.send(transport, { path: '/pair' })]),
      5000,
      'two requests in their handler at once',
    );
    expect(replies.map((r) => r.status)).toEqual([200, 200]);
    expect(replies.map((r) => r.json())).toEqual([{ together: true }, { together: true }]);
  });

  it.each(TRANSPORTS)('a sync handler that throws is a 500 without a stack trace (%s)', async (transport) => {
    const res = await served.send(transport, { path: '/sync-throw' });
    expect(res.status).toBe(500);
    expect(res.json()).toEqual(GENERIC_500);
    expect(res.body).not.toMatch(/stack|SyntaxError|at /);
  });

  it('keeps serving while a request throws', async () => {
    heldEntered = deferred();
    releaseHeld = deferred();
    const held = served.client.get('/held');
    await within(heldEntered.promise, 2000, 'the held request starting');
    const failed = await served.client.get('/sync-throw');
    expect(failed.status).toBe(500);
    releaseHeld.resolve();
    const ok = await held;
    expect(ok.status).toBe(200);
    expect(ok.json()).toEqual({ held: true });
  });
});
