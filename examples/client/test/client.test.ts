/**
 * The client project against the real example app over loopback, and the committed `api.d.ts`
 * checked against what `fnapi client` generates now (regenerate with `pnpm generate`).
 */
import { readFileSync } from 'node:fs';
import { TestClient } from '@fnapi/core/testing';
import { clientTypes } from '@fnapi/dev';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '@fnapi/example-basic/app';
import { createUser, describePost, exampleClient, type ExampleClient } from '../src/client.js';

describe('the typed client against the example app', () => {
  let server: TestClient;
  let api: ExampleClient;
  beforeAll(async () => {
    server = await TestClient.start(createApp({ logger: false }));
    api = exampleClient(server.url);
  });
  afterAll(() => server?.close());

  it('reads a typed success body', async () => {
    expect(await describePost(api, 1, 2)).toBe('post 2 of user 1');
    const { data, error, response } = await api.GET('/search', { params: { query: { query: 'fnapi', limit: 5 } } });
    expect(error).toBeUndefined();
    expect(response.status).toBe(200);
    expect(data).toEqual({ query: 'fnapi', page: 1, limit: 5, results: [] });
  });

  it('narrows a 422 to the validation problem and names where the input was wrong', async () => {
    expect(await describePost(api, 'one' as unknown as number, 2)).toBe('invalid path user_id');
    const created = await createUser(api, { name: 'Ada', email: 'not-an-email', age: 12 });
    expect(created).toEqual({ invalid: ['email', 'age'] });
  });

  it('creates a user, the model filling the defaults', async () => {
    const created = await createUser(api, { name: 'Ada', email: 'ada@example.com', age: 36 });
    expect(created).toEqual({ created: expect.any(Number), role: 'user' });
  });

  it('gets each error status the document lists for it', async () => {
    const missing = await api.GET('/hello/{name}', { params: { path: { name: '' } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error?.status).toBe(404);
    const malformed = await api.POST('/users', {
      body: '{' as never,
      bodySerializer: (body) => body as unknown as string,
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.error?.status).toBe(400);
  });
});

describe('the committed api.d.ts', () => {
  it('is what `pnpm generate` writes today (run it after changing the example app)', async () => {
    const committed = readFileSync(new URL('../src/api.d.ts', import.meta.url), 'utf8');
    const fresh = await clientTypes(createApp({ logger: false }).openapi(), '../basic/src/document.ts');
    expect(committed, 'examples/client/src/api.d.ts is stale: run `pnpm --filter @fnapi/example-client generate`').toBe(fresh);
  }, 60_000);
});
