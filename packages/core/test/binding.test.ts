/**
 * The binding rules of API.md, each case sent as real HTTP, through `inject` and through `fetch`.
 */
import { describe, expect, it } from 'vitest';
import { API, body, cookie, header, query, Router, z } from '../src/index.js';
import { type Case, PROBLEM_TYPE, runTable, serve, validationBody } from './helpers.js';

const NOT_A_NUMBER = 'Invalid input: expected number, received string';
const notAnInteger = (got: string) => `Expected an integer, got ${JSON.stringify(got)}`;
const notANumber = (got: string) => `Expected a number, got ${JSON.stringify(got)}`;

/** The seed's example model. */
const User = z.object({
  name: z.string().min(2).max(50),
  email: z.email(),
  age: z.int().min(18).max(120),
  role: z.enum(['admin', 'user', 'guest']).default('user'),
  tags: z.array(z.string()).default([]),
  address: z.object({ street: z.string(), city: z.string(), country: z.string(), postal_code: z.string() }).optional(),
});

const ADA = { name: 'Ada', email: 'ada@example.com', age: 36 };
const ADDRESS = { street: '1 Main St', city: 'London', country: 'UK', postal_code: 'N1' };

function build(): API {
  const app = new API({ logger: false });
  app.api({ route: '/items/{item_id}', params: { item_id: z.int() } }, ({ item_id }) => ({ item_id }));
  app.api({ route: '/numbers/{x}', params: { x: z.number() } }, ({ x }) => ({ x }));
  app.api({ route: '/hello/{name}' }, ({ name }) => ({ name, type: typeof name }));
  app.api({ route: '/flags', params: { on: z.boolean() } }, ({ on }) => ({ on }));
  app.api({ route: '/colors', params: { color: z.enum(['red', 'green']) } }, ({ color }) => ({ color }));
  app.api({ route: '/search', params: { q: z.string(), page: z.int().default(1), limit: z.int().optional() } }, (input) => ({
    ...input,
    hasLimit: 'limit' in input,
  }));
  app.api({ route: '/tags', params: { tag: z.array(z.string()) } }, ({ tag }) => ({ tag }));
  app.api({ route: '/ids', params: { id: z.array(z.int()).default([]) } }, ({ id }) => ({ id }));
  app.api(
    {
      route: '/filter',
      params: { filter: z.object({ min: z.int(), max: z.int().optional(), tag: z.array(z.string()).default([]) }) },
    },
    ({ filter }) => filter,
  );
  app.api({ route: '/sum', method: 'POST', params: { a: z.int(), b: z.int() } }, ({ a, b }) => ({ sum: a + b }));
  app.api({ route: '/users', method: 'POST', params: { user: User }, statusCode: 201 }, ({ user }) => user);
  app.api({ route: '/headers', params: { x_request_id: header(z.string()) } }, (input) => input);
  app.api({ route: '/limited', params: { x_limit: header(z.int().optional()) } }, (input) => input);
  app.api({ route: '/cookies', params: { session: cookie(z.string()), visits: cookie(z.int().optional()) } }, (input) => input);
  app.api({ route: '/pages/{book}', method: 'POST', params: { book: z.int(), page: query(z.int()), note: z.string() } }, (input) => input);
  app.api({ route: '/reasons', method: 'DELETE', params: { reason: body(z.string()) } }, (input) => input);
  return app;
}

const intPathErrors = (value: string): Case => ({
  name: `z.int() path parameter rejects ${JSON.stringify(value)}`,
  call: { path: `/items/${value}` },
  status: 422,
  json: validationBody([{ in: 'path', path: ['item_id'], message: notAnInteger(value), code: 'invalid_type' }]),
});

const cases: Case[] = [
  // rule 1: path parameters
  { name: 'int path parameter is converted', call: { path: '/items/42' }, status: 200, json: { item_id: 42 } },
  { name: 'negative int path parameter', call: { path: '/items/-7' }, status: 200, json: { item_id: -7 } },
  intPathErrors('12abc'),
  intPathErrors('1.5'),
  intPathErrors('+1'),
  intPathErrors('0x10'),
  intPathErrors('1e3'),
  { name: 'number path parameter -2.5', call: { path: '/numbers/-2.5' }, status: 200, json: { x: -2.5 } },
  { name: 'number path parameter .5', call: { path: '/numbers/.5' }, status: 200, json: { x: 0.5 } },
  { name: 'number path parameter 1e3', call: { path: '/numbers/1e3' }, status: 200, json: { x: 1000 } },
  ...['Infinity', '0x10', 'NaN', '1.2.3'].map(
    (bad): Case => ({
      name: `number path parameter rejects ${bad}`,
      call: { path: `/numbers/${bad}` },
      status: 422,
      json: validationBody([{ in: 'path', path: ['x'], message: notANumber(bad), code: 'invalid_type' }]),
    }),
  ),
  {
    name: 'a path parameter without a schema is a string',
    call: { path: '/hello/42' },
    status: 200,
    json: { name: '42', type: 'string' },
  },
  {
    name: 'percent-encoded path parameters are decoded',
    call: { path: '/hello/J%C3%BCrgen%20M%2FX' },
    status: 200,
    json: { name: 'Jürgen M/X', type: 'string' },
  },
  // rule 5: booleans and enums
  ...(
    [
      ['true', true],
      ['false', false],
      ['1', true],
      ['0', false],
    ] as const
  ).map(
    (entry): Case => ({ name: `boolean query ${entry[0]}`, call: { path: `/flags?on=${entry[0]}` }, status: 200, json: { on: entry[1] } }),
  ),
  ...['yes', 'TRUE', 'True', 'on', ''].map(
    (bad): Case => ({
      name: `boolean query rejects ${JSON.stringify(bad)}`,
      call: { path: `/flags?on=${bad}` },
      status: 422,
      json: validationBody([
        {
          in: 'query',
          path: ['on'],
          message: `Expected a boolean (true, false, 1 or 0), got ${JSON.stringify(bad)}`,
          code: 'invalid_type',
        },
      ]),
    }),
  ),
  { name: 'enum query by exact value', call: { path: '/colors?color=green' }, status: 200, json: { color: 'green' } },
  {
    name: 'enum query rejects other values (case-sensitive)',
    call: { path: '/colors?color=Green' },
    status: 422,
    json: validationBody([{ in: 'query', path: ['color'], message: 'Expected one of "red", "green", got "Green"', code: 'invalid_value' }]),
  },
  // rule 2: query parameters
  {
    name: 'optional and default query parameters',
    call: { path: '/search?q=fn' },
    status: 200,
    json: { q: 'fn', page: 1, hasLimit: false },
  },
  {
    name: 'all query parameters given',
    call: { path: '/search?q=fn&page=3&limit=10' },
    status: 200,
    json: { q: 'fn', page: 3, limit: 10, hasLimit: true },
  },
  {
    name: 'a scalar query parameter given twice takes the last value',
    call: { path: '/search?q=a&q=b&page=1&page=4' },
    status: 200,
    json: { q: 'b', page: 4, hasLimit: false },
  },
  {
    name: 'a required query parameter missing is 422',
    call: { path: '/search?page=2' },
    status: 422,
    json: validationBody([{ in: 'query', path: ['q'], message: 'Field required', code: 'missing' }]),
  },
  {
    name: 'a query int that is not an integer is 422, one issue per problem',
    call: { path: '/search?page=two&limit=1.5' },
    status: 422,
    json: validationBody([
      { in: 'query', path: ['q'], message: 'Field required', code: 'missing' },
      { in: 'query', path: ['page'], message: notAnInteger('two'), code: 'invalid_type' },
      { in: 'query', path: ['limit'], message: notAnInteger('1.5'), code: 'invalid_type' },
    ]),
  },
  {
    name: 'an empty string is not an int',
    call: { path: '/search?q=x&page=' },
    status: 422,
    json: validationBody([{ in: 'query', path: ['page'], message: notAnInteger(''), code: 'invalid_type' }]),
  },
  { name: 'z.array takes repeated keys', call: { path: '/tags?tag=a&tag=b&tag=a' }, status: 200, json: { tag: ['a', 'b', 'a'] } },
  { name: 'z.array with one key is a one-item array', call: { path: '/tags?tag=solo' }, status: 200, json: { tag: ['solo'] } },
  { name: 'z.array of ints converts each item', call: { path: '/ids?id=3&id=-1' }, status: 200, json: { id: [3, -1] } },
  { name: 'z.array with a default', call: { path: '/ids' }, status: 200, json: { id: [] } },
  {
    name: 'z.array of ints locates the bad item',
    call: { path: '/ids?id=1&id=x' },
    status: 422,
    json: validationBody([{ in: 'query', path: ['id', 1], message: notAnInteger('x'), code: 'invalid_type' }]),
  },
  // rule 4: a query model on GET
  {
    name: 'a query model on GET reads its fields from the query',
    call: { path: '/filter?min=1&tag=a&tag=b&other=x' },
    status: 200,
    json: { min: 1, tag: ['a', 'b'] },
  },
  {
    name: 'a query model reports field paths',
    call: { path: '/filter?max=x' },
    status: 422,
    json: validationBody([
      { in: 'query', path: ['min'], message: 'Field required', code: 'missing' },
      { in: 'query', path: ['max'], message: notAnInteger('x'), code: 'invalid_type' },
    ]),
  },
  // rule 3: POST fields by name
  { name: 'POST reads fields by name', call: { method: 'POST', path: '/sum', json: { a: 1, b: 2 } }, status: 200, json: { sum: 3 } },
  {
    name: 'JSON bodies are not coerced',
    call: { method: 'POST', path: '/sum', json: { a: '1', b: 2 } },
    status: 422,
    json: validationBody([{ in: 'body', path: ['a'], message: NOT_A_NUMBER, code: 'invalid_type' }]),
  },
  {
    name: 'a missing body field',
    call: { method: 'POST', path: '/sum', json: { a: 1 } },
    status: 422,
    json: validationBody([{ in: 'body', path: ['b'], message: 'Field required', code: 'missing' }]),
  },
  {
    name: 'a body that is not an object, for fields read by name',
    call: { method: 'POST', path: '/sum', json: [1, 2] },
    status: 422,
    json: validationBody([{ in: 'body', path: [], message: 'Invalid input: expected object, received array', code: 'invalid_type' }]),
  },
  {
    name: 'no body at all, for fields read by name',
    call: { method: 'POST', path: '/sum' },
    status: 422,
    json: validationBody([
      { in: 'body', path: ['a'], message: 'Field required', code: 'missing' },
      { in: 'body', path: ['b'], message: 'Field required', code: 'missing' },
    ]),
  },
  // rule 4: whole-body model (the seed's user)
  {
    name: 'whole-body model with defaults applied',
    call: { method: 'POST', path: '/users', json: ADA },
    status: 201,
    json: { ...ADA, role: 'user', tags: [] },
  },
  {
    name: 'whole-body model with every field',
    call: { method: 'POST', path: '/users', json: { ...ADA, role: 'admin', tags: ['x'], address: ADDRESS } },
    status: 201,
    json: { ...ADA, role: 'admin', tags: ['x'], address: ADDRESS },
  },
  {
    name: 'whole-body model drops unknown keys',
    call: { method: 'POST', path: '/users', json: { ...ADA, admin: true } },
    status: 201,
    json: { ...ADA, role: 'user', tags: [] },
  },
  {
    name: 'whole-body model: nested field path',
    call: { method: 'POST', path: '/users', json: { ...ADA, address: { ...ADDRESS, city: undefined } } },
    status: 422,
    json: validationBody([{ in: 'body', path: ['address', 'city'], message: 'Field required', code: 'missing' }]),
  },
  {
    name: 'whole-body model: age below 18',
    call: { method: 'POST', path: '/users', json: { ...ADA, age: 17 } },
    status: 422,
    json: validationBody([{ in: 'body', path: ['age'], message: 'Too small: expected number to be >=18', code: 'too_small' }]),
  },
  {
    name: 'whole-body model: age above 120',
    call: { method: 'POST', path: '/users', json: { ...ADA, age: 121 } },
    status: 422,
    json: validationBody([{ in: 'body', path: ['age'], message: 'Too big: expected number to be <=120', code: 'too_big' }]),
  },
  {
    name: 'whole-body model: "30" for an int is not coerced',
    call: { method: 'POST', path: '/users', json: { ...ADA, age: '30' } },
    status: 422,
    json: validationBody([{ in: 'body', path: ['age'], message: NOT_A_NUMBER, code: 'invalid_type' }]),
  },
  {
    name: 'whole-body model: several problems at once',
    call: { method: 'POST', path: '/users', json: { name: 'A', email: 'nope', age: 18, role: 'root' } },
    status: 422,
    json: validationBody([
      { in: 'body', path: ['name'], message: 'Too small: expected string to have >=2 characters', code: 'too_small' },
      { in: 'body', path: ['email'], message: 'Invalid email address', code: 'invalid_format' },
      { in: 'body', path: ['role'], message: 'Invalid option: expected one of "admin"|"user"|"guest"', code: 'invalid_value' },
    ]),
  },
  {
    name: 'whole-body model: a name of 51 characters',
    call: { method: 'POST', path: '/users', json: { ...ADA, name: 'x'.repeat(51) } },
    status: 422,
    json: validationBody([{ in: 'body', path: ['name'], message: 'Too big: expected string to have <=50 characters', code: 'too_big' }]),
  },
  // rule 6: explicit sources
  {
    name: 'header(): x_request_id reads X-Request-Id',
    call: { path: '/headers', headers: { 'X-Request-Id': 'abc-123' } },
    status: 200,
    json: { x_request_id: 'abc-123' },
  },
  {
    name: 'header(): a missing required header',
    call: { path: '/headers', headers: { 'X-Request': 'nope' } },
    status: 422,
    json: validationBody([{ in: 'header', path: ['x-request-id'], message: 'Field required', code: 'missing' }]),
  },
  { name: 'header(): converted strictly', call: { path: '/limited', headers: { 'x-limit': '25' } }, status: 200, json: { x_limit: 25 } },
  {
    name: 'header(): a bad int',
    call: { path: '/limited', headers: { 'X-LIMIT': '2.5' } },
    status: 422,
    json: validationBody([{ in: 'header', path: ['x-limit'], message: notAnInteger('2.5'), code: 'invalid_type' }]),
  },
  {
    name: 'cookie(): reads cookies by name',
    call: { path: '/cookies', headers: { cookie: 'session=s3cr3t; visits=4; other=1' } },
    status: 200,
    json: { session: 's3cr3t', visits: 4 },
  },
  {
    name: 'cookie(): a missing required cookie',
    call: { path: '/cookies', headers: { cookie: 'visits=x' } },
    status: 422,
    json: validationBody([
      { in: 'cookie', path: ['session'], message: 'Field required', code: 'missing' },
      { in: 'cookie', path: ['visits'], message: notAnInteger('x'), code: 'invalid_type' },
    ]),
  },
  {
    name: 'query() on POST, with a path parameter and a body field',
    call: { method: 'POST', path: '/pages/7?page=12', json: { note: 'hi' } },
    status: 200,
    json: { book: 7, page: 12, note: 'hi' },
  },
  {
    name: 'query() on POST: the query value is not read from the body',
    call: { method: 'POST', path: '/pages/7', json: { note: 'hi', page: 12 } },
    status: 422,
    json: validationBody([{ in: 'query', path: ['page'], message: 'Field required', code: 'missing' }]),
  },
  {
    name: 'body() on DELETE reads the JSON body',
    call: { method: 'DELETE', path: '/reasons', json: { reason: 'spam' } },
    status: 200,
    json: { reason: 'spam' },
  },
  {
    name: 'body() on DELETE: the field is not read from the query',
    call: { method: 'DELETE', path: '/reasons?reason=spam' },
    status: 422,
    json: validationBody([{ in: 'body', path: ['reason'], message: 'Field required', code: 'missing' }]),
  },
];

describe('binding rules', () => {
  const served = serve(build);
  runTable(served, cases);
});

describe('a custom validationError format', () => {
  const Custom = z.object({ message: z.string(), problems: z.array(z.string()), path: z.string() });
  const served = serve(() => {
    const app = new API({
      logger: false,
      validationError: {
        schema: Custom,
        format: (issues, request) => ({
          message: 'Invalid request',
          problems: issues.map((i) => `${i.in}:${i.path.join('.')}:${i.code}`),
          path: request.path,
        }),
      },
    });
    app.api({ route: '/items/{item_id}', params: { item_id: z.int() } }, ({ item_id }) => ({ item_id }));
    const router = new Router({ prefix: '/v1' });
    router.api({ route: '/users', method: 'POST', params: { user: User } }, ({ user }) => user);
    app.includeRouter(router);
    return app;
  });

  runTable(served, [
    {
      name: 'replaces the 422 body of an app endpoint',
      call: { path: '/items/x' },
      status: 422,
      json: { message: 'Invalid request', problems: ['path:item_id:invalid_type'], path: '/items/x' },
    },
    {
      name: 'replaces the 422 body of a router endpoint',
      call: { method: 'POST', path: '/v1/users', json: { ...ADA, address: { city: 'x' } } },
      status: 422,
      json: {
        message: 'Invalid request',
        problems: ['body:address.street:missing', 'body:address.country:missing', 'body:address.postal_code:missing'],
        path: '/v1/users',
      },
    },
    { name: 'leaves valid requests alone', call: { path: '/items/5' }, status: 200, json: { item_id: 5 } },
  ]);

  it('is the 422 schema documented in the OpenAPI document', () => {
    const doc = served.app.openapi() as {
      paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, { schema: { $ref: string } }> }> }>>;
      components: { schemas: Record<string, unknown> };
    };
    const ref = doc.paths['/items/{item_id}']!.get!.responses['422']!.content[PROBLEM_TYPE]!.schema.$ref;
    const name = ref.replace('#/components/schemas/', '');
    expect(doc.components.schemas[name]).toEqual({
      type: 'object',
      properties: {
        message: { type: 'string' },
        problems: { type: 'array', items: { type: 'string' } },
        path: { type: 'string' },
      },
      required: ['message', 'problems', 'path'],
    });
  });
});
