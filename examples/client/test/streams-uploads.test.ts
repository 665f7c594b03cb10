/**
 * The typed stream readers and a typed upload against the real events and uploads example apps, and
 * the committed `events-api.d.ts` / `uploads-api.d.ts` checked against what `fnapi client` writes now.
 */
import { readFileSync } from 'node:fs';
import { TestClient } from '@fnapi/core/testing';
import { clientTypes } from '@fnapi/dev';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp as eventsApp } from '../../events/src/app.js';
import { Feed } from '../../events/src/feed.js';
import { createApp as uploadsApp } from '../../uploads/src/app.js';
import { type EventsClient, eventsClient, exportMessages, followFeed } from '../src/streams.js';
import { subscribe, uploadAvatar, uploadDocuments, uploadsClient } from '../src/uploads.js';

const PNG = new Uint8Array([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0,
]);

describe('typed streams with @fnapi/client', () => {
  let server: TestClient;
  let api: EventsClient;
  const feed = new Feed();
  beforeAll(async () => {
    feed.publish('first');
    feed.publish('second');
    server = await TestClient.start(eventsApp({ logger: false, feed }));
    api = eventsClient(server.url);
  });
  afterAll(() => server?.close());

  it('reads the feed as typed events, named and with ids', async () => {
    const events = await followFeed(api, 3);
    expect(events[0]).toEqual({ event: 'welcome', id: undefined, data: { latest: 2 } });
    expect(events.slice(1).map((e) => [e.id, (e.data as { text: string }).text])).toEqual([
      ['1', 'first'],
      ['2', 'second'],
    ]);
  });

  it('reads the export as typed lines', async () => {
    const messages = await exportMessages(api, 1);
    expect(messages.map((m) => [m.id, m.text])).toEqual([[2, 'second']]);
  });
});

describe('typed uploads and forms with @fnapi/client', () => {
  let server: TestClient;
  beforeAll(async () => {
    server = await TestClient.start(uploadsApp({ logger: false }));
  });
  afterAll(() => server?.close());

  it('sends a Blob as a file part and reads the typed answer', async () => {
    const result = await uploadAvatar(uploadsClient(server.url), 7, new Blob([PNG], { type: 'image/png' }), 'me');
    expect(result).toMatchObject({ stored: { user_id: 7, caption: 'me', type: 'image/png', size: PNG.byteLength } });
  });

  it('narrows the 422 of a file of the wrong type', async () => {
    const result = await uploadAvatar(uploadsClient(server.url), 7, new Blob(['plain text'], { type: 'image/png' }));
    expect(result).toEqual({ invalid: ['avatar: file_type'] });
  });

  it('sends an array of Blobs as one part each under the field', async () => {
    const files = [new Blob(['one']), new File(['three'], 'three.txt', { type: 'text/plain' })];
    const result = await uploadDocuments(uploadsClient(server.url), files, 'reports');
    expect(result).toEqual({ folder: 'reports', names: ['blob', 'three.txt'], total: 8 });
  });

  it('sends a form without files URL-encoded, its fields converted by the server', async () => {
    expect(await subscribe(uploadsClient(server.url), 'ada@example.com', true)).toEqual({
      status: 201,
      subscribed: { email: 'ada@example.com', weekly: true },
    });
    expect(await subscribe(uploadsClient(server.url), 'not-an-email', false)).toEqual({ invalid: ['email'] });
  });
});

describe('the committed events-api.d.ts and uploads-api.d.ts', () => {
  it('are what `pnpm generate` writes today', async () => {
    for (const [file, app, source] of [
      ['events-api.d.ts', eventsApp({ logger: false }), '../events/src/document.ts'],
      ['uploads-api.d.ts', uploadsApp({ logger: false }), '../uploads/src/document.ts'],
    ] as const) {
      const committed = readFileSync(new URL(`../src/${file}`, import.meta.url), 'utf8');
      expect(committed, `examples/client/src/${file} is stale: run \`pnpm --filter @fnapi/example-client generate\``).toBe(
        await clientTypes(app.openapi(), source),
      );
    }
  }, 60_000);
});
