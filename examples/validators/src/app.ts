// One bookshop, three validators: zod (fnapi's default, re-exported as `z`), valibot and arktype,
// mixed freely — even inside one endpoint. Every schema is a Standard Schema; fnapi converts path,
// query and header strings by each schema's JSON Schema type and documents each from it.
import { API, header, NotFoundError, query, z } from '@fnapi/core';
import { type } from 'arktype';
import * as v from 'valibot';

// valibot: documented through @valibot/to-json-schema (installed beside valibot).
const Book = v.object({
  id: v.pipe(v.number(), v.integer()),
  title: v.string(),
  author: v.string(),
  year: v.optional(v.pipe(v.number(), v.integer())),
});
type Book = v.InferOutput<typeof Book>;

// arktype: documented through its own `~standard.jsonSchema`.
const NewBook = type({
  title: '0 < string <= 200',
  author: '0 < string <= 100',
  'year?': '1000 <= number.integer <= 2100',
});

// zod: the default, with its compiled fast path.
const Review = z.object({ stars: z.int().min(1).max(5), text: z.string().max(500).optional() });

export function createApp(): API {
  const app = new API({
    title: 'Bookshop (any validator)',
    version: '1.0.0',
    servers: [{ url: '/', description: 'The server serving this document' }],
    license: { name: 'MIT', identifier: 'MIT' },
  });
  const books = new Map<number, Book>([[1, { id: 1, title: 'Dune', author: 'Frank Herbert', year: 1965 }]]);
  const reviews = new Map<number, z.output<typeof Review>[]>();

  app.get(
    '/books',
    {
      summary: 'List books (valibot query parameters)',
      params: {
        author: v.optional(v.string()),
        limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100)), 20),
      },
      response: v.array(Book),
    },
    function listBooks({ author, limit }) {
      return [...books.values()].filter((book) => author === undefined || book.author === author).slice(0, limit);
    },
  );

  app.get(
    '/books/{book_id}',
    {
      summary: 'One book (valibot path parameter and response model)',
      params: { book_id: v.pipe(v.number(), v.integer(), v.minValue(1)) },
      response: Book,
      responses: { 404: 'No such book' },
    },
    function getBook({ book_id }) {
      const book = books.get(book_id);
      if (!book) throw new NotFoundError(`Book ${book_id} not found`);
      return book;
    },
  );

  app.post(
    '/books',
    {
      summary: 'Add a book (arktype body model)',
      params: { book: NewBook, x_request_source: header(type('string | undefined')) },
      response: Book,
      statusCode: 201,
    },
    function addBook({ book }) {
      const id = books.size + 1;
      const created: Book = { id, ...book };
      books.set(id, created);
      return created;
    },
  );

  app.post(
    '/books/{book_id}/reviews',
    {
      summary: 'Review a book (zod, valibot and arktype in one endpoint)',
      params: { book_id: z.int().min(1), review: Review, notify: query(type('boolean')) },
      statusCode: 201,
    },
    function addReview({ book_id, review, notify }) {
      const list = reviews.get(book_id) ?? [];
      list.push(review);
      reviews.set(book_id, list);
      return { book_id, count: list.length, notify };
    },
  );

  return app;
}
