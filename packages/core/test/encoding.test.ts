import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, z } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';

describe('non-ASCII routes and JSON media types', () => {
  const app = new API({ logger: false });
  app.get('/café/menu', () => ({ static: true }));
  app.get('/café/{dish}', { params: { dish: z.string() } }, ({ dish }) => ({ dish }));
  app.post('/items', { params: { name: z.string() } }, ({ name }) => ({ name }));
  let client: TestClient;
  beforeAll(async () => {
    client = await TestClient.start(app);
  });
  afterAll(() => client.close());

  it('matches a static route written with non-ASCII characters against the percent-encoded request path', async () => {
    const res = await client.get('/caf%C3%A9/menu');
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ static: true });
  });

  it('matches static segments of parameterized routes the same way, and decodes the parameter', async () => {
    const res = await client.get('/caf%C3%A9/cr%C3%AApe');
    expect(res.json()).toEqual({ dish: 'crêpe' });
  });

  it.each(['application/json', 'application/json; charset=utf-8', 'application/vnd.api+json', 'text/x+json'])(
    'accepts a %s body',
    async (type) => {
      const res = await client.post('/items', { body: '{"name":"pen"}', headers: { 'content-type': type } });
      expect(res.status).toBe(200);
      expect(res.json()).toEqual({ name: 'pen' });
    },
  );

  it.each(['text/plain', 'application/jsonp', 'application/x-www-form-urlencoded'])('refuses a %s body with 415', async (type) => {
    const res = await client.post('/items', { body: '{"name":"pen"}', headers: { 'content-type': type } });
    expect(res.status).toBe(415);
    expect(res.headers['content-type']).toBe('application/problem+json');
  });
});
