import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expectTypeOf, it } from 'vitest';
import { API, api, body, cookie, form, header, query, Router, type StandardSchemaV1, sseEvent, z } from '@fnapi/core';

describe('valibot inputs', () => {
  it('types every source from the schema output', () => {
    const app = new API();
    app.get(
      '/v/{id}',
      {
        params: {
          id: v.pipe(v.number(), v.integer()),
          verbose: v.optional(v.boolean(), false),
          note: v.optional(v.string()),
          x_token: header(v.string()),
          session: cookie(v.optional(v.string())),
          tags: query(v.array(v.string())),
          length: v.pipe(
            v.string(),
            v.transform((s) => s.length),
          ),
        },
      },
      (input) => {
        expectTypeOf(input).toEqualTypeOf<{
          id: number;
          verbose: boolean;
          note?: string | undefined;
          x_token: string;
          session?: string | undefined;
          tags: string[];
          length: number;
        }>();
        // @ts-expect-error: not a parameter of this endpoint
        input.other;
        return null;
      },
    );
  });

  it('a whole-body model and form()', () => {
    const app = new API();
    const User = v.object({ name: v.string(), age: v.optional(v.number()) });
    app.post('/users', { params: { user: User } }, ({ user }) => {
      expectTypeOf(user).toEqualTypeOf<{ name: string; age?: number | undefined }>();
      return user;
    });
    app.post('/login', { params: { login: form(v.object({ user: v.string() })), extra: body(v.number()) } }, ({ login, extra }) => {
      expectTypeOf(login).toEqualTypeOf<{ user: string }>();
      expectTypeOf(extra).toEqualTypeOf<number>();
      return {};
    });
  });
});

describe('arktype inputs', () => {
  it('types parameters from the type output, morphs included', () => {
    const app = new API();
    app.api(
      {
        route: '/a/{id}',
        method: 'PUT',
        params: {
          id: type('number.integer'),
          item: type({ name: 'string', 'price?': 'number' }),
          csv: query(type('string').pipe((s) => s.split(','))),
        },
      },
      ({ id, item, csv }) => {
        expectTypeOf(id).toEqualTypeOf<number>();
        expectTypeOf(item).toEqualTypeOf<{ name: string; price?: number }>();
        expectTypeOf(csv).toEqualTypeOf<string[]>();
        return null;
      },
    );
  });

  it('schemas of three libraries in one endpoint', () => {
    new Router().get('/mixed/{a}', { params: { a: z.int(), b: v.string(), c: type('boolean') } }, (input) => {
      expectTypeOf(input).toEqualTypeOf<{ a: number; b: string; c: boolean }>();
      return input;
    });
  });
});

describe('response models of other libraries', () => {
  const VItem = v.object({ a: v.pipe(v.number(), v.integer()) });
  const AItem = type({ a: 'number' });

  it('checks the returned value against the model input type', () => {
    const app = new API();
    app.get('/v1', { response: VItem }, () => ({ a: 1 }));
    app.get('/a1', { response: AItem }, async () => ({ a: 1 }));
    app.post('/t', { response: VItem }, () => [{ a: 1 }, 201]);
    // @ts-expect-error: `a` must be a number (valibot)
    app.get('/v2', { response: VItem }, () => ({ a: 'x' }));
    // @ts-expect-error: `a` is missing (arktype)
    app.get('/a2', { response: AItem }, () => ({ b: 1 }));
    // @ts-expect-error: definitions made with api() too
    api({ route: '/d', response: VItem })(() => ({ a: null }));
  });

  it('a transforming model is checked by what it parses', () => {
    const Stamp = v.pipe(
      v.string(),
      v.transform((s) => new Date(s)),
    );
    const app = new API();
    app.get('/stamp', { response: Stamp }, () => '2026-01-01');
    // @ts-expect-error: the model parses a string
    app.get('/stamp2', { response: Stamp }, () => new Date());
  });

  it('checks stream items and declared responses', () => {
    const app = new API();
    const Tick = v.object({ n: v.number() });
    app.get('/ticks', { events: Tick }, async function* () {
      yield { n: 1 };
      yield sseEvent({ data: { n: 2 } });
    });
    // @ts-expect-error: `n` must be a number
    app.get('/bad-lines', { lines: type({ n: 'number' }) }, async function* () {
      yield { n: 'one' };
    });
    app.get('/declared', { responses: { 409: { description: 'Taken', schema: AItem } } }, () => null);
  });

  it('takes any Standard Schema', () => {
    const even: StandardSchemaV1<number, number> = {
      '~standard': { version: 1, vendor: 'x', validate: (value) => ({ value: value as number }) },
    };
    new API().get('/even', { params: { n: even }, response: even }, ({ n }) => {
      expectTypeOf(n).toEqualTypeOf<number>();
      return n;
    });
    // @ts-expect-error: not a schema
    new API().get('/no', { params: { n: 42 } }, () => null);
  });
});
