/**
 * What `createClient<paths>` promises at compile time, with the types `fnapi client` wrote for the
 * fixture app: a path, a parameter or a body the document does not allow is an error; each call's
 * `error` is exactly the union of its documented error bodies; files are Blobs; stream items are typed.
 */
import { describe, expectTypeOf, it } from 'vitest';
import { type Client, type ClientOptions, createClient, readEvents, readLines, type StreamEvent } from '../src/index.js';
import type { components, paths, streams } from './fixtures/library-api.js';

const api = createClient<paths>({ baseUrl: 'http://127.0.0.1:8000' });
type Book = components['schemas']['Book'];

describe('createClient<paths>', () => {
  it('is openapi-fetch’s Client of those paths; every option may be given as undefined', () => {
    expectTypeOf(api).toEqualTypeOf<Client<paths>>();
    const options: ClientOptions = { baseUrl: undefined, headers: undefined, fetch: undefined };
    createClient<paths>(options);
  });

  it('refuses a path, a method or a parameter the document does not have', async () => {
    // @ts-expect-error: no such path
    await api.GET('/book/{book_id}', { params: { path: { book_id: 1 } } });
    // @ts-expect-error: /books/{book_id} has no PUT
    await api.PUT('/books/{book_id}', { params: { path: { book_id: 1 } } });
    // @ts-expect-error: the path parameter is an integer
    await api.GET('/books/{book_id}', { params: { path: { book_id: '1' } } });
    // @ts-expect-error: the path parameter is required
    await api.GET('/books/{book_id}', {});
    // @ts-expect-error: `tag` is an array of strings
    await api.GET('/books', { params: { query: { tag: 'sf' } } });
    // @ts-expect-error: `limit` is a number
    await api.GET('/books', { params: { query: { limit: 'ten' } } });
    // @ts-expect-error: `pages` is required
    await api.GET('/books/{book_id}/reading', { params: { path: { book_id: 1 } }, parseAs: 'stream' });
  });

  it('refuses a body the document does not describe', async () => {
    // @ts-expect-error: `title` is required
    await api.POST('/books', { body: { tags: [] } });
    // @ts-expect-error: `tags` are strings
    await api.POST('/books', { body: { title: 'Emma', tags: [1] } });
    // @ts-expect-error: a file field is a Blob, not its name
    await api.POST('/books/{book_id}/cover', { params: { path: { book_id: 1 } }, body: { cover: 'cover.png' } });
    await api.POST('/books/{book_id}/cover', { params: { path: { book_id: 1 } }, body: { cover: new Blob([]), caption: 'front' } });
  });

  it('types the success body and makes the error exactly the documented union', async () => {
    const one = await api.GET('/books/{book_id}', { params: { path: { book_id: 1 } } });
    expectTypeOf(one.data).toEqualTypeOf<Book | undefined>();
    expectTypeOf<NonNullable<typeof one.error>['status']>().toEqualTypeOf<404 | 422>();
    if (one.error?.status === 404) expectTypeOf(one.error).toEqualTypeOf<components['schemas']['Problem404']>();
    if (one.error?.status === 422) expectTypeOf(one.error).toEqualTypeOf<components['schemas']['ValidationProblem']>();

    const created = await api.POST('/books', { body: { title: 'Emma' } });
    expectTypeOf<NonNullable<typeof created.error>['status']>().toEqualTypeOf<400 | 413 | 415 | 422>();
    const cover = await api.POST('/books/{book_id}/cover', { params: { path: { book_id: 1 } }, body: { cover: new Blob([]) } });
    expectTypeOf<NonNullable<typeof cover.error>['status']>().toEqualTypeOf<400 | 404 | 413 | 415 | 422>();
    expectTypeOf(cover.data?.size).toEqualTypeOf<number | undefined>();
    const listed = await api.GET('/books');
    expectTypeOf<NonNullable<typeof listed.error>['status']>().toEqualTypeOf<422>();
  });

  it('gives stream items their generated types', async () => {
    const { response } = await api.GET('/books/{book_id}/reading', {
      params: { path: { book_id: 1 }, query: { pages: 1 } },
      parseAs: 'stream',
    });
    for await (const event of readEvents<streams['/books/{book_id}/reading']['get']>(response)) {
      // Named events: the name narrows the data.
      expectTypeOf(event.event).toEqualTypeOf<'page' | 'finished'>();
      if (event.event === 'page') expectTypeOf(event.data.page).toEqualTypeOf<number>();
      else expectTypeOf(event.data).toMatchTypeOf<components['schemas']['Finished']>();
      expectTypeOf(event.data).toMatchTypeOf<components['schemas']['Page'] | components['schemas']['Finished']>();
    }
    // An unnamed stream's events are plain.
    for await (const event of readEvents<Book>(response)) expectTypeOf(event).toEqualTypeOf<StreamEvent<Book>>();
    for await (const book of readLines<streams['/export']['get']>(response)) expectTypeOf(book).toEqualTypeOf<Book>();
  });
});
