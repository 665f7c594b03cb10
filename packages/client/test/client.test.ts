/**
 * `createClient` against a real fnapi app over loopback, typed by the `paths` that `fnapi client` wrote
 * for it (`fixtures/library-api.d.ts`, checked against what the command writes today): typed calls,
 * the error union narrowed on `status`, a 204, uploads, forms, and streams read with the readers.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestClient } from '@fnapi/core/testing';
import { writeClientTypes } from '@fnapi/dev';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { type Client, createClient, readEvents, readLines, StreamError, toFormData } from '../src/index.js';
import { createLibrary } from './fixtures/library.js';
import type { paths, streams } from './fixtures/library-api.js';

const PNG = new Uint8Array([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0,
]);

let server: TestClient | undefined;
let api: Client<paths>;
// A fresh app per test: the calls below create and delete books.
beforeEach(async () => {
  await server?.close();
  server = await TestClient.start(createLibrary());
  api = createClient<paths>({ baseUrl: server.url });
});
afterAll(() => server?.close());

describe('the committed library-api.d.ts', () => {
  it('is what `fnapi client` writes for the fixture today', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fnapi-client-'));
    try {
      const output = join(dir, 'library-api.d.ts');
      const log: string[] = [];
      await writeClientTypes(createLibrary(), 'packages/client/test/fixtures/library.ts', output, (line) => log.push(line));
      const committed = readFileSync(new URL('./fixtures/library-api.d.ts', import.meta.url), 'utf8');
      expect(committed, 'library-api.d.ts is stale: run the command in fixtures/library.ts').toBe(readFileSync(output, 'utf8'));
      // Every endpoint has a response model: nothing is typed unknown.
      expect(log.filter((line) => line.includes('warning'))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('typed calls', () => {
  it('reads a success body, path and query parameters sent as the document says', async () => {
    const { data, error, response } = await api.GET('/books/{book_id}', { params: { path: { book_id: 1 } } });
    expect(error).toBeUndefined();
    expect(response.status).toBe(200);
    expect(data).toEqual({ id: 1, title: 'Dune', tags: ['sf'] });

    await api.POST('/books', { body: { title: 'Emma', tags: ['classic'] } });
    await api.POST('/books', { body: { title: 'Odes', tags: ['poetry'] } });
    // An array goes as repeated keys (`?tag=sf&tag=classic`), as fnapi reads an array parameter.
    const listed = await api.GET('/books', { params: { query: { tag: ['sf', 'classic'], limit: 5 } } });
    expect(listed.data?.map((book) => book.title)).toEqual(['Dune', 'Emma']);
    const none = await api.GET('/books', { params: { query: { tag: ['drama'] } } });
    expect(none.data).toEqual([]);
  });

  it('sends a JSON body and reads the created resource; a 204 has no data', async () => {
    const created = await api.POST('/books', { body: { title: 'Emma', tags: ['classic'] } });
    expect(created.response.status).toBe(201);
    expect(created.response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(created.data).toEqual({ id: 2, title: 'Emma', tags: ['classic'] });

    const deleted = await api.DELETE('/books/{book_id}', { params: { path: { book_id: 2 } } });
    expect(deleted.response.status).toBe(204);
    expect(deleted.data).toBeUndefined();
    expect(deleted.error).toBeUndefined();
    const gone = await api.GET('/books/{book_id}', { params: { path: { book_id: 2 } } });
    expect(gone.error?.status).toBe(404);
  });

  it('sends the client-wide headers, and a call’s own headers over them', async () => {
    const seen: string[] = [];
    const traced = createClient<paths>({
      baseUrl: server!.url,
      headers: { 'X-Trace': 'client' },
      fetch: (request) => {
        seen.push(request.headers.get('x-trace') ?? '');
        return fetch(request);
      },
    });
    await traced.GET('/books/{book_id}', { params: { path: { book_id: 1 } } });
    await traced.GET('/books/{book_id}', { params: { path: { book_id: 1 } }, headers: { 'X-Trace': 'call' } });
    expect(seen).toEqual(['client', 'call']);
  });
});

describe('the error union', () => {
  it('a 404 is the Problem404 body, narrowed on its status', async () => {
    const { data, error, response } = await api.GET('/books/{book_id}', { params: { path: { book_id: 99 } } });
    expect(data).toBeUndefined();
    expect(response.status).toBe(404);
    if (error?.status !== 404) throw new Error(`expected a 404, got ${JSON.stringify(error)}`);
    expect(error.detail).toBe('No book 99');
    expect(error.title).toBe('Not Found');
  });

  it('a 422 is the validation problem, naming where each input was wrong', async () => {
    const path = await api.GET('/books/{book_id}', { params: { path: { book_id: 'one' as unknown as number } } });
    if (path.error?.status !== 422) throw new Error(`expected a 422, got ${JSON.stringify(path.error)}`);
    expect(path.error.errors.map((issue) => [issue.in, issue.path])).toEqual([['path', ['book_id']]]);

    const query = await api.GET('/books', { params: { query: { limit: 500 } } });
    expect(query.error?.status === 422 && query.error.errors.map((issue) => [issue.in, issue.path])).toEqual([['query', ['limit']]]);

    const body = await api.POST('/books', { body: { title: '' } });
    if (body.error?.status !== 422) throw new Error(`expected a 422, got ${JSON.stringify(body.error)}`);
    expect(body.error.errors).toEqual([expect.objectContaining({ in: 'body', code: 'too_small' })]);
  });

  it('a body the server cannot read is the 415 of its union', async () => {
    const { error } = await api.POST('/books', {
      body: { title: 'Emma' },
      bodySerializer: (book) => book.title,
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(error?.status).toBe(415);
  });
});

describe('uploads and forms', () => {
  it('a body holding a Blob is sent as multipart: the file a part, the other fields text parts', async () => {
    const cover = new File([PNG], 'cover.png', { type: 'image/png' });
    const { data, error } = await api.POST('/books/{book_id}/cover', {
      params: { path: { book_id: 1 } },
      body: { cover, caption: 'front' },
    });
    expect(error).toBeUndefined();
    expect(data).toEqual({ book_id: 1, name: 'cover.png', type: 'image/png', size: PNG.byteLength, caption: 'front' });
  });

  it('a file of the wrong type is the 422 of its union, naming the field', async () => {
    const { error } = await api.POST('/books/{book_id}/cover', {
      params: { path: { book_id: 1 } },
      body: { cover: new Blob(['not a png'], { type: 'image/png' }) },
    });
    if (error?.status !== 422) throw new Error(`expected a 422, got ${JSON.stringify(error)}`);
    expect(error.errors).toEqual([expect.objectContaining({ in: 'body', path: ['cover'], code: 'file_type' })]);
  });

  it('a body without a Blob is JSON unless the call serializes it with toFormData', async () => {
    const asJson = await api.POST('/books/{book_id}/cover', { params: { path: { book_id: 1 } }, body: { caption: 'none' } as never });
    expect(asJson.error?.status).toBe(415);
    const asForm = await api.POST('/books/{book_id}/cover', {
      params: { path: { book_id: 1 } },
      body: { caption: 'none' } as never,
      bodySerializer: toFormData,
    });
    if (asForm.error?.status !== 422) throw new Error(`expected a 422, got ${JSON.stringify(asForm.error)}`);
    expect(asForm.error.errors).toEqual([expect.objectContaining({ path: ['cover'] })]);
  });

  it('a form without files goes URL-encoded with that Content-Type, or as multipart with toFormData', async () => {
    const encoded = await api.POST('/newsletter', {
      body: { email: 'ada@example.com', weekly: true },
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect([encoded.response.status, encoded.data]).toEqual([201, { email: 'ada@example.com', weekly: true }]);
    const multipart = await api.POST('/newsletter', { body: { email: 'bob@example.com' }, bodySerializer: toFormData });
    expect([multipart.response.status, multipart.data]).toEqual([201, { email: 'bob@example.com', weekly: false }]);
    const invalid = await api.POST('/newsletter', { body: { email: 'nobody', weekly: false }, bodySerializer: toFormData });
    expect(invalid.error?.status === 422 && invalid.error.errors.map((issue) => issue.path)).toEqual([['email']]);
  });
});

describe('streams through the client', () => {
  it('reads the named events of an event stream, typed by `streams`', async () => {
    const { error, response } = await api.GET('/books/{book_id}/reading', {
      params: { path: { book_id: 1 }, query: { pages: 2 } },
      parseAs: 'stream',
    });
    expect(error).toBeUndefined();
    const events = [];
    for await (const event of readEvents<streams['/books/{book_id}/reading']['get']>(response)) events.push(event);
    expect(events).toEqual([
      { event: 'page', id: '1', data: { page: 1 } },
      { event: 'page', id: '2', data: { page: 2 } },
      { event: 'finished', id: '2', data: { pages: 2 } },
    ]);
  });

  it('an error inside the stream ends the reading with a StreamError carrying the problem', async () => {
    const { response } = await api.GET('/books/{book_id}/reading', {
      params: { path: { book_id: 99 }, query: { pages: 1 } },
      parseAs: 'stream',
    });
    const failure = await (async () => {
      for await (const _ of readEvents(response)) void _;
    })().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(StreamError);
    expect((failure as StreamError).status).toBe(404);
    expect((failure as StreamError).problem).toMatchObject({ detail: 'No book 99' });
  });

  it('an answer refused before the stream is the call’s typed error, and the readers throw its status', async () => {
    const { error, response } = await api.GET('/books/{book_id}/reading', {
      params: { path: { book_id: 1 }, query: { pages: 0 } },
      parseAs: 'stream',
    });
    expect(error?.status).toBe(422);
    const failure = await (async () => {
      for await (const _ of readEvents(response)) void _;
    })().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(StreamError);
    expect((failure as StreamError).status).toBe(422);
    expect((failure as StreamError).problem).toBeUndefined();
  });

  it('reads a JSON Lines export line by line', async () => {
    await api.POST('/books', { body: { title: 'Emma' } });
    const { response } = await api.GET('/export', { parseAs: 'stream' });
    const titles = [];
    for await (const book of readLines<streams['/export']['get']>(response)) titles.push(book.title);
    expect(titles).toEqual(['Dune', 'Emma']);
  });
});

describe('the package', () => {
  it('depends on openapi-fetch alone and imports no Node built-in, so it runs in browsers', () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { dependencies: object };
    expect(Object.keys(manifest.dependencies)).toEqual(['openapi-fetch']);
    for (const file of ['index.ts', 'client.ts', 'read.ts']) {
      const source = readFileSync(new URL(`../src/${file}`, import.meta.url), 'utf8');
      const imported = [...source.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+'([^']+)'/gm)].map((m) => m[1]);
      expect(
        imported.filter((name) => name !== 'openapi-fetch' && !name!.startsWith('./')),
        file,
      ).toEqual([]);
    }
  });
});
