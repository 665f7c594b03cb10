import { TestClient } from '@fnapi/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';

describe('the auth example', () => {
  let client: TestClient;
  beforeAll(async () => {
    client = await TestClient.start(createApp({ jwtSecret: 'example-test-secret-of-32-bytes-min', logger: false }));
  });
  afterAll(() => client?.close());

  it('logs in and calls a bearer route with the token', async () => {
    expect((await client.post('/login', { json: { username: 'ada', password: 'nope' } })).status).toBe(401);
    const login = await client.post('/login', { json: { username: 'ada', password: 'lovelace' } });
    expect(login.status).toBe(200);
    const { access_token } = login.json<{ access_token: string }>();
    expect((await client.get('/me')).status).toBe(401);
    const me = await client.get('/me', { headers: { authorization: `Bearer ${access_token}` } });
    expect(me.json()).toMatchObject({ user: 'ada', claims: { iss: 'fnapi-example' } });
    const created = await client.post('/reports', { json: { name: 'q3' }, headers: { authorization: `Bearer ${access_token}` } });
    expect(created.status).toBe(201);
    expect(created.json()).toEqual({ name: 'q3', createdBy: 'ada' });
  });

  it('checks API key permissions and Basic credentials', async () => {
    expect((await client.get('/reports', { headers: { 'x-api-key': 'demo-read-key' } })).status).toBe(200);
    expect((await client.post('/reports', { json: { name: 'x' }, headers: { 'x-api-key': 'demo-read-key' } })).status).toBe(403);
    expect((await client.post('/reports', { json: { name: 'x' }, headers: { 'x-api-key': 'demo-admin-key' } })).status).toBe(201);
    const basic = `Basic ${Buffer.from('grace:hopper').toString('base64')}`;
    expect((await client.get('/admin', { headers: { authorization: basic } })).json()).toEqual({ admin: 'grace' });
  });

  it('refuses an unauthenticated request before validating its body', async () => {
    const res = await client.post('/reports', { json: { name: '' } });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="api", ApiKey');
  });
});
