// A bookshelf whose endpoints are also Model Context Protocol tools: reading is open, adding is a
// tool too, and deleting needs an API key with the `books:admin` permission — for agents as for HTTP.
import { apiKeyRequired } from '@fnapi/auth';
import { API, NotFoundError, z } from '@fnapi/core';
import { mcp } from '@fnapi/mcp';

const Book = z
  .object({ id: z.int(), title: z.string(), author: z.string(), year: z.int().optional() })
  .meta({ id: 'Book', description: 'A book on the shelf' });
const NewBook = z.object({ title: z.string().min(1), author: z.string().min(1), year: z.int().min(0).optional() }).meta({ id: 'NewBook' });

const books = new Map<number, z.infer<typeof Book>>([
  [1, { id: 1, title: 'The Left Hand of Darkness', author: 'Ursula K. Le Guin', year: 1969 }],
  [2, { id: 2, title: 'Kindred', author: 'Octavia E. Butler', year: 1979 }],
]);
let nextId = 3;

// Keys and what each may do; a real app reads them from its secrets.
const keys = { 'reader-key': ['books:read'], 'admin-key': ['books:read', 'books:admin'] };

export const app = new API({ title: 'Bookshelf', version: '1.0.0' });

app.get(
  '/books',
  {
    params: { author: z.string().optional(), limit: z.int().min(1).max(100).default(20) },
    response: z.array(Book),
    summary: 'List the books, by author if given',
    mcp: true,
  },
  function listBooks({ author, limit }) {
    return [...books.values()].filter((book) => author === undefined || book.author === author).slice(0, limit);
  },
);

app.get(
  '/books/{id}',
  {
    params: { id: z.int() },
    response: Book,
    summary: 'One book by its id',
    responses: { 404: 'No such book' },
    mcp: { title: 'Look up a book', resource: 'books://{id}' },
  },
  function getBook({ id }) {
    const book = books.get(id);
    if (book === undefined) throw new NotFoundError(`No book ${id}`);
    return book;
  },
);

app.post(
  '/books',
  { params: { book: NewBook }, response: Book, statusCode: 201, summary: 'Add a book', mcp: true },
  function addBook({ book }) {
    const created = { id: nextId++, ...book };
    books.set(created.id, created);
    return created;
  },
);

app.delete(
  '/books/{id}',
  { params: { id: z.int() }, statusCode: 204, summary: 'Remove a book (needs books:admin)', responses: { 404: 'No such book' }, mcp: true },
  apiKeyRequired({ apiKeys: keys, permissions: ['books:admin'] })(function deleteBook({ id }: { id: number }) {
    if (!books.delete(id)) throw new NotFoundError(`No book ${id}`);
  }),
);

app.extend(mcp({ name: 'bookshelf', version: '1.0.0', instructions: 'A small library: list, look up, add and remove books.' }));

export default app;
