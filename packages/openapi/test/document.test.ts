import { describe, expect, it } from 'vitest';
import { getRefId, zodToOpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { cookie, z } from '@fnapi/validation';
import { buildDocument, type OperationDescription } from '../src/index.js';
import { Address, User, apiKey, bearer, operations, http } from './fixtures.js';

type Json = Record<string, any>;

const doc = buildDocument({ title: 'Demo', version: '1.2.3', description: 'An example' }, operations, { http }) as Json;
const op = (path: string, method: string): Json => doc.paths[path][method];
const problem = (schema: string) => ({ 'application/problem+json': { schema: { $ref: `#/components/schemas/${schema}` } } });

describe('document shell', () => {
  it('is OpenAPI 3.1.0 with the given info', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toEqual({ title: 'Demo', version: '1.2.3', description: 'An example' });
  });

  it('omits info.description when not given and still has paths', () => {
    const empty = buildDocument({ title: 'Bare', version: '0.1.0' }, [], { http }) as Json;
    expect(empty.info).toEqual({ title: 'Bare', version: '0.1.0' });
    expect(empty.paths).toEqual({});
    expect(empty.webhooks).toBeUndefined();
  });

  it('lists the tags in order of first use', () => {
    expect(doc.tags).toEqual([{ name: 'users' }, { name: 'listing' }]);
  });

  it('has one operation per description, under the lower-case method', () => {
    expect(Object.keys(doc.paths)).toEqual(['/users/{user_id}', '/users', '/add', '/addresses', '/legacy/{name}', '/health']);
    expect(Object.keys(doc.paths['/users/{user_id}'])).toEqual(['get', 'put']);
    expect(Object.keys(doc.paths['/users'])).toEqual(['get', 'post']);
    const ids = Object.values(doc.paths).flatMap((item: any) => Object.values(item).map((o: any) => o.operationId));
    expect(ids).toEqual(operations.map((o) => o.operationId).sort((a, b) => ids.indexOf(a) - ids.indexOf(b)));
    expect(new Set(ids).size).toBe(operations.length);
  });
});

describe('operation metadata', () => {
  it('carries operationId, summary, description, tags', () => {
    const get = op('/users/{user_id}', 'get');
    expect(get.operationId).toBe('getUser');
    expect(get.summary).toBe('Get one user');
    expect(get.description).toBe('Looks a user up by id.');
    expect(get.tags).toEqual(['users']);
    expect(get.deprecated).toBeUndefined();
  });

  it('marks deprecated operations', () => {
    expect(op('/legacy/{name}', 'delete').deprecated).toBe(true);
  });

  it('leaves out what was not given', () => {
    const health = op('/health', 'get');
    expect(health).toEqual({
      operationId: 'health',
      responses: { '200': { description: 'OK', content: { 'application/json': { schema: {} } } } },
      // The app has security schemes: a public operation says so.
      security: [],
    });
  });
});

describe('parameters', () => {
  it('documents path, query, header and cookie parameters with schemas and required flags', () => {
    expect(op('/users/{user_id}', 'get').parameters).toEqual([
      { name: 'user_id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } },
      { name: 'verbose', in: 'query', required: false, schema: { type: 'boolean', default: false } },
      {
        name: 'fields',
        in: 'query',
        required: false,
        schema: { type: 'array', items: { type: 'string', enum: ['name', 'age', 'email'] } },
      },
      { name: 'x-request-id', in: 'header', required: true, schema: { type: 'string', format: 'uuid' } },
      { name: 'session', in: 'cookie', required: false, schema: { type: 'string' } },
    ]);
  });

  it('shows constraints, enums, defaults and arrays of query parameters', () => {
    expect(op('/users', 'get').parameters).toEqual([
      { name: 'page', in: 'query', required: false, schema: { type: 'integer', minimum: 1, default: 1 } },
      { name: 'size', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
      { name: 'order', in: 'query', required: true, schema: { type: 'string', enum: ['asc', 'desc'] } },
      { name: 'tag', in: 'query', required: false, schema: { type: 'array', items: { type: 'string' } } },
    ]);
  });

  it('marks the locations whose model refuses unknown keys (x-strict-parameters), and only those', () => {
    const plan = (params: Record<string, unknown>) => ({ method: 'GET', pathParams: [], params }) as OperationDescription['plan'];
    const strict = buildDocument(
      { title: 'Strict', version: '1' },
      [
        {
          method: 'GET',
          path: '/strict',
          operationId: 'strict',
          statusCode: 200,
          plan: plan({ f: z.strictObject({ q: z.string() }), c: cookie(z.strictObject({ s: z.string() })) }),
        },
        { method: 'GET', path: '/open', operationId: 'open', statusCode: 200, plan: plan({ f: z.object({ q: z.string() }) }) },
      ],
      { http },
    ) as Json;
    expect(strict.paths['/strict'].get['x-strict-parameters']).toEqual(['query', 'cookie']);
    expect(strict.paths['/open'].get).not.toHaveProperty('x-strict-parameters');
  });

  it('documents a path parameter without a schema as a string', () => {
    expect(op('/legacy/{name}', 'delete').parameters).toEqual([{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }]);
  });

  it('spreads a query model into its fields', () => {
    const d = buildDocument(
      { title: 't', version: '1' },
      [
        {
          method: 'GET',
          path: '/search',
          operationId: 'search',
          plan: { method: 'GET', pathParams: [], params: { filter: z.object({ q: z.string(), limit: z.int().max(50).optional() }) } },
          statusCode: 200,
        },
      ],
      { http },
    ) as Json;
    expect(d.paths['/search'].get.parameters).toEqual([
      { name: 'q', in: 'query', required: true, schema: { type: 'string' } },
      { name: 'limit', in: 'query', required: false, schema: { type: 'integer', maximum: 50 } },
    ]);
  });

  it('takes parameter descriptions from the schema', () => {
    const d = buildDocument(
      { title: 't', version: '1' },
      [
        {
          method: 'GET',
          path: '/items',
          operationId: 'items',
          plan: { method: 'GET', pathParams: [], params: { q: z.string().describe('Search text') } },
          statusCode: 200,
        },
      ],
      { http },
    ) as Json;
    const [param] = d.paths['/items'].get.parameters;
    expect(param).toMatchObject({ name: 'q', in: 'query', required: true, description: 'Search text' });
    expect(param.schema).toMatchObject({ type: 'string' });
  });
});

const userSchema = {
  type: 'object',
  description: 'A registered user',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 50 },
    age: { type: 'integer', minimum: 18 },
    email: expect.objectContaining({ type: 'string', format: 'email' }),
  },
  required: ['name', 'age'],
};

describe('request bodies', () => {
  it('inlines a model without an id of its own: a parameter name never names a component', () => {
    const expected = { required: true, content: { 'application/json': { schema: userSchema } } };
    expect(op('/users', 'post').requestBody).toEqual(expected);
    expect(op('/users/{user_id}', 'put').requestBody).toEqual(expected);
    expect(Object.keys(doc.components.schemas).filter((k) => /^User/.test(k))).toEqual([]);
  });

  it('names a model after its own registered id (.meta({ id })), apart for input and output', () => {
    expect(op('/addresses', 'post').requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/PostalAddressInput',
    });
    expect(op('/addresses', 'post').responses['201'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/PostalAddress',
    });
    const shape = { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } }, required: ['street', 'city'] };
    expect(doc.components.schemas.PostalAddress).toEqual(shape);
    expect(doc.components.schemas.PostalAddressInput).toEqual(shape);
    expect(doc.components.schemas.Address).toBeUndefined();
  });

  it('keeps a named model used only as input under its own id', () => {
    const BookIn = z.object({ title: z.string() }).meta({ id: 'BookIn' });
    const Book = z.object({ id: z.int(), title: z.string() }).meta({ id: 'Book' });
    const d = buildDocument(
      { title: 't', version: '1' },
      [
        {
          method: 'POST',
          path: '/books',
          operationId: 'addBook',
          plan: { method: 'POST', pathParams: [], params: { book: BookIn } },
          response: Book,
          statusCode: 201,
        },
      ],
      { http },
    ) as Json;
    expect(d.paths['/books'].post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/BookIn' });
    expect(d.paths['/books'].post.responses['201'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Book' });
    expect(Object.keys(d.components.schemas).sort()).toEqual(['Book', 'BookIn']);
  });

  it('gives by-name body fields an inline object schema', () => {
    expect(op('/add', 'post').requestBody).toEqual({
      required: true,
      content: {
        'application/json': {
          schema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a'] },
        },
      },
    });
  });

  it('marks a body of only optional fields as not required', () => {
    const d = buildDocument(
      { title: 't', version: '1' },
      [
        {
          method: 'PATCH',
          path: '/me',
          operationId: 'patchMe',
          plan: { method: 'PATCH', pathParams: [], params: { nick: z.string().optional() } },
          statusCode: 200,
        },
      ],
      { http },
    ) as Json;
    expect(d.paths['/me'].patch.requestBody.required).toBe(false);
  });

  it('refers to a named model nested in another schema', () => {
    const Team = z.object({ lead: Address, offices: z.array(Address) });
    const d = buildDocument(
      { title: 't', version: '1' },
      [{ method: 'GET', path: '/team', operationId: 'team', plan: { method: 'GET', pathParams: [] }, response: Team, statusCode: 200 }],
      { http },
    ) as Json;
    expect(d.paths['/team'].get.responses['200'].content['application/json'].schema).toEqual({
      type: 'object',
      properties: {
        lead: { $ref: '#/components/schemas/PostalAddress' },
        offices: { type: 'array', items: { $ref: '#/components/schemas/PostalAddress' } },
      },
      required: ['lead', 'offices'],
    });
  });

  it('does not alter the schemas it is given', () => {
    expect(zodToOpenAPIRegistry.has(User)).toBe(false);
    expect(getRefId(User)).toBeUndefined();
    expect(User.meta()).toEqual({ description: 'A registered user' });
    expect(Address.meta()).toEqual({ id: 'PostalAddress' });
  });
});

describe('responses', () => {
  it('without a list, documents only the success status with the response model', () => {
    expect(Object.keys(op('/users', 'post').responses)).toEqual(['201']);
    expect(op('/users', 'post').responses['201']).toEqual({
      description: 'Created',
      content: { 'application/json': { schema: userSchema } },
    });
    expect(op('/legacy/{name}', 'delete').responses).toEqual({ '204': { description: 'No Content' } });
    expect(op('/health', 'get').responses).toEqual({ '200': { description: 'OK', content: { 'application/json': { schema: {} } } } });
  });

  it('renders the given list as given, sorted by status', () => {
    expect(op('/users/{user_id}', 'get').responses).toEqual({
      '200': { description: 'OK', content: { 'application/json': { schema: userSchema } } },
      '401': { description: 'Missing or invalid credentials', content: problem('Problem401') },
      '403': { description: 'Forbidden', content: problem('Problem403') },
      '404': { description: 'Not Found', content: problem('Problem404') },
      '422': { description: 'Validation Error', content: problem('ValidationProblem') },
    });
    expect(Object.keys(op('/users/{user_id}', 'put').responses)).toEqual(['204', '409', '410', '422', '504']);
    expect(op('/users/{user_id}', 'put').responses['410']).toEqual({
      description: 'Gone for good',
      content: { 'application/json': { schema: { type: 'object', properties: { since: { type: 'string' } }, required: ['since'] } } },
    });
  });

  it('documents response headers', () => {
    expect(op('/users/{user_id}', 'put').responses['204']).toEqual({
      description: 'No Content',
      headers: {
        ETag: {
          description: 'Version of the stored user',
          required: false,
          schema: { type: 'string', description: 'Version of the stored user' },
        },
      },
    });
  });

  it('names each problem body after its status, with `status` a const', () => {
    for (const status of [401, 403, 404, 409, 504]) {
      const schema = doc.components.schemas[`Problem${status}`];
      expect(schema).toMatchObject({ type: 'object', required: ['type', 'title', 'status'] });
      expect(schema.properties.status).toMatchObject({ const: status });
    }
    expect(doc.components.schemas.ProblemDetails).toBeUndefined();
  });

  it('documents the 422 body with its errors[] items', () => {
    expect(doc.components.schemas.ValidationProblem).toMatchObject({
      type: 'object',
      required: ['type', 'title', 'status', 'detail', 'errors'],
      properties: {
        status: { const: 422 },
        errors: { type: 'array', items: { type: 'object', required: ['in', 'path', 'message', 'code'] } },
      },
    });
  });
});

describe('security', () => {
  it('registers each scheme once and requires it on the operation', () => {
    expect(doc.components.securitySchemes).toEqual({ bearerAuth: bearer, apiKeyAuth: apiKey });
    expect(op('/users/{user_id}', 'get').security).toEqual([{ bearerAuth: [] }]);
    expect(op('/users', 'post').security).toEqual([{ apiKeyAuth: ['users:write'] }]);
    expect(op('/users', 'get').security).toEqual([]);
  });

  it('requires every scheme of an operation together', () => {
    const d = buildDocument(
      { title: 't', version: '1' },
      [
        {
          method: 'GET',
          path: '/both',
          operationId: 'both',
          plan: { method: 'GET', pathParams: [] },
          statusCode: 200,
          security: [
            { name: 'bearerAuth', scheme: bearer },
            { name: 'apiKeyAuth', scheme: apiKey, scopes: ['admin'] },
          ],
        },
        {
          method: 'GET',
          path: '/again',
          operationId: 'again',
          plan: { method: 'GET', pathParams: [] },
          statusCode: 200,
          security: [{ name: 'bearerAuth', scheme: { ...bearer } }],
        },
      ],
      { http },
    ) as Json;
    expect(d.paths['/both'].get.security).toEqual([{ bearerAuth: [], apiKeyAuth: ['admin'] }]);
    expect(d.components.securitySchemes).toEqual({ bearerAuth: bearer, apiKeyAuth: apiKey });
  });

  it('numbers a name two different schemes share, instead of failing the document', () => {
    const ops: OperationDescription[] = [
      {
        method: 'GET',
        path: '/a',
        operationId: 'a',
        plan: { method: 'GET', pathParams: [] },
        statusCode: 200,
        security: [{ name: 'key', scheme: apiKey }],
      },
      {
        method: 'GET',
        path: '/b',
        operationId: 'b',
        plan: { method: 'GET', pathParams: [] },
        statusCode: 200,
        security: [{ name: 'key', scheme: { ...apiKey, name: 'X-Other' } }],
      },
    ];
    const d = buildDocument({ title: 't', version: '1' }, ops, { http }) as any;
    expect(d.components.securitySchemes).toEqual({ key: apiKey, key2: { ...apiKey, name: 'X-Other' } });
    expect(d.paths['/b'].get.security).toEqual([{ key2: [] }]);
    // An explicit name keeps its name whatever the order; the default moves aside.
    ops[1]!.security = [{ name: 'key', scheme: { ...apiKey, name: 'X-Other' }, explicit: true }];
    const e = buildDocument({ title: 't', version: '1' }, ops, { http }) as any;
    expect(e.paths['/b'].get.security).toEqual([{ key: [] }]);
    expect(e.paths['/a'].get.security).toEqual([{ key2: [] }]);
  });
});

describe('robustness', () => {
  it('does not fail on schemas zod-to-openapi cannot express', () => {
    const d = buildDocument(
      { title: 't', version: '1' },
      [
        {
          method: 'POST',
          path: '/odd/{id}',
          operationId: 'odd',
          plan: {
            method: 'POST',
            pathParams: ['id'],
            params: { id: z.custom<string>((v) => typeof v === 'string'), a: z.number(), b: z.custom<number>() },
          },
          response: z.object({ when: z.custom<Date>() }),
          statusCode: 200,
        },
        {
          method: 'GET',
          path: '/fine',
          operationId: 'fine',
          plan: { method: 'GET', pathParams: [], params: { q: z.string() } },
          statusCode: 200,
        },
      ],
      { http },
    ) as Json;
    expect(d.paths['/odd/{id}'].post.parameters).toEqual([{ name: 'id', in: 'path', required: true, schema: {} }]);
    expect(d.paths['/odd/{id}'].post.requestBody.content['application/json'].schema).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' } },
    });
    expect(d.paths['/fine'].get.parameters).toEqual([{ name: 'q', in: 'query', required: true, schema: { type: 'string' } }]);
  });

  it('skips methods OpenAPI 3.1 has no field for', () => {
    const d = buildDocument(
      { title: 't', version: '1' },
      [
        { method: 'PROPFIND', path: '/dav', operationId: 'dav', plan: { method: 'PROPFIND', pathParams: [] }, statusCode: 200 },
        { method: 'HEAD', path: '/dav', operationId: 'davHead', plan: { method: 'HEAD', pathParams: [] }, statusCode: 200 },
      ],
      { http },
    ) as Json;
    expect(Object.keys(d.paths['/dav'])).toEqual(['head']);
  });

  it('builds the same document twice', () => {
    const again = buildDocument({ title: 'Demo', version: '1.2.3', description: 'An example' }, operations, { http });
    expect(again).toEqual(doc);
  });

  it('keeps User in use elsewhere untouched', () => {
    expect(User.parse({ name: 'a', age: 20 })).toEqual({ name: 'a', age: 20 });
    expect(Address.parse({ street: 's', city: 'c' })).toEqual({ street: 's', city: 'c' });
  });
});
