import { describe, expect, it } from 'vitest';
import { body, cookie, describeParams, header, query, z } from '../src/index.js';

const summary = (plan: Parameters<typeof describeParams>[0]) => {
  const { params, body } = describeParams(plan);
  return { params: params.map(({ schema: _schema, ...rest }) => rest), body: body.kind };
};

describe('describeParams', () => {
  it('describes path and query params of a GET route', () => {
    const page = z.int().default(1);
    const { params, body } = describeParams({
      method: 'GET',
      pathParams: ['user_id', 'slug'],
      params: { user_id: z.int(), page, q: z.string().optional(), tag: z.array(z.string()) },
    });
    expect(body).toEqual({ kind: 'none' });
    expect(params.map(({ schema: _s, ...rest }) => rest)).toEqual([
      { name: 'user_id', in: 'path', wireName: 'user_id', required: true },
      { name: 'slug', in: 'path', wireName: 'slug', required: true },
      { name: 'page', in: 'query', wireName: 'page', required: false },
      { name: 'q', in: 'query', wireName: 'q', required: false },
      { name: 'tag', in: 'query', wireName: 'tag', required: true },
    ]);
    expect(params[2].schema).toBe(page);
    // a path param without a schema is documented as a string
    expect((params[1].schema as z.ZodType).safeParse('x').success).toBe(true);
    expect((params[1].schema as z.ZodType).safeParse(1).success).toBe(false);
  });

  it('expands a query model into its fields', () => {
    expect(
      summary({
        method: 'GET',
        pathParams: [],
        params: { filters: z.object({ page: z.int(), q: z.string().optional() }) },
      }),
    ).toEqual({
      params: [
        { name: 'page', in: 'query', wireName: 'page', required: true },
        { name: 'q', in: 'query', wireName: 'q', required: false },
      ],
      body: 'none',
    });
    // every field of an optional model is optional on the wire
    expect(summary({ method: 'GET', pathParams: [], params: { f: z.object({ page: z.int() }).optional() } }).params[0].required).toBe(
      false,
    );
  });

  it('describes by-name body fields as one object schema', () => {
    const { params, body: b } = describeParams({
      method: 'POST',
      pathParams: ['id'],
      params: { id: z.int(), a: z.int(), b: z.string().optional() },
    });
    expect(params.map((p) => p.name)).toEqual(['id']);
    expect(b.kind).toBe('fields');
    if (b.kind !== 'fields') return;
    expect(Object.keys(b.schema.shape)).toEqual(['a', 'b']);
    expect(b.schema.safeParse({ a: 1 }).success).toBe(true);
    expect(b.schema.safeParse({ b: 'x' }).success).toBe(false);
  });

  it('describes a whole-body model', () => {
    const User = z.object({ name: z.string() });
    expect(describeParams({ method: 'PUT', pathParams: [], params: { user: User } }).body).toEqual({
      kind: 'whole',
      name: 'user',
      schema: User,
    });
  });

  it('describes explicit sources', () => {
    const { params, body: b } = describeParams({
      method: 'GET',
      pathParams: [],
      params: {
        x_request_id: header(z.string()),
        session: cookie(z.string().optional()),
        page: query(z.int()),
        payload: body(z.object({ a: z.int() })),
      },
    });
    expect(params.map(({ schema: _s, ...rest }) => rest)).toEqual([
      { name: 'x_request_id', in: 'header', wireName: 'x-request-id', required: true },
      { name: 'session', in: 'cookie', wireName: 'session', required: false },
      { name: 'page', in: 'query', wireName: 'page', required: true },
    ]);
    expect(b.kind).toBe('fields');
    if (b.kind === 'fields') expect(Object.keys(b.schema.shape)).toEqual(['payload']);
  });

  it('a POST with no params has no body', () => {
    expect(describeParams({ method: 'POST', pathParams: [] })).toEqual({ params: [], body: { kind: 'none' } });
  });
});
