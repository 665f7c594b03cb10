/**
 * What the generated types promise a caller, pinned: for a few operations, the exact union of
 * `error.status` and the narrowed 422 body. A document that lost or gained a status fails here.
 */
import { describe, expectTypeOf, it } from 'vitest';
import { exampleClient } from '../src/client.js';
import type { components } from '../src/api.js';

const api = exampleClient('http://127.0.0.1:8000');
type Issue = { in: 'path' | 'query' | 'header' | 'cookie' | 'body'; path: (string | number)[]; message: string; code: string };

describe('the generated client of the example app', () => {
  it('GET /users/{user_id}/posts/{post_id}: a typed success body, errors 404 | 422', async () => {
    const { data, error } = await api.GET('/users/{user_id}/posts/{post_id}', { params: { path: { user_id: 1, post_id: 2 } } });
    expectTypeOf(data).toEqualTypeOf<{ user_id: number; post_id: number } | undefined>();
    expectTypeOf<NonNullable<typeof error>['status']>().toEqualTypeOf<404 | 422>();
    if (error?.status === 422) {
      expectTypeOf(error).toEqualTypeOf<components['schemas']['ValidationProblem']>();
      expectTypeOf(error.errors).toEqualTypeOf<Issue[]>();
    } else if (error) {
      expectTypeOf(error.status).toEqualTypeOf<404>();
      expectTypeOf(error.detail).toEqualTypeOf<string | undefined>();
    }
    // @ts-expect-error: the path parameters are integers
    await api.GET('/users/{user_id}/posts/{post_id}', { params: { path: { user_id: '1', post_id: 2 } } });
  });

  it('GET /search: only validation can fail', async () => {
    const { data, error } = await api.GET('/search', { params: { query: { query: 'fnapi' } } });
    expectTypeOf<NonNullable<typeof error>['status']>().toEqualTypeOf<422>();
    expectTypeOf(data).toEqualTypeOf<{ query: string; page: number; limit: number; results: string[] } | undefined>();
    // @ts-expect-error: `query` is required
    await api.GET('/search', { params: { query: { page: 2 } } });
  });

  it('POST /users: a body, so 400 | 413 | 415 | 422; the answer carries the stored user', async () => {
    const { data, error } = await api.POST('/users', { body: { name: 'Ada', email: 'ada@example.com', age: 36 } });
    expectTypeOf<NonNullable<typeof error>['status']>().toEqualTypeOf<400 | 413 | 415 | 422>();
    if (error?.status === 422) expectTypeOf(error.errors[0]!.path).toEqualTypeOf<(string | number)[]>();
    expectTypeOf(data?.id).toEqualTypeOf<number | undefined>();
    expectTypeOf(data?.role).toEqualTypeOf<'admin' | 'user' | 'guest' | undefined>();
    // @ts-expect-error: `age` is required
    await api.POST('/users', { body: { name: 'Ada', email: 'ada@example.com' } });
  });

  it('GET /hello/{name}: errors 404 | 422, a Greeting', async () => {
    const { data, error } = await api.GET('/hello/{name}', { params: { path: { name: 'Ada' } } });
    expectTypeOf<NonNullable<typeof error>['status']>().toEqualTypeOf<404 | 422>();
    expectTypeOf(data).toEqualTypeOf<{ message: string } | undefined>();
  });
});
