import { API, ConflictError, NotFoundError, z } from '@fnapi/core';
import { batchProcess, ConnectionPool } from '@fnapi/database';

export interface DatabaseExampleOptions {
  databaseUrl?: string;
  /** Prefix of the tables, so several copies can share one database (tests); default `example`. */
  tablePrefix?: string;
  logger?: false;
}

// Postgres ids are int4 and its text cannot hold NUL: such input is a 422, not a database error (500).
const Id = z.int().min(1).max(2_147_483_647);
// biome-ignore lint/complexity/useRegexLiterals: a literal may not hold the control character refused here.
const NO_NUL = new RegExp('^[^\\u0000]*$');
const Text = z.string().min(1).regex(NO_NUL, 'must not contain NUL characters');

const Todo = z.object({
  id: z.int(),
  title: z.string(),
  done: z.boolean(),
  author: z.object({ id: z.int(), name: z.string() }).nullable(),
});

/**
 * A small CRUD app on the pool: tables created on startup, a list whose authors are loaded with one
 * batched query, and an all-or-nothing bulk insert in a transaction.
 */
export function createApp(options: DatabaseExampleOptions = {}): { app: API; pool: ConnectionPool } {
  const url = options.databaseUrl ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const prefix = (options.tablePrefix ?? 'example').replace(/[^a-z0-9_]/gi, '_');
  const authors = `${prefix}_authors`;
  const todos = `${prefix}_todos`;
  const pool = new ConnectionPool(url, { minSize: 2, maxSize: 10, acquireTimeout: 5 });
  const app = new API({
    title: 'fnapi database example',
    version: '1.0.0',
    servers: [{ url: '/', description: 'The server serving this document' }],
    logger: options.logger,
  });

  app.onStartup(async () => {
    await pool.query(`create table if not exists ${authors} (id serial primary key, name text not null)`);
    await pool.query(
      `create table if not exists ${todos} (id serial primary key, title text not null unique, done boolean not null default false, author_id int references ${authors}(id))`,
    );
  });
  app.onShutdown(() => pool.close());

  // Every author a list needs, in one query per tick instead of one per todo.
  const loadAuthor = batchProcess({ maxBatchSize: 100, maxWaitTime: 0 }, async (ids: number[]) => {
    const { rows } = await pool.query<{ id: number; name: string }>(`select id, name from ${authors} where id = any($1::int[])`, [ids]);
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.map((id) => byId.get(id) ?? null);
  });
  const withAuthor = async (row: { id: number; title: string; done: boolean; author_id: number | null }) => ({
    id: row.id,
    title: row.title,
    done: row.done,
    author: row.author_id === null ? null : await loadAuthor(row.author_id),
  });
  const findTodo = async (id: number) => {
    const { rows } = await pool.query<{ id: number; title: string; done: boolean; author_id: number | null }>(
      `select * from ${todos} where id = $1`,
      [id],
    );
    if (rows.length === 0) throw new NotFoundError(`Todo ${id} not found`, { id });
    return withAuthor(rows[0]!);
  };

  app.post('/authors', { summary: 'Add an author', tags: ['authors'], params: { name: Text }, statusCode: 201 }, async ({ name }) => {
    const { rows } = await pool.query<{ id: number; name: string }>(`insert into ${authors} (name) values ($1) returning id, name`, [name]);
    return rows[0];
  });

  app.get(
    '/todos',
    {
      summary: 'List todos with their authors',
      tags: ['todos'],
      params: { limit: z.int().min(1).max(100).default(20) },
      response: z.array(Todo),
    },
    async ({ limit }) => {
      const { rows } = await pool.query<{ id: number; title: string; done: boolean; author_id: number | null }>(
        `select * from ${todos} order by id limit $1`,
        [limit],
      );
      return Promise.all(rows.map(withAuthor));
    },
  );

  app.post(
    '/todos',
    {
      summary: 'Add a todo',
      tags: ['todos'],
      params: { title: Text, author_id: Id.nullable().default(null) },
      statusCode: 201,
      responses: { 404: 'No author with that id', 409: 'A todo with that title exists' },
      response: Todo,
    },
    async ({ title, author_id }) => {
      const { rows } = await pool
        .query<{ id: number }>(`insert into ${todos} (title, author_id) values ($1, $2) returning id`, [title, author_id])
        .catch((error: { code?: string }) => {
          if (error.code === '23505') throw new ConflictError(`A todo titled "${title}" exists`);
          if (error.code === '23503') throw new NotFoundError(`Author ${author_id} not found`);
          throw error;
        });
      return findTodo(rows[0]!.id);
    },
  );

  app.post(
    '/todos/bulk',
    {
      summary: 'Add several todos: all or none',
      tags: ['todos'],
      params: { titles: z.array(Text).min(1).max(100) },
      statusCode: 201,
      responses: { 409: 'One of the titles exists already, or is given twice: nothing was added' },
    },
    async ({ titles }) =>
      pool
        .transaction(async (conn) => {
          const ids: number[] = [];
          for (const title of titles) {
            const { rows } = await conn.query<{ id: number }>(`insert into ${todos} (title) values ($1) returning id`, [title]);
            ids.push(rows[0]!.id);
          }
          return { created: ids };
        })
        .catch((error: { code?: string }) => {
          if (error.code === '23505') throw new ConflictError('One of the titles exists already: nothing was added');
          throw error;
        }),
  );

  app.get('/todos/{id}', { summary: 'One todo', tags: ['todos'], params: { id: Id }, response: Todo }, ({ id }) => findTodo(id));

  app.patch(
    '/todos/{id}',
    { summary: 'Mark a todo done or not', tags: ['todos'], params: { id: Id, done: z.boolean() }, response: Todo },
    async ({ id, done }) => {
      const { rowCount } = await pool.query(`update ${todos} set done = $2 where id = $1`, [id, done]);
      if (rowCount === 0) throw new NotFoundError(`Todo ${id} not found`, { id });
      return findTodo(id);
    },
  );

  app.delete('/todos/{id}', { summary: 'Delete a todo', tags: ['todos'], params: { id: Id } }, async ({ id }) => {
    const { rowCount } = await pool.query(`delete from ${todos} where id = $1`, [id]);
    if (rowCount === 0) throw new NotFoundError(`Todo ${id} not found`, { id });
  });

  app.get('/pool', { summary: 'The pool’s state', tags: ['ops'] }, () => pool.stats());

  return { app, pool };
}
