import { describe, expectTypeOf, it } from 'vitest';
import { API, api, JSONResponse, Router, z } from '@fnapi/core';

const Item = z.object({ a: z.int() });

describe('a response model constrains what the handler returns', () => {
  it('refuses a body that does not fit the model', () => {
    const app = new API();
    // @ts-expect-error: `a` must be a number
    app.api({ route: '/x', response: Item }, () => ({ a: 'x' }));
    // @ts-expect-error: `a` is missing
    app.get('/y', { response: Item }, () => ({ b: 1 }));
    // @ts-expect-error: async handlers too
    app.post('/z', { response: Item }, async () => ({ a: true }));
    // @ts-expect-error: definitions made with api() too
    api({ route: '/d', response: Item })(() => ({ a: null }));
    const router = new Router();
    // @ts-expect-error: routers too
    router.put('/r', { response: Item }, () => 'text');
  });

  it("checks a tuple's body", () => {
    const app = new API();
    app.api({ route: '/ok', method: 'POST', response: Item }, () => [{ a: 1 }, 201] as const);
    app.api({ route: '/ok2', method: 'POST', response: Item }, () => [{ a: 1 }, 201]);
    // @ts-expect-error: without `as const` as well
    app.api({ route: '/bad2', method: 'POST', response: Item }, () => [{ a: 'one' }, 201]);
    // @ts-expect-error: the tuple's body must fit the model
    app.api({ route: '/bad', method: 'POST', response: Item }, () => [{ a: 'one' }, 201] as const);
  });

  it('accepts what fits, extra keys (dropped at run time) and a Response', () => {
    const app = new API();
    app.api({ route: '/1', response: Item }, () => ({ a: 1 }));
    const row = { a: 1, password: 'dropped' };
    app.api({ route: '/1b', response: Item }, () => row);
    app.api({ route: '/1c', method: 'POST', response: Item }, () => [row, 201]);
    app.api({ route: '/2', response: Item }, async () => {
      const row = { a: 2, secret: 'dropped by the model' };
      return row;
    });
    app.api({ route: '/3', response: Item }, () => new JSONResponse({ anything: true }, { statusCode: 202 }));
    app.api({ route: '/4', response: Item }, () => new globalThis.Response('raw'));
    app.api({ route: '/5', response: z.array(Item) }, () => [{ a: 1 }, { a: 2 }]);
  });

  it('leaves handlers without a model free', () => {
    const app = new API();
    app.api({ route: '/free' }, () => ({ a: 'x' }));
    app.get('/free2', { statusCode: 201 }, () => 42);
    const definition = api({ route: '/free3' })(() => undefined);
    expectTypeOf(definition.options.route).toEqualTypeOf<'/free3'>();
  });

  it('types the declared responses option', () => {
    const app = new API();
    app.api(
      {
        route: '/users/{id}',
        responses: { 404: 'No such user', 409: { description: 'Name taken', schema: z.object({ name: z.string() }) } },
      },
      ({ id }) => ({ id }),
    );
    // Without a description the document gives the status's reason phrase.
    app.api({ route: '/undescribed', responses: { 200: { headers: { 'X-Echo': z.string() } }, 404: { schema: Item } } }, () => null);
    // @ts-expect-error: a description is a string
    app.api({ route: '/bad-declared', responses: { 404: { description: 404 } } }, () => null);
  });
});
