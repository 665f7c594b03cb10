import { randomUUID } from 'node:crypto';
import type { API } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import type { ConnectionPool } from '@fnapi/database';
import { DATABASE_URL, serviceAvailable } from '@fnapi/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';

const available = await serviceAvailable('PostgreSQL', DATABASE_URL);

describe.skipIf(!available)('the database example', () => {
  const prefix = `t_${randomUUID().slice(0, 8)}`;
  let app: API;
  let pool: ConnectionPool;
  let client: TestClient;
  beforeAll(async () => {
    ({ app, pool } = createApp({ tablePrefix: prefix, logger: false }));
    client = await TestClient.start(app);
  });
  afterAll(async () => {
    await pool?.query(`drop table if exists ${prefix}_todos`);
    await pool?.query(`drop table if exists ${prefix}_authors`);
    await client?.close();
  });

  it('creates, lists with authors, updates and deletes', async () => {
    const ada = (await client.post('/authors', { json: { name: 'Ada' } })).json<{ id: number }>();
    const created = await client.post('/todos', { json: { title: 'engine notes', author_id: ada.id } });
    expect(created.status).toBe(201);
    const todo = created.json<{ id: number }>();
    expect(created.json()).toEqual({ id: todo.id, title: 'engine notes', done: false, author: { id: ada.id, name: 'Ada' } });
    expect((await client.post('/todos', { json: { title: 'engine notes' } })).status).toBe(409);
    expect((await client.post('/todos', { json: { title: 'x', author_id: 999999 } })).status).toBe(404);
    await client.post('/todos', { json: { title: 'loose end' } });
    const list = await client.get('/todos');
    expect(list.json()).toEqual([
      { id: todo.id, title: 'engine notes', done: false, author: { id: ada.id, name: 'Ada' } },
      expect.objectContaining({ title: 'loose end', author: null }),
    ]);
    expect((await client.request('PATCH', `/todos/${todo.id}`, { json: { done: true } })).json()).toMatchObject({ done: true });
    expect((await client.delete(`/todos/${todo.id}`)).status).toBe(204);
    expect((await client.get(`/todos/${todo.id}`)).status).toBe(404);
  });

  it('adds a bulk of todos all or none', async () => {
    const ok = await client.post('/todos/bulk', { json: { titles: ['a1', 'a2'] } });
    expect(ok.status).toBe(201);
    const before = (await client.get('/todos?limit=100')).json<unknown[]>().length;
    const clash = await client.post('/todos/bulk', { json: { titles: ['b1', 'a1'] } });
    expect(clash.status).toBe(409);
    expect((await client.get('/todos?limit=100')).json<unknown[]>().length).toBe(before);
    expect((await client.get('/pool')).json()).toMatchObject({ inUse: 0, waiting: 0 });
  });
});
