import { get } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { API, HTTPError, NotFoundError, type Request, sseEvent, z } from '../src/index.js';
import { parseEvent, TestClient } from '../src/server/testing.js';

/** A promise opened from outside: lets a test hold a generator at a point and let it go on. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

/**
 * Resolves with the abort, or after `ms`: a producer's pause between items (a sleep: the tests watch
 * what happens meanwhile, pings and closes), which must honour the signal to be closed at once.
 */
function until(signal: AbortSignal, ms = 60_000): Promise<void> {
  return sleep(ms, undefined, { signal }).catch(() => undefined);
}

const Tick = z.object({ n: z.int(), at: z.string().optional() });

function build() {
  const state = {
    live: gate(),
    finallyAt: 0,
    aborted: false,
    produced: 0,
    cutClosed: gate(),
    linesRead: gate(),
    producedBytes: 0,
    late: gate(),
  };
  const app = new API({ logger: false });
  app.get('/ticks', { params: { count: z.int().max(1000) }, events: Tick }, async function* ({ count }) {
    for (let n = 0; n < count; n++) yield { n, secret: 'dropped' } as { n: number };
  });
  app.get('/fields', { events: Tick }, async function* (_input, request) {
    yield sseEvent({ data: { n: 1 }, event: 'tick', id: 'a-1', retry: 2.5 });
    yield sseEvent({ data: { n: 2 }, id: 7 });
    yield { n: Number(request.lastEventId ?? -1) };
  });
  app.get('/rows', { lines: Tick }, async function* () {
    yield { n: 1, extra: true } as { n: number };
    yield { n: 2 };
  });
  app.get('/array', { lines: z.string() }, () => ['a', 'b']);
  app.get('/created', { lines: z.int(), statusCode: 201 }, () => [1]);
  app.get('/live', { events: Tick }, async function* () {
    yield { n: 0 };
    await state.live.opened;
    yield { n: 1 };
  });
  app.get('/quiet', { events: Tick, ping: 0.05 }, async function* (_input, request) {
    yield { n: 0 };
    await until(request.signal, 400);
    yield { n: 1 };
  });
  app.get('/endless', { events: Tick }, async function* (_input, request) {
    try {
      for (let n = 0; ; n++) {
        yield { n };
        await until(request.signal, 20);
      }
    } finally {
      state.finallyAt = performance.now();
      state.aborted = request.signal.aborted;
      state.cutClosed.open();
    }
  });
  app.get('/flood', { lines: z.object({ pad: z.string() }) }, async function* () {
    const pad = 'x'.repeat(16 * 1024);
    for (;;) {
      state.produced++;
      yield { pad };
    }
  });
  app.get('/bulk', { lines: z.object({ pad: z.string() }) }, async function* () {
    const pad = 'y'.repeat(64 * 1024);
    for (;;) {
      state.producedBytes += pad.length + 10;
      yield { pad };
    }
  });
  app.get('/missing', { events: Tick }, async function* (_input, request) {
    if (request.method === 'GET') throw new NotFoundError('No such feed');
    yield { n: 0 };
  });
  app.get('/bad-first', { events: Tick }, async function* () {
    yield { n: 'one' } as unknown as { n: number };
  });
  app.get('/fails', { events: Tick }, async function* () {
    yield { n: 0 };
    throw new Error('database went away');
  });
  app.get('/fails-http', { events: Tick }, async function* () {
    yield { n: 0 };
    throw new HTTPError(409, 'Feed replaced');
  });
  app.get('/lines-fail', { lines: Tick }, async function* (_input, request) {
    yield { n: 0 };
    // Fails once the client has the first line (an error would otherwise discard it unread).
    if (request.headers.get('x-wait') !== null) await state.linesRead.opened;
    throw new Error('export broke');
  });
  app.get('/guarded', { events: Tick }, async function* (_input, request: Request) {
    if (request.headers.get('x-key') !== 'k') throw new HTTPError(401, 'No key');
    yield { n: 0 };
  });
  app.get('/plain', { events: Tick }, () => ({ not: 'iterable' }) as never);
  app.get('/late', { events: Tick }, async function* () {
    await state.late.opened;
    yield { n: 1 };
  });
  app.get('/lines-missing', { lines: Tick }, async function* (_input, request) {
    if (request.method === 'GET') throw new NotFoundError('No such export');
    yield { n: 0 };
  });
  app.get('/lines-quick-fail', { lines: Tick }, async function* () {
    yield { n: 1 };
    yield { n: 2 };
    throw new Error('export broke');
  });
  return { app, state };
}

describe('event streams and JSON Lines', () => {
  let served: ReturnType<typeof build>;
  let client: TestClient;
  beforeAll(async () => {
    served = build();
    client = await TestClient.start(served.app);
  });
  afterAll(() => client.close());

  it('sends each item as an event, parsed through the schema (unknown keys dropped)', async () => {
    const res = await client.get('/ticks', { query: { count: 3 } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['x-accel-buffering']).toBe('no');
    expect(res.body).toBe('data: {"n":0}\n\ndata: {"n":1}\n\ndata: {"n":2}\n\n');
  });

  it('validates input before the stream starts', async () => {
    const res = await client.get('/ticks?count=5000');
    expect(res.status).toBe(422);
    expect(res.headers['content-type']).toBe('application/problem+json');
  });

  it('writes sseEvent fields and reads Last-Event-ID', async () => {
    const res = await client.get('/fields', { headers: { 'last-event-id': '41' } });
    const events = res.body
      .split('\n\n')
      .filter(Boolean)
      .map((block) => parseEvent(block));
    expect(events).toEqual([
      { event: 'tick', id: 'a-1', retry: 2500, data: '{"n":1}' },
      { event: 'message', id: '7', retry: undefined, data: '{"n":2}' },
      { event: 'message', id: undefined, retry: undefined, data: '{"n":41}' },
    ]);
  });

  it('refuses an sseEvent field that could break the framing', () => {
    expect(() => sseEvent({ data: 1, event: 'a\nb' })).toThrow(/CR, LF/);
    expect(() => sseEvent({ data: 1, retry: -1 })).toThrow(/retry/);
  });

  it('sends JSON Lines (a plain iterable too)', async () => {
    const res = await client.get('/rows');
    expect(res.headers['content-type']).toBe('application/jsonl');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body).toBe('{"n":1}\n{"n":2}\n');
    expect((await client.get('/array')).body).toBe('"a"\n"b"\n');
    const created = await client.get('/created');
    expect([created.status, created.body]).toEqual([201, '1\n']);
  });

  it('delivers an item before the generator goes on (TestClient)', async () => {
    const stream = await client.stream('/live', { query: { unused: 1 } });
    expect(stream.status).toBe(200);
    const events = stream.events();
    expect((await events.next()).value?.data).toBe('{"n":0}');
    served.state.live.open();
    expect((await events.next()).value?.data).toBe('{"n":1}');
    expect((await events.next()).done).toBe(true);
    served.state.live = gate();
  });

  it('delivers an item before the generator goes on (app.fetch, a Web stream)', async () => {
    const res = await served.app.fetch(new globalThis.Request('http://localhost/live'));
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('data: {"n":0}\n\n');
    served.state.live.open();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: {"n":1}\n\n');
    expect((await reader.read()).done).toBe(true);
    served.state.live = gate();
  });

  it('sends "app.inject" the whole stream', async () => {
    const res = await served.app.inject('/rows');
    expect(res.body).toBe('{"n":1}\n{"n":2}\n');
    expect(res.headers['content-type']).toBe('application/jsonl');
  });

  it('sends a ping comment after the ping interval without an event', async () => {
    const stream = await client.stream('/quiet');
    let text = '';
    while (!text.includes(': ping')) text += await stream.chunk();
    expect(text.startsWith('data: {"n":0}\n\n')).toBe(true);
    stream.close();
  });

  it('closes the generator within 100 ms of the client going away, and aborts request.signal', async () => {
    served.state.cutClosed = gate();
    const stream = await client.stream('/endless');
    const events = stream.events();
    await events.next();
    await events.next();
    const cut = performance.now();
    stream.close();
    await served.state.cutClosed.opened;
    expect(served.state.aborted).toBe(true);
    expect(served.state.finallyAt - cut).toBeLessThan(100);
  });

  it('closes the generator when a fetch client cancels the body', async () => {
    served.state.cutClosed = gate();
    const controller = new AbortController();
    const res = await served.app.fetch(new globalThis.Request('http://localhost/endless', { signal: controller.signal }));
    const reader = res.body!.getReader();
    await reader.read();
    await reader.cancel();
    await served.state.cutClosed.opened;
    expect(served.state.finallyAt).toBeGreaterThan(0);
  });

  it('pauses the generator while the client does not read (back-pressure)', async () => {
    served.state.produced = 0;
    const stream = await client.stream('/flood');
    await stream.chunk();
    // Let the socket buffers fill; the producer must stop at a bound, not run on.
    let previous = -1;
    await vi.waitUntil(
      () => {
        const still = served.state.produced === previous;
        previous = served.state.produced;
        return still;
      },
      { timeout: 5000, interval: 100 },
    );
    const paused = served.state.produced;
    expect(paused).toBeLessThan(2000); // 16 KiB each: at most a few MiB of socket buffers
    // A window in which a producer that ignored back-pressure would go on.
    await sleep(200);
    expect(served.state.produced).toBe(paused);
    // Reading resumes it.
    for (let i = 0; i < 200; i++) await stream.chunk();
    expect(served.state.produced).toBeGreaterThan(paused);
    stream.close();
  });

  it('keeps memory flat under a slow reader: what is produced stays within the socket buffers of what is read', async () => {
    const stream = await client.stream('/bulk');
    const rssBefore = process.memoryUsage().rss;
    let consumed = 0;
    let widest = 0;
    const until = performance.now() + 2000;
    while (performance.now() < until) {
      consumed += Buffer.byteLength((await stream.chunk()) ?? '');
      widest = Math.max(widest, served.state.producedBytes - consumed);
      // The slow reader this test is about.
      await sleep(5);
    }
    const growth = process.memoryUsage().rss - rssBefore;
    stream.close();
    if (process.env.STREAM_FIGURES) console.info({ consumed, widest, growth });
    // Unthrottled, the generator makes hundreds of MiB a second; here it runs at the reader's pace.
    expect(consumed).toBeGreaterThan(1024 * 1024);
    expect(widest).toBeLessThan(16 * 1024 * 1024);
    expect(growth).toBeLessThan(128 * 1024 * 1024);
  });

  it('starts an event stream at once: an error before its first event is an error event', async () => {
    const errorOf = (body: string) => {
      const event = parseEvent(body.split('\n\n')[0]!)!;
      expect(event.event).toBe('error');
      return JSON.parse(event.data) as { status: number; detail?: string };
    };
    const missing = await client.get('/missing');
    expect([missing.status, missing.headers['content-type']]).toEqual([200, 'text/event-stream']);
    expect(errorOf(missing.body)).toMatchObject({ status: 404, detail: 'No such feed' });
    expect(errorOf((await client.get('/bad-first')).body)).toMatchObject({ status: 500 });
    expect(errorOf((await client.get('/guarded')).body)).toMatchObject({ status: 401 });
    expect((await client.get('/guarded', { headers: { 'x-key': 'k' } })).body).toBe('data: {"n":0}\n\n');
    // A handler that returns no iterable at all fails before any stream exists.
    const plain = await client.get('/plain');
    expect(plain.status).toBe(500);
  });

  it('sends an event stream’s headers before its first event', async () => {
    const stream = await client.stream('/late');
    expect([stream.status, stream.headers['content-type']]).toEqual([200, 'text/event-stream']);
    served.state.late.open();
    expect((await stream.events().next()).value?.data).toBe('{"n":1}');
    stream.close();
  });

  it('answers an error before the first JSON Lines item as an ordinary error response', async () => {
    const missing = await client.get('/lines-missing');
    expect(missing.status).toBe(404);
    expect(missing.json()).toMatchObject({ status: 404, detail: 'No such export' });
  });

  it('delivers every JSON Lines item written before a failure, then no final chunk', async () => {
    const outcome = await new Promise<{ body: string; complete: boolean }>((resolve, reject) => {
      get(`${client.url}/lines-quick-fail`, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('close', () => resolve({ body, complete: res.complete }));
      }).on('error', reject);
    });
    expect(outcome.body).toBe('{"n":1}\n{"n":2}\n');
    expect(outcome.complete).toBe(false);
  });

  it('ends an event stream with an error event carrying the problem body', async () => {
    const res = await client.get('/fails');
    expect(res.status).toBe(200);
    const [first, last, ...rest] = res.body.split('\n\n').filter(Boolean);
    expect(rest).toEqual([]);
    expect(parseEvent(first!)?.data).toBe('{"n":0}');
    const error = parseEvent(last!)!;
    expect(error.event).toBe('error');
    expect(JSON.parse(error.data)).toMatchObject({ status: 500, title: 'Internal Server Error' });
    const http = await client.get('/fails-http');
    expect(JSON.parse(parseEvent(http.body.split('\n\n')[1]!)!.data)).toMatchObject({ status: 409, detail: 'Feed replaced' });
  });

  it('cuts a JSON Lines stream off without its final chunk', async () => {
    const stream = await client.stream('/lines-fail', { headers: { 'x-wait': '1' } });
    const lines = stream.lines();
    expect((await lines.next()).value).toEqual({ n: 0 });
    served.state.linesRead.open();
    const outcome = await lines.next().then(
      (next) => `read ${JSON.stringify(next)}`,
      (error: Error) => `failed ${error.message}`,
    );
    expect(outcome).toMatch(/^failed/);
    // The server still serves.
    expect((await client.get('/rows')).status).toBe(200);
  });

  it('keeps an item error of a fetch stream from looking like a clean end', async () => {
    const res = await served.app.fetch(new globalThis.Request('http://localhost/lines-fail'));
    await expect(res.text()).rejects.toThrow();
  });
});

describe('streaming endpoints: registration, HEAD and the document', () => {
  it('refuses options that cannot work together, at registration', () => {
    const app = new API({ logger: false });
    expect(() => app.get('/both', { events: Tick, lines: Tick } as never, (() => []) as never)).toThrow(/either events or lines/);
    expect(() => app.get('/model', { events: Tick, response: Tick } as never, (() => []) as never)).toThrow(/drop response/);
    expect(() => app.get('/ping', { events: Tick, ping: -1 }, () => [])).toThrow(/ping is a number of seconds/);
    expect(() => new API({ openapiVersion: '3.0.0' as never })).toThrow(/openapiVersion/);
  });

  it('answers HEAD with the stream headers and never starts the generator', async () => {
    let started = false;
    const app = new API({ logger: false });
    app.get('/feed', { events: Tick }, async function* () {
      started = true;
      yield { n: 0 };
    });
    const client = await TestClient.start(app);
    try {
      const head = await client.head('/feed');
      expect(head.status).toBe(200);
      expect(head.headers['content-type']).toBe('text/event-stream');
      expect(head.body).toBe('');
      expect(started).toBe(false);
      expect((await client.get('/feed')).body).toBe('data: {"n":0}\n\n');
    } finally {
      await client.close();
    }
  });

  it('documents the item schema: x-itemSchema by default, itemSchema under openapiVersion 3.2.0', () => {
    const register = (app: API) => {
      app.get('/ticks', { events: Tick }, () => []);
      app.get('/rows', { lines: Tick }, () => []);
      return app.openapi() as Record<string, any>;
    };
    const doc = register(new API({ logger: false }));
    expect(doc.openapi).toBe('3.1.0');
    // An event as OpenAPI 3.2 describes it: `data` holds the item's JSON.
    expect(doc.paths['/ticks'].get.responses['200'].content['text/event-stream']).toMatchObject({
      schema: { type: 'string' },
      'x-itemSchema': {
        type: 'object',
        required: ['data'],
        properties: {
          data: { type: 'string', contentMediaType: 'application/json', contentSchema: { type: 'object', required: ['n'] } },
          event: { type: 'string' },
          id: { type: 'string' },
          retry: { type: 'integer', minimum: 0 },
        },
      },
    });
    const doc32 = register(new API({ logger: false, openapiVersion: '3.2.0' }));
    expect(doc32.openapi).toBe('3.2.0');
    expect(doc32.paths['/rows'].get.responses['200'].content['application/jsonl'].itemSchema).toMatchObject({ type: 'object' });
  });
});

describe('draining with open event streams', () => {
  it('ends each stream at once on close(), well within shutdownTimeout', async () => {
    const closed: number[] = [];
    const app = new API({ logger: false, shutdownTimeout: 20 });
    app.get('/forever', { events: Tick }, async function* (_input, request) {
      try {
        for (let n = 0; ; n++) {
          yield { n };
          await until(request.signal, 1000);
        }
      } finally {
        closed.push(performance.now());
      }
    });
    const client = await TestClient.start(app);
    const streams = await Promise.all([1, 2, 3].map(() => client.stream('/forever')));
    const readers = streams.map((stream) => stream.events());
    for (const events of readers) await events.next();
    const started = performance.now();
    await client.server.close();
    expect(performance.now() - started).toBeLessThan(5000);
    expect(closed).toHaveLength(3);
    for (const events of readers) {
      // Each stream ends cleanly: the client sees its end, not an error.
      for (let next = await events.next(); !next.done; next = await events.next()) {}
    }
    await client.close().catch(() => undefined);
  });
});
