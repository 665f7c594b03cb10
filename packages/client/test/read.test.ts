import { API, NotFoundError, sseEvent, z } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEvents, readLines, StreamError } from '../src/index.js';

const Tick = z.object({ n: z.int() });
let client: TestClient;
let closed = false;

beforeAll(async () => {
  const app = new API({ logger: false });
  app.get('/ticks', { events: Tick, ping: 0 }, async function* () {
    yield { n: 1 };
    yield sseEvent({ comment: 'between' });
    yield sseEvent({ data: { n: 2 }, event: 'tick', id: 'a-2', retry: 0.1 });
    yield sseEvent({ data: 'plain\ntext', raw: true });
  });
  app.get('/failing', { events: Tick, ping: 0 }, async function* () {
    yield { n: 1 };
    throw new NotFoundError('gone');
  });
  app.get('/endless', { events: Tick, ping: 0 }, async function* (_input, request) {
    try {
      for (let n = 0; !request.signal.aborted; n++) {
        yield { n };
        // Paced by the wire's back-pressure; a turn of the event loop lets the client's leaving be seen.
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      closed = true;
    }
  });
  app.get('/rows', { lines: Tick }, async function* () {
    for (let n = 0; n < 3; n++) yield { n };
  });
  app.get('/unicode', { lines: z.object({ s: z.string() }) }, async function* () {
    yield { s: 'é'.repeat(20_000) };
  });
  app.get('/missing/{id}', { params: { id: z.int() }, lines: Tick }, () => {
    throw new NotFoundError('no such export');
  });
  client = await TestClient.start(app);
});
afterAll(() => client.close());

describe('readEvents', () => {
  it('yields each event with its data, id and name; comments are skipped', async () => {
    const events = [];
    for await (const event of readEvents<{ n: number } | string>(await fetch(`${client.url}/ticks`))) events.push(event);
    expect(events).toEqual([
      { data: { n: 1 } },
      { data: { n: 2 }, event: 'tick', id: 'a-2', retry: 100 },
      { data: 'plain\ntext', id: 'a-2' },
    ]);
  });
  it('an event: error ends the iteration with a StreamError carrying the problem', async () => {
    const seen: unknown[] = [];
    const error = await (async () => {
      for await (const event of readEvents(await fetch(`${client.url}/failing`))) seen.push(event.data);
    })().catch((e: unknown) => e);
    expect(seen).toEqual([{ n: 1 }]);
    expect(error).toBeInstanceOf(StreamError);
    expect((error as StreamError).problem).toMatchObject({ status: 404, detail: 'gone' });
    expect((error as StreamError).status).toBe(404);
  });
  it('leaving the loop stops the download and the server closes the generator', async () => {
    for await (const event of readEvents<{ n: number }>(await fetch(`${client.url}/endless`))) {
      if (event.data.n === 3) break;
    }
    await expect.poll(() => closed, { timeout: 2000 }).toBe(true);
  });
});

describe('readLines', () => {
  it('yields each line parsed', async () => {
    const rows = [];
    for await (const row of readLines<{ n: number }>(await fetch(`${client.url}/rows`))) rows.push(row);
    expect(rows).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }]);
  });
  it('keeps characters split across chunks whole', async () => {
    const rows = [];
    for await (const row of readLines<{ s: string }>(await fetch(`${client.url}/unicode`))) rows.push(row);
    expect(rows[0]!.s).toBe('é'.repeat(20_000));
  });
  it('an answer that is not a success throws a StreamError with its problem body', async () => {
    const error = await (async () => {
      for await (const _ of readLines(await fetch(`${client.url}/missing/1`))) void _;
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StreamError);
    expect((error as StreamError).status).toBe(404);
    expect((error as StreamError).problem).toMatchObject({ detail: 'no such export' });
  });
  it('reads a body given directly, with CRLF line ends and no final newline', async () => {
    const body = new Response('{"a":1}\r\n\r\n{"a":2}').body!;
    const rows = [];
    for await (const row of readLines(body)) rows.push(row);
    expect(rows).toEqual([{ a: 1 }, { a: 2 }]);
  });
});
