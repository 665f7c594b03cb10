import { describe, expect, it, vi } from 'vitest';
import { body, compileBinder, cookie, header, query, z } from '../src/index.js';
import { issues, raw, value } from './helpers.js';

describe('routes without parameters', () => {
  it('binds to a fresh empty object and uses neither body nor cookies', () => {
    const bind = compileBinder({ method: 'GET', pathParams: [] });
    const a = value(bind(raw({ query: 'x=1' })));
    const b = value(bind(raw()));
    expect(a).toEqual({});
    expect(a).not.toBe(b);
    expect(bind.usesBody).toBe(false);
    expect(bind.usesCookies).toBe(false);
  });

  it('an empty params object is the same as none', () => {
    const bind = compileBinder({ method: 'POST', pathParams: [], params: {} });
    expect(value(bind(raw({ body: { a: 1 } })))).toEqual({});
    expect(bind.usesBody).toBe(false);
  });
});

describe('rule 1: path parameters', () => {
  it('a path parameter without a schema is a plain string', () => {
    const bind = compileBinder({ method: 'GET', pathParams: ['name'] });
    expect(value(bind(raw({ path: { name: 'ada lovelace' } })))).toEqual({ name: 'ada lovelace' });
  });

  it('schema-less path params combine with declared params', () => {
    const bind = compileBinder({ method: 'GET', pathParams: ['name'], params: { greeting: z.string().optional() } });
    expect(value(bind(raw({ path: { name: 'x' }, query: 'greeting=hi' })))).toEqual({ name: 'x', greeting: 'hi' });
    expect(value(bind(raw({ path: { name: 'x' } })))).toEqual({ name: 'x' });
  });

  it('converts an int path parameter', () => {
    const bind = compileBinder({ method: 'GET', pathParams: ['user_id'], params: { user_id: z.int() } });
    expect(value(bind(raw({ path: { user_id: '42' } })))).toEqual({ user_id: 42 });
    expect(value(bind(raw({ path: { user_id: '-7' } })))).toEqual({ user_id: -7 });
    expect(value(bind(raw({ path: { user_id: '007' } })))).toEqual({ user_id: 7 });
    expect(value(bind(raw({ path: { user_id: '9007199254740991' } })))).toEqual({ user_id: Number.MAX_SAFE_INTEGER });
    expect(value(bind(raw({ path: { user_id: '-123456789012345' } })))).toEqual({ user_id: -123456789012345 });
  });

  it('refuses integers past the safe range rather than rounding them', () => {
    const bind = compileBinder({ method: 'GET', pathParams: ['user_id'], params: { user_id: z.int() } });
    for (const big of ['9007199254740993', '12345678901234567890', '-9007199254740993']) {
      expect(issues(bind(raw({ path: { user_id: big } })))).toMatchObject([{ in: 'path', path: ['user_id'] }]);
    }
  });

  it.each(['12abc', '1.5', '+1', '0x10', '', ' 1', '1e3', 'abc', '-', '1-', '12345678901234x67'])(
    'rejects %j for an int path parameter',
    (bad) => {
      const bind = compileBinder({ method: 'GET', pathParams: ['user_id'], params: { user_id: z.int() } });
      const [issue, ...more] = issues(bind(raw({ path: { user_id: bad } })));
      expect(more).toEqual([]);
      expect(issue).toEqual({
        in: 'path',
        path: ['user_id'],
        code: 'invalid_type',
        message: `Expected an integer, got ${JSON.stringify(bad)}`,
      });
    },
  );

  it('treats z.number().int() like z.int()', () => {
    const bind = compileBinder({ method: 'GET', pathParams: ['id'], params: { id: z.number().int().positive() } });
    expect(value(bind(raw({ path: { id: '3' } })))).toEqual({ id: 3 });
    expect(issues(bind(raw({ path: { id: '1.5' } })))[0]).toMatchObject({ in: 'path', code: 'invalid_type' });
    expect(issues(bind(raw({ path: { id: '0' } })))[0]).toMatchObject({ in: 'path', path: ['id'], code: 'too_small' });
  });

  it('int32 and uint32 formats are integers too', () => {
    const bind = compileBinder({ method: 'GET', pathParams: ['a', 'b'], params: { a: z.int32(), b: z.uint32() } });
    expect(value(bind(raw({ path: { a: '-5', b: '5' } })))).toEqual({ a: -5, b: 5 });
    expect(issues(bind(raw({ path: { a: '2.0', b: '-1' } }))).map((i) => [i.path[0], i.code])).toEqual([
      ['a', 'invalid_type'],
      ['b', 'too_small'],
    ]);
  });

  it('an integer beyond the safe range is rejected by zod, not silently rounded', () => {
    const bind = compileBinder({ method: 'GET', pathParams: ['id'], params: { id: z.int() } });
    expect(issues(bind(raw({ path: { id: '99999999999999999999' } })))[0]).toMatchObject({ in: 'path', path: ['id'] });
  });

  it('checks declared after conversion run on the converted value', () => {
    const bind = compileBinder({ method: 'GET', pathParams: ['slug'], params: { slug: z.string().min(3) } });
    expect(issues(bind(raw({ path: { slug: 'ab' } })))).toEqual([
      { in: 'path', path: ['slug'], code: 'too_small', message: expect.any(String) },
    ]);
  });

  it('refuses an explicit source on a path parameter at compile time', () => {
    expect(() => compileBinder({ method: 'GET', pathParams: ['id'], params: { id: query(z.int()) } })).toThrow(/path parameter/);
  });
});

describe('rule 5: strict conversion of query strings', () => {
  const numBind = compileBinder({ method: 'GET', pathParams: [], params: { x: z.number() } });

  it.each([
    ['1', 1],
    ['-2.5', -2.5],
    ['.5', 0.5],
    ['1e3', 1000],
    ['2.5E-1', 0.25],
    ['0', 0],
  ])('number accepts %j', (input, expected) => {
    expect(value(numBind(raw({ query: `x=${encodeURIComponent(input)}` })))).toEqual({ x: expected });
  });

  it.each(['0x10', 'Infinity', '-Infinity', 'NaN', '', 'abc', '1.2.3', '+1', '1e400', ' 1'])('number rejects %j', (bad) => {
    expect(issues(numBind(raw({ query: `x=${encodeURIComponent(bad)}` })))).toEqual([
      { in: 'query', path: ['x'], code: 'invalid_type', message: `Expected a number, got ${JSON.stringify(bad)}` },
    ]);
  });

  const boolBind = compileBinder({ method: 'GET', pathParams: [], params: { flag: z.boolean() } });
  it.each([
    ['true', true],
    ['false', false],
    ['1', true],
    ['0', false],
  ])('boolean accepts %j', (input, expected) => {
    expect(value(boolBind(raw({ query: `flag=${input}` })))).toEqual({ flag: expected });
  });

  it.each(['TRUE', 'yes', 'on', '', '2', 'False'])('boolean rejects %j', (bad) => {
    expect(issues(boolBind(raw({ query: `flag=${bad}` })))).toEqual([
      {
        in: 'query',
        path: ['flag'],
        code: 'invalid_type',
        message: `Expected a boolean (true, false, 1 or 0), got ${JSON.stringify(bad)}`,
      },
    ]);
  });

  it('string enums match by exact value', () => {
    const bind = compileBinder({ method: 'GET', pathParams: [], params: { sort: z.enum(['asc', 'desc']) } });
    expect(value(bind(raw({ query: 'sort=desc' })))).toEqual({ sort: 'desc' });
    expect(issues(bind(raw({ query: 'sort=DESC' })))).toEqual([
      { in: 'query', path: ['sort'], code: 'invalid_value', message: expect.stringContaining('"asc"') },
    ]);
  });

  it('numeric enums and literals are converted from their string form', () => {
    const bind = compileBinder({
      method: 'GET',
      pathParams: [],
      params: { level: z.enum({ Low: 1, High: 2 }), v: z.literal([1, 2, 'latest']), on: z.literal(true).optional() },
    });
    expect(value(bind(raw({ query: 'level=2&v=1&on=true' })))).toEqual({ level: 2, v: 1, on: true });
    expect(value(bind(raw({ query: 'level=1&v=latest' })))).toEqual({ level: 1, v: 'latest' });
    const found = issues(bind(raw({ query: 'level=3&v=1.0' })));
    expect(found.map((i) => [i.in, i.path, i.code])).toEqual([
      ['query', ['level'], 'invalid_value'],
      ['query', ['v'], 'invalid_value'],
    ]);
  });

  it('strings stay as given', () => {
    const bind = compileBinder({ method: 'GET', pathParams: [], params: { q: z.string() } });
    expect(value(bind(raw({ query: 'q=%20007%20' })))).toEqual({ q: ' 007 ' });
    expect(value(bind(raw({ query: 'q=' })))).toEqual({ q: '' });
  });

  it('looks through nullable, catch, pipe and transform', () => {
    const bind = compileBinder({
      method: 'GET',
      pathParams: [],
      params: {
        a: z.int().nullable(),
        b: z.int().catch(-1),
        c: z.int().transform((n) => n * 2),
        d: z.number().pipe(z.number().max(10)).optional(),
      },
    });
    expect(value(bind(raw({ query: 'a=1&b=x&c=4&d=2.5' })))).toEqual({ a: 1, b: -1, c: 8, d: 2.5 });
    expect(issues(bind(raw({ query: 'a=1&b=1&c=4&d=11' })))).toEqual([
      { in: 'query', path: ['d'], code: 'too_big', message: expect.any(String) },
    ]);
  });

  it('unions try each member strictly, in order', () => {
    const bind = compileBinder({ method: 'GET', pathParams: [], params: { limit: z.union([z.int(), z.literal('all')]) } });
    expect(value(bind(raw({ query: 'limit=10' })))).toEqual({ limit: 10 });
    expect(value(bind(raw({ query: 'limit=all' })))).toEqual({ limit: 'all' });
    expect(issues(bind(raw({ query: 'limit=1.5' })))[0]).toMatchObject({ in: 'query', path: ['limit'], code: 'invalid_union' });
  });

  it('bigint and date targets', () => {
    const bind = compileBinder({ method: 'GET', pathParams: [], params: { big: z.bigint(), since: z.date() } });
    expect(value(bind(raw({ query: 'big=12345678901234567890&since=2024-01-02' })))).toEqual({
      big: 12345678901234567890n,
      since: new Date('2024-01-02'),
    });
    expect(issues(bind(raw({ query: 'big=1.5&since=yesterday' }))).map((i) => i.path[0])).toEqual(['big', 'since']);
  });
});

describe('rule 2: query parameters on GET/HEAD/DELETE/OPTIONS', () => {
  it.each(['GET', 'HEAD', 'DELETE', 'OPTIONS', 'get'])('%s reads non-path params from the query', (method) => {
    const bind = compileBinder({ method, pathParams: [], params: { page: z.int() } });
    expect(value(bind(raw({ query: 'page=2', body: { page: 3 } })))).toEqual({ page: 2 });
    expect(bind.usesBody).toBe(false);
  });

  it('a param is required unless optional or defaulted', () => {
    const bind = compileBinder({
      method: 'GET',
      pathParams: [],
      params: { page: z.int(), size: z.int().default(20), q: z.string().optional() },
    });
    expect(value(bind(raw({ query: 'page=1' })))).toEqual({ page: 1, size: 20 });
    expect(value(bind(raw({ query: 'page=1&size=5&q=x' })))).toEqual({ page: 1, size: 5, q: 'x' });
    expect(issues(bind(raw({ query: 'size=5' })))).toEqual([{ in: 'query', path: ['page'], code: 'missing', message: 'Field required' }]);
  });

  it('an invalid value for a defaulted param is still an error', () => {
    const bind = compileBinder({ method: 'GET', pathParams: [], params: { size: z.int().default(20) } });
    expect(issues(bind(raw({ query: 'size=big' })))[0]).toMatchObject({ in: 'query', path: ['size'], code: 'invalid_type' });
  });

  it('arrays take repeated keys, each element converted', () => {
    const bind = compileBinder({
      method: 'GET',
      pathParams: [],
      params: { tag: z.array(z.string()), id: z.array(z.int()).optional() },
    });
    expect(value(bind(raw({ query: 'tag=a&tag=b&id=1&id=2&id=3' })))).toEqual({ tag: ['a', 'b'], id: [1, 2, 3] });
    expect(value(bind(raw({ query: 'tag=only' })))).toEqual({ tag: ['only'] });
    expect(issues(bind(raw({ query: 'tag=a&id=1&id=x' })))).toEqual([
      { in: 'query', path: ['id', 1], code: 'invalid_type', message: 'Expected an integer, got "x"' },
    ]);
    expect(issues(bind(raw({ query: '' })))[0]).toMatchObject({ in: 'query', path: ['tag'], code: 'missing' });
  });

  it('array constraints apply to the collected values', () => {
    const bind = compileBinder({ method: 'GET', pathParams: [], params: { tag: z.array(z.string()).max(2).default([]) } });
    expect(value(bind(raw()))).toEqual({ tag: [] });
    expect(issues(bind(raw({ query: 'tag=a&tag=b&tag=c' })))[0]).toMatchObject({ path: ['tag'], code: 'too_big' });
  });

  it('a scalar given twice takes the last value', () => {
    const bind = compileBinder({ method: 'GET', pathParams: [], params: { page: z.int(), q: z.string() } });
    expect(value(bind(raw({ query: 'page=1&q=first&page=5&q=last' })))).toEqual({ page: 5, q: 'last' });
    // only the last one counts, even when an earlier one would not convert
    expect(value(bind(raw({ query: 'page=x&page=2&q=a' })))).toEqual({ page: 2, q: 'a' });
    expect(issues(bind(raw({ query: 'page=2&page=x&q=a' })))[0]).toMatchObject({ path: ['page'], code: 'invalid_type' });
  });

  it('ignores unknown query keys', () => {
    const bind = compileBinder({ method: 'GET', pathParams: [], params: { page: z.int() } });
    expect(value(bind(raw({ query: 'page=1&utm_source=x&debug=1' })))).toEqual({ page: 1 });
  });

  it('reports every failing param at once', () => {
    const bind = compileBinder({ method: 'GET', pathParams: ['id'], params: { id: z.int(), page: z.int(), on: z.boolean() } });
    expect(issues(bind(raw({ path: { id: 'x' }, query: 'page=y&on=maybe' }))).map((i) => [i.in, i.path])).toEqual([
      ['path', ['id']],
      ['query', ['page']],
      ['query', ['on']],
    ]);
  });
});

describe('rule 4 on GET: query models', () => {
  const Filters = z.object({
    page: z.int().min(1).default(1),
    q: z.string().optional(),
    tag: z.array(z.string()).optional(),
    active: z.boolean().optional(),
  });

  it('expands the model fields into query params, converted strictly', () => {
    const bind = compileBinder({ method: 'GET', pathParams: [], params: { filters: Filters } });
    expect(value(bind(raw({ query: 'page=3&q=x&tag=a&tag=b&active=0&other=1' })))).toEqual({
      filters: { page: 3, q: 'x', tag: ['a', 'b'], active: false },
    });
    expect(value(bind(raw()))).toEqual({ filters: { page: 1 } });
  });

  it('reports field issues at the field path, without the model name', () => {
    const bind = compileBinder({ method: 'GET', pathParams: [], params: { filters: Filters } });
    expect(issues(bind(raw({ query: 'page=0&active=yes' })))).toEqual([
      { in: 'query', path: ['page'], code: 'too_small', message: expect.any(String) },
      { in: 'query', path: ['active'], code: 'invalid_type', message: 'Expected a boolean (true, false, 1 or 0), got "yes"' },
    ]);
  });

  it('required model fields are required query params', () => {
    const bind = compileBinder({
      method: 'DELETE',
      pathParams: ['id'],
      params: { id: z.int(), opts: z.object({ reason: z.string(), force: z.boolean() }) },
    });
    expect(value(bind(raw({ path: { id: '1' }, query: 'reason=spam&force=true' })))).toEqual({
      id: 1,
      opts: { reason: 'spam', force: true },
    });
    expect(issues(bind(raw({ path: { id: '1' }, query: 'force=1' })))).toEqual([
      { in: 'query', path: ['reason'], code: 'missing', message: 'Field required' },
    ]);
  });

  it('an optional model absent from the query is undefined, a defaulted one takes its default', () => {
    const opt = compileBinder({ method: 'GET', pathParams: [], params: { f: z.object({ a: z.int() }).optional() } });
    expect(value(opt(raw()))).toEqual({});
    expect(issues(opt(raw({ query: 'a=x' })))[0]).toMatchObject({ in: 'query', path: ['a'] });
    const def = compileBinder({ method: 'GET', pathParams: [], params: { f: z.object({ a: z.int() }).default({ a: 9 }) } });
    expect(value(def(raw()))).toEqual({ f: { a: 9 } });
    expect(value(def(raw({ query: 'a=4' })))).toEqual({ f: { a: 4 } });
  });
});

describe('rule 3: body fields by name on POST/PUT/PATCH', () => {
  it.each(['POST', 'PUT', 'PATCH', 'post'])('%s reads non-path params from the JSON body by name', (method) => {
    const bind = compileBinder({ method, pathParams: ['id'], params: { id: z.int(), a: z.int(), b: z.string() } });
    expect(bind.usesBody).toBe(true);
    expect(value(bind(raw({ path: { id: '1' }, query: 'a=5', body: { a: 2, b: 'x', extra: true } })))).toEqual({
      id: 1,
      a: 2,
      b: 'x',
    });
  });

  it('does not coerce JSON values', () => {
    const bind = compileBinder({ method: 'POST', pathParams: [], params: { age: z.int().min(18), name: z.string() } });
    expect(issues(bind(raw({ body: { age: '30', name: 5 } })))).toEqual([
      { in: 'body', path: ['age'], code: 'invalid_type', message: 'Invalid input: expected number, received string' },
      { in: 'body', path: ['name'], code: 'invalid_type', message: 'Invalid input: expected string, received number' },
    ]);
    expect(issues(bind(raw({ body: { age: 12, name: 'x' } })))).toEqual([
      { in: 'body', path: ['age'], code: 'too_small', message: 'Too small: expected number to be >=18' },
    ]);
  });

  it('nested issues keep their path under the field name', () => {
    const bind = compileBinder({
      method: 'POST',
      pathParams: [],
      params: { a: z.int(), address: z.object({ city: z.string() }) },
    });
    expect(issues(bind(raw({ body: { a: 1, address: { city: 3 } } })))).toEqual([
      { in: 'body', path: ['address', 'city'], code: 'invalid_type', message: expect.any(String) },
    ]);
  });

  it('a missing body behaves like {}: required fields are reported, optional ones are fine', () => {
    const bind = compileBinder({ method: 'POST', pathParams: [], params: { a: z.int(), b: z.string().optional() } });
    expect(issues(bind(raw()))).toEqual([{ in: 'body', path: ['a'], code: 'missing', message: 'Field required' }]);
    const opt = compileBinder({ method: 'POST', pathParams: [], params: { b: z.string().optional(), c: z.int().default(1) } });
    expect(value(opt(raw()))).toEqual({ c: 1 });
  });

  it.each([
    [[1, 2], 'array'],
    ['text', 'string'],
    [null, 'null'],
    [42, 'number'],
    [true, 'boolean'],
  ])('a non-object body %j is one issue at the body root', (bad, kind) => {
    const bind = compileBinder({ method: 'POST', pathParams: [], params: { a: z.int(), b: z.int() } });
    expect(issues(bind(raw({ body: bad })))).toEqual([
      { in: 'body', path: [], code: 'invalid_type', message: `Invalid input: expected object, received ${kind}` },
    ]);
  });

  it('a non-object body still reports the other parts', () => {
    const bind = compileBinder({ method: 'PUT', pathParams: ['id'], params: { id: z.int(), a: z.int() } });
    expect(issues(bind(raw({ path: { id: 'x' }, body: [] }))).map((i) => [i.in, i.path])).toEqual([
      ['body', []],
      ['path', ['id']],
    ]);
    expect(issues(bind(raw({ path: { id: '1' }, body: [] })))).toHaveLength(1);
  });

  it('does not read inherited properties of the body', () => {
    const bind = compileBinder({ method: 'POST', pathParams: [], params: { toString: z.string().optional() } });
    expect(value(bind(raw({ body: {} })))).toEqual({});
    expect(value(bind(raw({ body: { toString: 'x' } })))).toEqual({ toString: 'x' });
    const q = compileBinder({ method: 'GET', pathParams: [], params: { f: z.object({ constructor: z.string().optional() }) } });
    expect(value(q(raw()))).toEqual({ f: {} });
  });
});

describe('rule 4: a single object param takes the whole body', () => {
  const User = z.object({ name: z.string(), age: z.int().min(18), address: z.object({ city: z.string() }) });

  it('validates the whole body against the model and strips unknown keys', () => {
    const bind = compileBinder({ method: 'POST', pathParams: [], params: { user: User } });
    expect(bind.usesBody).toBe(true);
    expect(value(bind(raw({ body: { name: 'a', age: 20, address: { city: 'c', zip: '1' }, admin: true } })))).toEqual({
      user: { name: 'a', age: 20, address: { city: 'c' } },
    });
  });

  it('issue paths are relative to the body (no model name)', () => {
    const bind = compileBinder({ method: 'POST', pathParams: [], params: { user: User } });
    expect(issues(bind(raw({ body: { name: 'a', age: 17, address: { city: 1 } } })))).toEqual([
      { in: 'body', path: ['age'], code: 'too_small', message: 'Too small: expected number to be >=18' },
      { in: 'body', path: ['address', 'city'], code: 'invalid_type', message: 'Invalid input: expected string, received number' },
    ]);
  });

  it('a missing or non-object body is an issue at the body root', () => {
    const bind = compileBinder({ method: 'PATCH', pathParams: [], params: { user: User } });
    expect(issues(bind(raw()))).toEqual([{ in: 'body', path: [], code: 'missing', message: 'Field required' }]);
    expect(issues(bind(raw({ body: [1] })))).toEqual([
      { in: 'body', path: [], code: 'invalid_type', message: 'Invalid input: expected object, received array' },
    ]);
  });

  it('path params do not count as the other param; wrapped models still count as models', () => {
    const bind = compileBinder({ method: 'PUT', pathParams: ['id'], params: { id: z.int(), user: User.optional() } });
    expect(value(bind(raw({ path: { id: '1' }, body: { name: 'a', age: 30, address: { city: 'c' } } })))).toEqual({
      id: 1,
      user: { name: 'a', age: 30, address: { city: 'c' } },
    });
    expect(value(bind(raw({ path: { id: '1' } })))).toEqual({ id: 1 });
  });

  it('header/cookie/query params do not prevent the whole-body binding', () => {
    const bind = compileBinder({
      method: 'POST',
      pathParams: [],
      params: { user: User, x_request_id: header(z.string()), dry: query(z.boolean().default(false)) },
    });
    expect(
      value(bind(raw({ headers: { 'X-Request-Id': 'r1' }, query: 'dry=1', body: { name: 'a', age: 20, address: { city: 'c' } } }))),
    ).toEqual({ user: { name: 'a', age: 20, address: { city: 'c' } }, x_request_id: 'r1', dry: true });
  });

  it('with two body params, an object param is a field by name', () => {
    const bind = compileBinder({ method: 'POST', pathParams: [], params: { user: User, note: z.string() } });
    expect(value(bind(raw({ body: { user: { name: 'a', age: 20, address: { city: 'c' } }, note: 'n' } })))).toEqual({
      user: { name: 'a', age: 20, address: { city: 'c' } },
      note: 'n',
    });
    expect(issues(bind(raw({ body: { user: { name: 'a', age: 2, address: { city: 'c' } }, note: 'n' } })))[0]).toMatchObject({
      in: 'body',
      path: ['user', 'age'],
    });
  });

  it('an explicit body() param alongside a model makes both fields by name', () => {
    const bind = compileBinder({ method: 'POST', pathParams: [], params: { user: User, note: body(z.string()) } });
    expect(issues(bind(raw({ body: { note: 'n' } })))[0]).toMatchObject({ in: 'body', path: ['user'], code: 'missing' });
  });

  it('a non-object single param is still read by name', () => {
    const bind = compileBinder({ method: 'POST', pathParams: [], params: { tags: z.array(z.string()) } });
    expect(value(bind(raw({ body: { tags: ['a'] } })))).toEqual({ tags: ['a'] });
  });
});

describe('rule 6: explicit sources', () => {
  it('header() reads the hyphenated name, case-insensitively, and converts strictly', () => {
    const bind = compileBinder({
      method: 'GET',
      pathParams: [],
      params: { x_request_id: header(z.string()), x_retry_count: header(z.int().default(0)) },
    });
    expect(value(bind(raw({ headers: { 'X-Request-Id': 'abc', 'x-retry-count': '3' } })))).toEqual({
      x_request_id: 'abc',
      x_retry_count: 3,
    });
    expect(value(bind(raw({ headers: { 'x-request-id': 'abc' } })))).toEqual({ x_request_id: 'abc', x_retry_count: 0 });
    expect(issues(bind(raw({ headers: { 'x-retry-count': '1.5' } })))).toEqual([
      { in: 'header', path: ['x-request-id'], code: 'missing', message: 'Field required' },
      { in: 'header', path: ['x-retry-count'], code: 'invalid_type', message: 'Expected an integer, got "1.5"' },
    ]);
  });

  it('header() with an array schema splits comma-joined values', () => {
    const bind = compileBinder({ method: 'GET', pathParams: [], params: { x_ids: header(z.array(z.int()).optional()) } });
    expect(value(bind(raw({ headers: { 'x-ids': '1, 2,3' } })))).toEqual({ x_ids: [1, 2, 3] });
    expect(value(bind(raw()))).toEqual({});
    expect(issues(bind(raw({ headers: { 'x-ids': '1,b' } })))[0]).toMatchObject({ in: 'header', path: ['x-ids', 1] });
  });

  it('cookie() reads by name and calls cookies() only when a cookie param exists', () => {
    const bind = compileBinder({ method: 'GET', pathParams: [], params: { session: cookie(z.string()), n: cookie(z.int().optional()) } });
    expect(bind.usesCookies).toBe(true);
    const input = raw({ cookies: { session: 's1', n: '4' } });
    expect(value(bind(input))).toEqual({ session: 's1', n: 4 });
    expect(input.cookieCalls).toBe(1);
    expect(issues(bind(raw({ cookies: { n: 'x' } })))).toEqual([
      { in: 'cookie', path: ['session'], code: 'missing', message: 'Field required' },
      { in: 'cookie', path: ['n'], code: 'invalid_type', message: 'Expected an integer, got "x"' },
    ]);

    const noCookies = compileBinder({ method: 'GET', pathParams: [], params: { q: z.string().optional() } });
    const other = raw({ cookies: { session: 's1' } });
    noCookies(other);
    expect(other.cookieCalls).toBe(0);
    expect(noCookies.usesCookies).toBe(false);
  });

  it('query() forces the query on POST', () => {
    const bind = compileBinder({ method: 'POST', pathParams: [], params: { page: query(z.int()), name: z.string() } });
    expect(value(bind(raw({ query: 'page=2', body: { name: 'n', page: 9 } })))).toEqual({ page: 2, name: 'n' });
    expect(issues(bind(raw({ query: 'page=2.5', body: { name: 'n' } })))).toEqual([
      { in: 'query', path: ['page'], code: 'invalid_type', message: expect.any(String) },
    ]);
  });

  it('query() with an object schema is a query model on POST too', () => {
    const bind = compileBinder({ method: 'POST', pathParams: [], params: { paging: query(z.object({ page: z.int() })), a: z.int() } });
    expect(value(bind(raw({ query: 'page=4', body: { a: 1 } })))).toEqual({ paging: { page: 4 }, a: 1 });
  });

  it('body() forces a body field by name on GET', () => {
    const bind = compileBinder({ method: 'GET', pathParams: [], params: { filter: body(z.object({ a: z.int() })), page: z.int() } });
    expect(bind.usesBody).toBe(true);
    expect(value(bind(raw({ query: 'page=1', body: { filter: { a: 1 } } })))).toEqual({ filter: { a: 1 }, page: 1 });
    expect(issues(bind(raw({ query: 'page=1', body: { filter: { a: '1' } } })))).toEqual([
      { in: 'body', path: ['filter', 'a'], code: 'invalid_type', message: expect.any(String) },
    ]);
  });

  it('a single body() model on POST is still read by name, not as the whole body', () => {
    const bind = compileBinder({ method: 'POST', pathParams: [], params: { item: body(z.object({ a: z.int() })) } });
    expect(value(bind(raw({ body: { item: { a: 1 } } })))).toEqual({ item: { a: 1 } });
    expect(issues(bind(raw({ body: { a: 1 } })))[0]).toMatchObject({ in: 'body', path: ['item'] });
  });

  it('rejects params that are neither schemas nor wrappers', () => {
    expect(() => compileBinder({ method: 'GET', pathParams: [], params: { a: 'x' as never } })).toThrow(TypeError);
  });
});

describe('the binder', () => {
  it('returns a new value object each call', () => {
    const bind = compileBinder({ method: 'GET', pathParams: ['id'] });
    const a = value(bind(raw({ path: { id: '1' } })));
    a.id = 'changed';
    expect(value(bind(raw({ path: { id: '1' } })))).toEqual({ id: '1' });
  });

  it('usesBody is false for routes without body params, true otherwise', () => {
    expect(compileBinder({ method: 'POST', pathParams: ['id'] }).usesBody).toBe(false);
    expect(compileBinder({ method: 'POST', pathParams: [], params: { q: query(z.string()) } }).usesBody).toBe(false);
    expect(compileBinder({ method: 'POST', pathParams: [], params: { a: z.string() } }).usesBody).toBe(true);
  });
});

describe('the input a route reads, with or without generated code', () => {
  const params = { id: z.int(), page: z.int().default(1), note: z.string().optional() };
  const inputs = [
    raw({ path: { id: '4' }, query: 'page=2&note=n' }),
    raw({ path: { id: '4' } }),
    raw({ path: { id: 'x' }, query: 'page=y' }),
  ];

  it('binds the same parameters, absent ones left out, when zod is asked to generate no code', () => {
    const generated = compileBinder({ method: 'GET', pathParams: ['id'], params });
    const expected = inputs.map((input) => generated(input));
    expect(expected[0]).toEqual({ ok: true, value: { id: 4, page: 2, note: 'n' } });
    expect(Object.keys(value(expected[1]!))).toEqual(['id', 'page']);
    z.config({ jitless: true });
    const generate = vi.spyOn(globalThis, 'Function');
    try {
      const loop = compileBinder({ method: 'GET', pathParams: ['id'], params });
      expect(inputs.map((input) => loop(input))).toEqual(expected);
      expect(Object.keys(value(loop(inputs[1]!)))).toEqual(['id', 'page']);
      expect(generate).not.toHaveBeenCalled();
    } finally {
      generate.mockRestore();
      z.config({ jitless: false });
    }
  });

  it('reads a parameter named like an inherited member into an object without a prototype', () => {
    const bind = compileBinder({ method: 'GET', pathParams: [], params: { constructor: z.string().optional(), n: z.int() } });
    expect(value(bind(raw({ query: 'constructor=c&n=1' })))).toEqual({ constructor: 'c', n: 1 });
    expect(value(bind(raw({ query: 'n=1' })))).toEqual({ n: 1 });
  });
});

describe('compiling a binder', () => {
  it('makes its schema and code on the first bind; what the route reads is known before', () => {
    const params = { id: z.int(), q: query(z.string().optional()), session: cookie(z.string()), user: z.object({ name: z.string() }) };
    const generate = vi.spyOn(globalThis, 'Function');
    try {
      const bind = compileBinder({ method: 'POST', pathParams: ['id'], params });
      expect(bind.usesBody).toBe(true);
      expect(bind.usesCookies).toBe(true);
      expect(generate).not.toHaveBeenCalled();
      const input = { path: { id: '7' }, query: 'q=x', cookies: { session: 's' }, body: { name: 'ada' } };
      expect(value(bind(raw(input)))).toEqual({ id: 7, q: 'x', session: 's', user: { name: 'ada' } });
      const made = generate.mock.calls.length;
      expect(made).toBeGreaterThan(0);
      expect(value(bind(raw({ ...input, path: { id: '8' } })))).toEqual({ id: 8, q: 'x', session: 's', user: { name: 'ada' } });
      expect(generate.mock.calls.length).toBe(made);
      expect(issues(bind(raw({ ...input, path: { id: 'x' } })))[0]).toMatchObject({ in: 'path', path: ['id'] });
    } finally {
      generate.mockRestore();
    }
  });

  it('a params object shared by routes is read for each route as its method and path say', () => {
    const params = { id: z.int(), note: z.string().optional() };
    const fromPath = compileBinder({ method: 'GET', pathParams: ['id'], params });
    const fromQuery = compileBinder({ method: 'GET', pathParams: [], params });
    const fromBody = compileBinder({ method: 'POST', pathParams: [], params });
    expect(value(fromPath(raw({ path: { id: '1' }, query: 'note=a' })))).toEqual({ id: 1, note: 'a' });
    expect(value(fromQuery(raw({ query: 'id=2&note=b' })))).toEqual({ id: 2, note: 'b' });
    expect(value(fromBody(raw({ body: { id: 3, note: 'c' } })))).toEqual({ id: 3, note: 'c' });
    expect([fromPath.usesBody, fromQuery.usesBody, fromBody.usesBody]).toEqual([false, false, true]);
    // The same route again, after the others: still read from the path.
    const again = compileBinder({ method: 'GET', pathParams: ['id'], params });
    expect(value(again(raw({ path: { id: '4' } })))).toEqual({ id: 4 });
  });

  it('a zod check is not taken for a schema', () => {
    expect(() => compileBinder({ method: 'GET', pathParams: [], params: { n: z.minLength(2) as never } })).toThrow(/must be a schema/);
  });
});
