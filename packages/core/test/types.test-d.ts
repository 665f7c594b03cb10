import { describe, expectTypeOf, it } from 'vitest';
import { API, api, header, type Middleware, Router, z, type Request } from '@fnapi/core';

describe('handler input types', () => {
  it('infers path parameters from the route literal and the rest from params', () => {
    const app = new API();
    app.api({ route: '/hello/{name}', params: { greeting: z.string().optional() } }, (input, request) => {
      expectTypeOf(input.name).toEqualTypeOf<string>();
      expectTypeOf(input.greeting).toEqualTypeOf<string | undefined>();
      expectTypeOf(request).toEqualTypeOf<Request>();
      // @ts-expect-error: not a parameter of this endpoint
      void input.other;
      return { ok: true };
    });
  });

  it('types path parameters declared in params by their schema', () => {
    const app = new API();
    app.get('/users/{user_id}/posts/{post_id}', { params: { user_id: z.int(), post_id: z.int() } }, ({ user_id, post_id }) => {
      expectTypeOf(user_id).toEqualTypeOf<number>();
      expectTypeOf(post_id).toEqualTypeOf<number>();
      return { user_id, post_id };
    });
  });

  it('types defaults as present, models as their output, explicit sources as their schema', () => {
    const User = z.object({ name: z.string(), role: z.enum(['admin', 'user']).default('user') });
    const router = new Router({ prefix: '/users' });
    router.post('/', { params: { user: User, x_request_id: header(z.string().optional()), page: z.int().default(1) } }, (input) => {
      expectTypeOf(input.user).toEqualTypeOf<{ name: string; role: 'admin' | 'user' }>();
      expectTypeOf(input.x_request_id).toEqualTypeOf<string | undefined>();
      expectTypeOf(input.page).toEqualTypeOf<number>();
      return input.user;
    });
  });

  it('types endpoint definitions made with api()', () => {
    const definition = api({ route: '/items/{item_id}', params: { q: z.array(z.string()) } })(({ item_id, q }) => {
      expectTypeOf(item_id).toEqualTypeOf<string>();
      expectTypeOf(q).toEqualTypeOf<string[]>();
      return { item_id, q };
    });
    new API().include(definition);
  });
});

describe('endpoint middleware option', () => {
  it('takes middleware objects and functions, read-only lists included', () => {
    const app = new API();
    const own: readonly Middleware[] = [(request, callNext) => callNext(request), { dispatch: (request, callNext) => callNext(request) }];
    app.get('/a', { middleware: own }, () => 1);
    app.api({ route: '/b', middleware: [async (request, callNext) => callNext(request)] }, () => 1);
    // @ts-expect-error: not a middleware
    app.get('/c', { middleware: [42] }, () => 1);
  });
});
