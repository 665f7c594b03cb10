import { randomBytes } from 'node:crypto';
import { API, ConflictError, cookie, dependency, ForbiddenError, header, UnauthorizedError, z } from '@fnapi/core';
import { ConnectionPool } from '@fnapi/database';

export interface DependenciesExampleOptions {
  databaseUrl?: string;
  /** Prefix of the tables, so several copies can share one database (tests); default `deps`. */
  tablePrefix?: string;
  logger?: false;
}

type Connection = Awaited<ReturnType<ConnectionPool['acquire']>>;

/** Who is calling: from the `session` cookie (a browser) or an `Authorization: Bearer` token. */
export interface User {
  id: number;
  name: string;
  scopes: string[];
}

/**
 * FastAPI's `Depends`, in fnapi: an app-lifetime pool (made after startup, closed at shutdown), a
 * transaction per request that commits before the answer and rolls back when anything throws, and
 * the current user from a cookie or a bearer token, with scopes.
 */
export function createApp(options: DependenciesExampleOptions = {}) {
  const prefix = (options.tablePrefix ?? 'deps').replace(/[^a-z0-9_]/gi, '_');
  const users = `${prefix}_users`;
  const sessions = `${prefix}_sessions`;
  const notes = `${prefix}_notes`;

  const settings = dependency({ lifetime: 'app' }, () => ({
    databaseUrl: options.databaseUrl ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  }));

  // One pool for the app: made once the app starts, closed after in-flight requests at shutdown.
  const pool = dependency({ lifetime: 'app', uses: { settings } }, async function* pool({ settings }) {
    const pool = new ConnectionPool(settings.databaseUrl, { minSize: 1, maxSize: 10, acquireTimeout: 5 });
    await pool.query(`create table if not exists ${users} (id serial primary key, name text not null unique)`);
    await pool.query(
      `create table if not exists ${sessions} (token text primary key, user_id int not null references ${users}(id), scopes text[] not null)`,
    );
    await pool.query(
      `create table if not exists ${notes} (id serial primary key, owner int not null references ${users}(id), title text not null unique)`,
    );
    try {
      yield pool;
    } finally {
      await pool.close();
    }
  });

  // A transaction per call: COMMIT before the answer (a failed commit is the answer), ROLLBACK when
  // the handler or anything after this dependency throws (the error is thrown in here).
  const tx = dependency(
    { lifetime: 'call', uses: { pool }, responses: { 409: 'A title is taken: nothing was saved' } },
    async function* tx({ pool }): AsyncGenerator<Connection> {
      const connection = await pool.acquire();
      await connection.query('BEGIN');
      try {
        yield connection;
        await connection.query('COMMIT');
      } catch (error) {
        await connection.query('ROLLBACK');
        if ((error as { code?: string }).code === '23505') throw new ConflictError('That title is taken: nothing was saved');
        throw error;
      } finally {
        connection.release();
      }
    },
  );

  const currentUser = dependency(
    {
      params: { authorization: header(z.string().optional()), session: cookie(z.string().optional()) },
      uses: { pool },
      responses: { 401: 'Not signed in' },
    },
    async function currentUser({ authorization, session, pool }): Promise<User> {
      const bearer = authorization?.startsWith('Bearer ') ? authorization.slice(7) : undefined;
      const token = bearer ?? session;
      if (!token) throw new UnauthorizedError('Not signed in', undefined, { headers: { 'www-authenticate': 'Bearer' } });
      const { rows } = await pool.query<{ id: number; name: string; scopes: string[] }>(
        `select u.id, u.name, s.scopes from ${sessions} s join ${users} u on u.id = s.user_id where s.token = $1`,
        [token],
      );
      if (rows.length === 0)
        throw new UnauthorizedError('Unknown or expired session', undefined, { headers: { 'www-authenticate': 'Bearer' } });
      return rows[0]!;
    },
  );

  /** The current user, who must hold `scope`. */
  const withScope = (scope: string) =>
    dependency({ uses: { user: currentUser }, responses: { 403: `Needs the ${scope} scope` }, name: `scope ${scope}` }, ({ user }) => {
      if (!user.scopes.includes(scope)) throw new ForbiddenError(`This needs the ${scope} scope`);
      return user;
    });
  const writer = withScope('notes:write');

  const app = new API({ title: 'fnapi dependencies example', version: '1.0.0', logger: options.logger });

  app.post(
    '/login',
    {
      summary: 'Sign in: a session cookie for browsers, the same token for bearer clients',
      params: { name: z.string().min(1).max(40), scopes: z.array(z.string()).default([]) },
      uses: { tx },
      statusCode: 201,
    },
    async ({ name, scopes, tx }, request) => {
      const { rows } = await tx.query<{ id: number }>(
        `insert into ${users} (name) values ($1) on conflict (name) do update set name = excluded.name returning id`,
        [name],
      );
      const token = randomBytes(24).toString('base64url');
      await tx.query(`insert into ${sessions} (token, user_id, scopes) values ($1, $2, $3)`, [token, rows[0]!.id, scopes]);
      request.setCookie('session', token, { httpOnly: true, sameSite: 'lax', path: '/' });
      return { access_token: token, token_type: 'bearer' };
    },
  );

  app.get('/me', { summary: 'Who is calling', uses: { user: currentUser } }, ({ user }) => user);

  app.post(
    '/notes',
    {
      summary: 'Save notes: all or none',
      params: { titles: z.array(z.string().min(1)).min(1).max(50) },
      uses: { tx, user: writer },
      statusCode: 201,
    },
    async ({ titles, tx, user }) => {
      const ids: number[] = [];
      for (const title of titles) {
        const { rows } = await tx.query<{ id: number }>(`insert into ${notes} (owner, title) values ($1, $2) returning id`, [
          user.id,
          title,
        ]);
        ids.push(rows[0]!.id);
      }
      return { saved: ids };
    },
  );

  app.get('/notes', { summary: "The caller's notes", uses: { user: currentUser, pool } }, async ({ user, pool }) => {
    const { rows } = await pool.query<{ title: string }>(`select title from ${notes} where owner = $1 order by id`, [user.id]);
    return rows.map((row) => row.title);
  });

  return { app, dependencies: { settings, pool, tx, currentUser, writer } };
}
