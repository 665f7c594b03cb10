import { validate as validate31 } from '@hyperjump/json-schema/openapi-3-1';
import { validate as validate32 } from '@hyperjump/json-schema/openapi-3-2';
import { TestClient } from '@fnapi/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { Feed } from '../src/feed.js';

describe('examples/events: a live feed and a JSON Lines export', () => {
  const feed = new Feed();
  let client: TestClient;
  beforeAll(async () => {
    client = await TestClient.start(createApp({ logger: false, feed, retry: 0.05 }));
  });
  afterAll(() => client.close());

  it('serves the page that follows the feed', async () => {
    const page = await client.get('/');
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain("new EventSource('/feed')");
  });

  it('sends a welcome event, then each message as it is posted', async () => {
    const stream = await client.stream('/feed');
    expect(stream.headers['content-type']).toBe('text/event-stream');
    const events = stream.events();
    expect((await events.next()).value).toMatchObject({ event: 'welcome', retry: 50, data: JSON.stringify({ latest: feed.latest }) });
    const posted = await client.post('/messages', { json: { text: 'hello' } });
    expect(posted.status).toBe(201);
    const { id } = posted.json<{ id: number }>();
    const received = (await events.next()).value!;
    expect(received.id).toBe(String(id));
    expect(JSON.parse(received.data)).toMatchObject({ id, text: 'hello' });
    stream.close();
  });

  it('replays what a reconnecting client missed, from Last-Event-ID', async () => {
    const first = feed.publish('one').id;
    feed.publish('two');
    feed.publish('three');
    const stream = await client.stream('/feed', { headers: { 'last-event-id': String(first) } });
    const events = stream.events();
    await events.next(); // welcome
    expect(JSON.parse((await events.next()).value!.data).text).toBe('two');
    expect(JSON.parse((await events.next()).value!.data).text).toBe('three');
    expect(feed.reconnects).toContain(String(first));
    stream.close();
  });

  it('exports the messages as JSON Lines', async () => {
    const res = await client.get('/export?after=1');
    expect(res.headers['content-type']).toBe('application/jsonl');
    const lines = res.body
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((m) => m.id)).toEqual(feed.since(1).map((m) => m.id));
    expect((await client.get('/export?after=-1')).status).toBe(422);
  });

  it('documents both streams, valid as OpenAPI 3.1 and, with openapiVersion, 3.2', async () => {
    const doc = createApp({ logger: false }).openapi() as Record<string, any>;
    expect(doc.paths['/feed'].get.responses['200'].content['text/event-stream']).toMatchObject({
      schema: { type: 'string' },
      'x-itemSchema': {},
    });
    expect(doc.paths['/export'].get.responses['200'].content['application/jsonl']['x-itemSchema']).toEqual({
      $ref: '#/components/schemas/Message',
    });
    expect((await validate31('https://spec.openapis.org/oas/3.1/schema-base', doc, 'BASIC')).valid).toBe(true);
    const doc32 = createApp({ logger: false, openapiVersion: '3.2.0' }).openapi() as Record<string, any>;
    expect(doc32.openapi).toBe('3.2.0');
    expect(doc32.paths['/export'].get.responses['200'].content['application/jsonl']).toEqual({
      itemSchema: { $ref: '#/components/schemas/Message' },
    });
    const output = await validate32('https://spec.openapis.org/oas/3.2/schema-base', JSON.parse(JSON.stringify(doc32)), 'BASIC');
    expect(output.valid ? [] : output.errors).toEqual([]);
  });
});
