import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  body,
  compileBinder,
  compiledParser,
  cookie,
  describeParams,
  form,
  compileForm,
  header,
  isStandardSchema,
  query,
  type StandardSchemaV1,
  standardJsonSchema,
  validate,
  validateSync,
  z,
} from '../src/index.js';
import { issues, raw, value } from './helpers.js';

/** A Standard Schema with no JSON Schema of its own: accepts even numbers. */
const even: StandardSchemaV1<unknown, number> = {
  '~standard': {
    version: 1,
    vendor: 'handmade',
    validate: (input) =>
      typeof input === 'number' && input % 2 === 0 ? { value: input } : { issues: [{ message: 'Expected an even number' }] },
  },
};

describe('isStandardSchema', () => {
  it('recognises zod, valibot and arktype schemas (arktype types are functions), and nothing else', () => {
    expect(isStandardSchema(z.string())).toBe(true);
    expect(isStandardSchema(v.string())).toBe(true);
    expect(isStandardSchema(type('string'))).toBe(true);
    expect(isStandardSchema(even)).toBe(true);
    expect(isStandardSchema({})).toBe(false);
    expect(isStandardSchema(null)).toBe(false);
    expect(isStandardSchema(() => 1)).toBe(false);
  });
});

describe('validate / validateSync', () => {
  it('returns the parsed value, or issues with path, message and the library code', () => {
    expect(validateSync(v.pipe(v.string(), v.transform(Number)), '12')).toEqual({ ok: true, value: 12 });
    const failed = validateSync(v.object({ a: v.number() }), { a: 'x' });
    expect(failed).toMatchObject({ ok: false, issues: [{ path: ['a'], code: 'number', input: 'x' }] });
    const ark = validateSync(type({ a: 'number' }), { a: 'x' });
    expect(ark).toMatchObject({ ok: false, issues: [{ path: ['a'], code: 'domain', input: 'x' }] });
    expect(validateSync(even, 3)).toMatchObject({ ok: false, issues: [{ path: [], code: 'invalid', message: 'Expected an even number' }] });
  });

  it('validate resolves async schemas; validateSync refuses them', async () => {
    const slow = v.pipeAsync(
      v.string(),
      v.checkAsync(async (s) => s.length > 1, 'too short'),
    );
    expect(await validate(slow, 'ab')).toEqual({ ok: true, value: 'ab' });
    expect(await validate(slow, 'a')).toMatchObject({ ok: false, issues: [{ message: 'too short', code: 'check' }] });
    expect(() => validateSync(slow, 'ab')).toThrow(/asynchronously/);
  });
});

describe('JSON Schema of other libraries', () => {
  it('reads arktype from ~standard.jsonSchema and valibot through its converter, draft 2020-12 without $schema', () => {
    expect(standardJsonSchema(type({ id: 'number.integer', 'name?': 'string' }))).toEqual({
      type: 'object',
      properties: { id: { type: 'integer' }, name: { type: 'string' } },
      required: ['id'],
    });
    expect(standardJsonSchema(v.object({ id: v.pipe(v.number(), v.integer()), name: v.optional(v.string()) }))).toEqual({
      type: 'object',
      properties: { id: { type: 'integer' }, name: { type: 'string' } },
      required: ['id'],
    });
    expect(standardJsonSchema(even)).toBeUndefined();
  });
});

describe('binding with valibot', () => {
  it('converts path, query and header strings by the JSON Schema type, strictly', () => {
    const bind = compileBinder({
      method: 'GET',
      pathParams: ['id'],
      params: {
        id: v.pipe(v.number(), v.integer()),
        ratio: v.optional(v.number()),
        on: v.boolean(),
        tag: v.optional(v.array(v.pipe(v.number(), v.integer())), []),
        x_limit: header(v.pipe(v.number(), v.integer(), v.minValue(1))),
        session: cookie(v.optional(v.string())),
      },
    });
    expect(
      value(bind(raw({ path: { id: '42' }, query: 'ratio=.5&on=1&tag=1&tag=2', headers: { 'x-limit': '10' }, cookies: { session: 's' } }))),
    ).toEqual({ id: 42, ratio: 0.5, on: true, tag: [1, 2], x_limit: 10, session: 's' });
    expect(issues(bind(raw({ path: { id: '12abc' }, query: 'on=yes', headers: { 'x-limit': '0' } })))).toEqual([
      { in: 'path', path: ['id'], message: 'Expected an integer, got "12abc"', code: 'number' },
      { in: 'header', path: ['x-limit'], message: 'Invalid value: Expected >=1 but received 0', code: 'min_value' },
      { in: 'query', path: ['on'], message: 'Expected a boolean (true, false, 1 or 0), got "yes"', code: 'boolean' },
    ]);
  });

  it('reports a missing value as missing, "Field required", whatever the library says', () => {
    const bind = compileBinder({ method: 'GET', pathParams: [], params: { q: v.string() } });
    expect(issues(bind(raw()))).toEqual([{ in: 'query', path: ['q'], message: 'Field required', code: 'missing' }]);
  });

  it('a whole-body model: issues located inside the body, the parsed output bound', () => {
    const User = v.object({ name: v.pipe(v.string(), v.minLength(2)), age: v.pipe(v.number(), v.integer(), v.minValue(18)) });
    const bind = compileBinder({ method: 'POST', pathParams: [], params: { user: User } });
    expect(bind.usesBody).toBe(true);
    expect(value(bind(raw({ body: { name: 'Ada', age: 36, extra: 1 } })))).toEqual({ user: { name: 'Ada', age: 36 } });
    expect(issues(bind(raw({ body: { name: 'A', age: '36' } })))).toEqual([
      { in: 'body', path: ['name'], message: 'Invalid length: Expected >=2 but received 1', code: 'min_length' },
      { in: 'body', path: ['age'], message: 'Invalid type: Expected number but received "36"', code: 'number' },
    ]);
    expect(issues(bind(raw({ body: { name: 'Ada' } })))).toEqual([
      { in: 'body', path: ['age'], message: 'Field required', code: 'missing' },
    ]);
  });

  it('body fields by name, beside zod ones, and a body that is not an object', () => {
    const bind = compileBinder({ method: 'POST', pathParams: [], params: { a: v.number(), b: z.string() } });
    expect(value(bind(raw({ body: { a: 1, b: 'x' } })))).toEqual({ a: 1, b: 'x' });
    expect(issues(bind(raw({ body: { a: '1', b: 2 } })))).toEqual([
      { in: 'body', path: ['a'], message: 'Invalid type: Expected number but received "1"', code: 'number' },
      { in: 'body', path: ['b'], message: 'Invalid input: expected string, received number', code: 'invalid_type' },
    ]);
    expect(issues(bind(raw({ body: [1] })))).toEqual([
      { in: 'body', path: [], message: 'Invalid input: expected object, received array', code: 'invalid_type' },
    ]);
  });

  it('a query model: its fields are query parameters, converted by their JSON types', () => {
    const Filter = v.object({ page: v.optional(v.pipe(v.number(), v.integer()), 1), q: v.optional(v.string()) });
    const bind = compileBinder({ method: 'GET', pathParams: [], params: { filter: Filter } });
    expect(value(bind(raw({ query: 'page=3&q=x' })))).toEqual({ filter: { page: 3, q: 'x' } });
    expect(value(bind(raw()))).toEqual({ filter: { page: 1 } });
    expect(issues(bind(raw({ query: 'page=x' })))).toEqual([
      { in: 'query', path: ['page'], message: 'Expected an integer, got "x"', code: 'number' },
    ]);
    const { params } = describeParams({ method: 'GET', pathParams: [], params: { filter: Filter } });
    expect(params.map((p) => [p.name, p.in, p.required])).toEqual([
      ['page', 'query', false],
      ['q', 'query', false],
    ]);
  });

  it('a strict query model answers an unknown key with its library code', () => {
    const bind = compileBinder({ method: 'GET', pathParams: [], params: { f: query(v.strictObject({ a: v.optional(v.string()) })) } });
    expect(value(bind(raw({ query: 'a=1' })))).toEqual({ f: { a: '1' } });
  });

  it('refuses an object schema as a path parameter', () => {
    expect(() => compileBinder({ method: 'GET', pathParams: ['id'], params: { id: v.object({}) } })).toThrow(
      /cannot be read from one path segment/,
    );
  });
});

describe('binding with arktype', () => {
  it('converts and validates every source, with arktype codes', () => {
    const bind = compileBinder({
      method: 'PUT',
      pathParams: ['id'],
      params: {
        id: type('number.integer'),
        verbose: query(type('boolean')),
        token: header(type('string')),
        item: body(type({ name: 'string', 'price?': 'number >= 0' })),
      },
    });
    expect(
      value(bind(raw({ path: { id: '7' }, query: 'verbose=false', headers: { token: 't' }, body: { item: { name: 'n', price: 2 } } }))),
    ).toEqual({
      id: 7,
      verbose: false,
      token: 't',
      item: { name: 'n', price: 2 },
    });
    expect(issues(bind(raw({ path: { id: '1.5' }, query: 'verbose=false', body: { item: { name: 'n', price: -1 } } })))).toEqual([
      { in: 'path', path: ['id'], message: 'Expected an integer, got "1.5"', code: 'domain' },
      { in: 'header', path: ['token'], message: 'Field required', code: 'missing' },
      { in: 'body', path: ['item', 'price'], message: 'price must be non-negative (was -1)', code: 'min' },
    ]);
  });

  it('a morph runs: the bound value is the output', () => {
    const bind = compileBinder({ method: 'GET', pathParams: [], params: { tags: type('string').pipe((s) => s.split(',')) } });
    expect(value(bind(raw({ query: 'tags=a,b' })))).toEqual({ tags: ['a', 'b'] });
  });
});

describe('a schema without a JSON Schema', () => {
  it('gets the raw string (no conversion) and its own issues', () => {
    const bind = compileBinder({ method: 'GET', pathParams: [], params: { n: even } });
    expect(issues(bind(raw({ query: 'n=4' })))).toEqual([
      { in: 'query', path: ['n'], message: 'Expected an even number', code: 'invalid' },
    ]);
    const inBody = compileBinder({ method: 'POST', pathParams: [], params: { n: body(even) } });
    expect(value(inBody(raw({ body: { n: 4 } })))).toEqual({ n: 4 });
  });
});

describe('forms', () => {
  it('form(valibot) reads its fields by their JSON types', () => {
    const plan = compileForm('POST', { login: form(v.object({ user: v.string(), remember: v.optional(v.boolean(), false) })) }, []);
    expect(plan?.mediaTypes).toEqual(['application/x-www-form-urlencoded', 'multipart/form-data']);
    const remember = plan?.fields.get('remember');
    expect(remember?.kind === 'text' && remember.convert('1')).toBe(true);
    const user = plan?.fields.get('user');
    expect(user?.kind === 'text' && user.convert('1')).toBe('1');
  });
});

describe('compiledParser of other libraries', () => {
  it('parses through ~standard.validate, issues with path and message', () => {
    const parser = compiledParser(v.object({ a: v.number() }));
    expect(parser.safeParse({ a: 1, b: 2 })).toEqual({ success: true, data: { a: 1 } });
    const failed = parser.safeParse({ a: 'x' });
    expect(failed.success).toBe(false);
    if (!failed.success) expect(failed.error.issues[0]).toMatchObject({ path: ['a'], code: 'number' });
  });
});
