/**
 * The dependencies example on a real PostgreSQL: a transaction per request that rolls back on error,
 * the current user from a cookie or a bearer token with scopes, the app-lifetime pool, and tests
 * that override the current user instead of signing in.
 */
import { randomUUID } from 'node:crypto';
import { TestClient } from '@fnapi/core/testing';
import { ConnectionPool } from '@fnapi/database';
import { DATABASE_URL, serviceAvailable } from '@fnapi/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';

const available = await serviceAvailable('PostgreSQL', DATABASE_URL);

describe.skipIf(!available)('the dependencies example', () => {
  const prefix = `d_${randomUUID().slice(0, 8)}`;
  const { app, dependencies } = createApp({ tablePrefix: prefix, databaseUrl: DATABASE_URL, logger: false });
  let client: TestClient;
  const direct = new ConnectionPool(DATABASE_URL, { minSize: 0, maxSize: 2 });
  beforeAll(async () => {
    client = await TestClient.start(app);
  });
  afterAll(async () => {
    await client?.close();
    for (const table of ['notes', 'sessions', 'users']) await direct.query(`drop table if exists ${prefix}_${table}`);
    await direct.close();
  });

  const count = async () => Number((await direct.query<{ n: string }>(`select count(*) as n from ${prefix}_notes`)).rows[0]!.n);

  it('signs in with a cookie for browsers and a bearer token for the rest', async () => {
    expect((await client.get('/me')).status).toBe(401);
    const login = await client.post('/login', { json: { name: 'ada', scopes: ['notes:write'] } });
    expect(login.status).toBe(201);
    const { access_token } = login.json<{ access_token: string }>();
    const cookie = String(login.headers['set-cookie']).split(';')[0]!;
    expect((await client.get('/me', { headers: { cookie } })).json()).toMatchObject({ name: 'ada', scopes: ['notes:write'] });
    expect((await client.get('/me', { headers: { authorization: `Bearer ${access_token}` } })).json()).toMatchObject({ name: 'ada' });
    expect((await client.get('/me', { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
  });

  it('commits a transaction per request, and rolls all of it back when anything fails', async () => {
    const { access_token } = (await client.post('/login', { json: { name: 'bo', scopes: ['notes:write'] } })).json<{
      access_token: string;
    }>();
    const headers = { authorization: `Bearer ${access_token}` };
    const before = await count();
    const saved = await client.post('/notes', { json: { titles: [`${prefix} one`, `${prefix} two`] }, headers });
    expect(saved.status).toBe(201);
    expect(await count()).toBe(before + 2);
    // The third title repeats the first: the insert fails, the error is thrown into the transaction,
    // which rolls back the two before it and answers 409.
    const refused = await client.post('/notes', { json: { titles: [`${prefix} three`, `${prefix} four`, `${prefix} one`] }, headers });
    expect(refused.status).toBe(409);
    expect(await count()).toBe(before + 2);
    expect((await client.get('/notes', { headers })).json()).toEqual([`${prefix} one`, `${prefix} two`]);
  });

  it('needs the notes:write scope to write (403), and documents 401 and 403', async () => {
    const { access_token } = (await client.post('/login', { json: { name: 'cy' } })).json<{ access_token: string }>();
    const res = await client.post('/notes', { json: { titles: ['x'] }, headers: { authorization: `Bearer ${access_token}` } });
    expect(res.status).toBe(403);
    const doc = app.openapi() as {
      paths: Record<string, Record<string, { responses: Record<string, unknown>; parameters?: { name: string; in: string }[] }>>;
    };
    const post = doc.paths['/notes']!.post!;
    expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(['201', '401', '403', '409', '422']));
    expect(post.parameters!.map((p) => `${p.in}:${p.name}`).sort()).toEqual(['cookie:session', 'header:authorization']);
  });

  it('tests override the current user instead of signing in, for that client only', async () => {
    const owner = (await client.post('/login', { json: { name: 'dee', scopes: ['notes:write'] } })).json<{ access_token: string }>();
    const { rows } = await direct.query<{ id: number }>(`select user_id as id from ${prefix}_sessions where token = $1`, [
      owner.access_token,
    ]);
    const fake = { id: rows[0]!.id, name: 'dee (test)', scopes: ['notes:write'] };
    const testing = await TestClient.start(app, { overrides: [[dependencies.currentUser, () => fake]] });
    try {
      expect((await testing.get('/me')).json()).toEqual(fake);
      expect((await testing.post('/notes', { json: { titles: [`${prefix} by override`] } })).status).toBe(201);
      expect((await client.get('/me')).status).toBe(401);
    } finally {
      await testing.close();
    }
  });
});
