import { describe, expectTypeOf, it } from 'vitest';
import type { InferInput, PathParamNames } from '../src/index.js';
import { body, cookie, header, query, z } from '../src/index.js';

describe('PathParamNames', () => {
  it('extracts the {names} of a route literal', () => {
    expectTypeOf<PathParamNames<'/users/{user_id}/posts/{post_id}'>>().toEqualTypeOf<'user_id' | 'post_id'>();
    expectTypeOf<PathParamNames<'/hello/{name}'>>().toEqualTypeOf<'name'>();
    expectTypeOf<PathParamNames<'/health'>>().toEqualTypeOf<never>();
    expectTypeOf<PathParamNames<string>>().toEqualTypeOf<never>();
  });
});

describe('InferInput', () => {
  it('types schema-less path params as strings and keeps optional params optional', () => {
    type Input = InferInput<'/hello/{name}', { greeting: z.ZodOptional<z.ZodString> }>;
    expectTypeOf<Input>().toEqualTypeOf<{ name: string; greeting?: string | undefined }>();
    expectTypeOf<Input['name']>().toEqualTypeOf<string>();
  });

  it('a z.int() path param is a number', () => {
    const params = { user_id: z.int() };
    type Input = InferInput<'/users/{user_id}', typeof params>;
    expectTypeOf<Input>().toEqualTypeOf<{ user_id: number }>();
  });

  it('unwraps explicit sources and uses zod output types', () => {
    const params = {
      x_request_id: header(z.string()),
      session: cookie(z.string().optional()),
      page: query(z.int().default(1)),
      payload: body(z.object({ a: z.number() })),
      tags: z.array(z.string()),
      doubled: z.int().transform((n) => String(n * 2)),
    };
    type Input = InferInput<'/items/{id}', typeof params>;
    expectTypeOf<Input>().toEqualTypeOf<{
      id: string;
      x_request_id: string;
      session?: string | undefined;
      page: number;
      payload: { a: number };
      tags: string[];
      doubled: string;
    }>();
  });

  it('a whole-body model param has the model type', () => {
    const User = z.object({ name: z.string(), age: z.int().optional() });
    type Input = InferInput<'/users', { user: typeof User }>;
    expectTypeOf<Input>().toEqualTypeOf<{ user: { name: string; age?: number | undefined } }>();
  });
});

describe('InferInput with other Standard Schemas', () => {
  it('valibot: output types, optional keys where the output admits undefined, wrappers unwrapped', async () => {
    const v = await import('valibot');
    const params = {
      id: v.pipe(v.number(), v.integer()),
      q: v.optional(v.string()),
      page: v.optional(v.number(), 1),
      token: header(v.string()),
      len: v.pipe(
        v.string(),
        v.transform((s) => s.length),
      ),
    };
    type Input = InferInput<'/items/{id}/{slug}', typeof params>;
    expectTypeOf<Input>().toEqualTypeOf<{ id: number; q?: string | undefined; page: number; token: string; len: number; slug: string }>();
  });

  it('arktype: output types, morphs included', async () => {
    const { type } = await import('arktype');
    const params = {
      n: type('number.integer'),
      user: body(type({ name: 'string', 'age?': 'number' })),
      csv: query(type('string').pipe((s) => s.split(','))),
    };
    type Input = InferInput<'/x', typeof params>;
    expectTypeOf<Input>().toEqualTypeOf<{ n: number; user: { name: string; age?: number }; csv: string[] }>();
  });
});
