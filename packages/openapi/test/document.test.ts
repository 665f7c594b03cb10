import { describe, expect, it } from 'vitest';
import { getRefId, zodToOpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from '@fnapi/validation';
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

describe('request bodies', () => {
  it('puts a whole-body model into one named component, reused by every operation', () => {
    const expected = {
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/User' } } },
    };
    expect(op('/users', 'post').requestBody).toEqual(expected);
    expect(op('/users/{user_id}', 'put').requestBody).toEqual(expected);
    expect(doc.components.schemas.User).toEqual({
      type: 'object',
      description: 'A registered user',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 50 },
        age: { type: 'integer', minimum: 18 },
        email: expect.objectContaining({ type: 'string', format: 'email' }),
      },
      required: ['name', 'age'],
    });
    const userComponents = Object.keys(doc.components.schemas).filter((k) => k.startsWith('User'));
    expect(userComponents).toEqual(['User']);
  });

  it('uses the same component for a response model that is the same schema', () => {
    expect(op('/users', 'post').responses['201'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/User' });
    expect(op('/users/{user_id}', 'get').responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/User',
    });
    expect(op('/users', 'get').responses['200'].content['application/json'].schema).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/User' },
    });
  });

  it('names a model after its own registered id (.meta({ id }))', () => {
    expect(op('/addresses', 'post').requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/PostalAddress',
    });
    expect(op('/addresses', 'post').responses['201'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/PostalAddress',
    });
    expect(doc.components.schemas.PostalAddress).toEqual({
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
      required: ['street', 'city'],
    });
    expect(doc.components.schemas.Address).toBeUndefined();
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

  it('names models from the parameter name in PascalCase and keeps different schemas apart', () => {
    const A = z.object({ a: z.string() });
    const B = z.object({ b: z.string() });
    const d = buildDocument(
      { title: 't', version: '1' },
      [
        {
          method: 'POST',
          path: '/a',
          operationId: 'a',
          plan: { method: 'POST', pathParams: [], params: { user_data: A } },
          statusCode: 200,
        },
        {
          method: 'POST',
          path: '/b',
          operationId: 'b',
          plan: { method: 'POST', pathParams: [], params: { userData: B } },
          statusCode: 200,
        },
        { method: 'PUT', path: '/a', operationId: 'a2', plan: { method: 'PUT', pathParams: [], params: { other: A } }, statusCode: 200 },
      ],
      { http },
    ) as Json;
    const ref = (path: string, method: string) => d.paths[path][method].requestBody.content['application/json'].schema.$ref;
    expect(ref('/a', 'post')).toBe('#/components/schemas/UserData');
    expect(ref('/b', 'post')).toBe('#/components/schemas/UserData2');
    expect(ref('/a', 'put')).toBe('#/components/schemas/UserData');
    expect(d.components.schemas.UserData.properties).toEqual({ a: { type: 'string' } });
    expect(d.components.schemas.UserData2.properties).toEqual({ b: { type: 'string' } });
    expect(d.components.schemas.Other).toBeUndefined();
  });

  it('refers to a named model nested in another schema', () => {
    const Team = z.object({ lead: User, members: z.array(User) });
    const d = buildDocument(
      { title: 't', version: '1' },
      [
        {
          method: 'POST',
          path: '/users',
          operationId: 'create',
          plan: { method: 'POST', pathParams: [], params: { user: User } },
          statusCode: 201,
        },
        { method: 'GET', path: '/team', operationId: 'team', plan: { method: 'GET', pathParams: [] }, response: Team, statusCode: 200 },
      ],
      { http },
    ) as Json;
    expect(d.paths['/team'].get.responses['200'].content['application/json'].schema).toEqual({
      type: 'object',
      properties: { lead: { $ref: '#/components/schemas/User' }, members: { type: 'array', items: { $ref: '#/components/schemas/User' } } },
      required: ['lead', 'members'],
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
  it('documents the success status with the response model', () => {
    expect(op('/users', 'post').responses['201'].description).toBe('Created');
    expect(Object.keys(op('/users', 'post').responses)).toEqual(['201', '400', '401', '413', '415', '422']);
  });

  it('documents 204 without content', () => {
    expect(op('/users/{user_id}', 'put').responses['204']).toEqual({ description: 'No Content' });
    expect(op('/legacy/{name}', 'delete').responses['204']).toEqual({ description: 'No Content' });
  });

  it('adds the problem statuses each endpoint can produce', () => {
    // path params → 404; params → 422; security → 401; errorStatuses → 403
    expect(op('/users/{user_id}', 'get').responses).toEqual({
      '200': { description: 'OK', content: { 'application/json': { schema: { $ref: '#/components/schemas/User' } } } },
      '401': { description: 'Missing or invalid credentials', content: problem('ProblemDetails') },
      '403': { description: 'Forbidden', content: problem('ProblemDetails') },
      '404': { description: 'Not Found', content: problem('ProblemDetails') },
      '422': { description: 'Validation Error', content: problem('ValidationProblem') },
    });
    // body → 400, 413, 415; path → 404; errorStatuses 409 and 504
    expect(Object.keys(op('/users/{user_id}', 'put').responses)).toEqual(['204', '400', '404', '409', '413', '415', '422', '504']);
    expect(op('/users/{user_id}', 'put').responses['504']).toEqual({ description: 'Gateway Timeout', content: problem('ProblemDetails') });
    expect(op('/users/{user_id}', 'put').responses['413']).toEqual({
      description: 'Request body larger than the limit',
      content: problem('ProblemDetails'),
    });
    // query only → 422 only
    expect(Object.keys(op('/users', 'get').responses)).toEqual(['200', '422']);
  });

  it('has no 422 where nothing is validated', () => {
    expect(Object.keys(op('/health', 'get').responses)).toEqual(['200']);
  });

  it('shares one ProblemDetails component', () => {
    expect(doc.components.schemas.ProblemDetails).toMatchObject({
      type: 'object',
      properties: {
        type: { type: 'string' },
        title: { type: 'string' },
        status: { type: 'integer' },
        detail: { type: 'string' },
        details: expect.any(Object),
      },
      required: ['type', 'title', 'status'],
    });
    const text = JSON.stringify(doc);
    expect(text.match(/Short summary of the problem type/g)).toHaveLength(1);
  });

  it('documents the 422 body with ValidationProblemSchema by default', () => {
    expect(doc.components.schemas.ValidationProblem).toMatchObject({
      type: 'object',
      required: ['type', 'title', 'status', 'detail', 'errors'],
      properties: { errors: { type: 'array' } },
    });
  });

  it('documents a replaced 422 schema when one is given', () => {
    const Custom = z.object({ message: z.string(), fields: z.array(z.string()) });
    const d = buildDocument({ title: 't', version: '1' }, operations, { http, validationErrorSchema: Custom }) as Json;
    expect(d.components.schemas.ValidationProblem).toEqual({
      type: 'object',
      properties: { message: { type: 'string' }, fields: { type: 'array', items: { type: 'string' } } },
      required: ['message', 'fields'],
    });
    expect(d.paths['/users'].post.responses['422']).toEqual({ description: 'Validation Error', content: problem('ValidationProblem') });

    const Named = z.object({ error: z.string() }).meta({ id: 'MyValidationError' });
    const d2 = buildDocument({ title: 't', version: '1' }, operations, { http, validationErrorSchema: Named }) as Json;
    expect(d2.paths['/users'].post.responses['422'].content).toEqual(problem('MyValidationError'));
    expect(d2.components.schemas.ValidationProblem).toBeUndefined();
  });

  it('lets an explicit error status keep the documented success response', () => {
    const d = buildDocument(
      { title: 't', version: '1' },
      [
        {
          method: 'GET',
          path: '/x',
          operationId: 'x',
          plan: { method: 'GET', pathParams: [] },
          statusCode: 200,
          errorStatuses: [200, 429],
        },
      ],
      { http },
    ) as Json;
    expect(d.paths['/x'].get.responses).toEqual({
      '200': { description: 'OK', content: { 'application/json': { schema: {} } } },
      '429': { description: 'Too Many Requests', content: problem('ProblemDetails') },
    });
  });
});

describe('security', () => {
  it('registers each scheme once and requires it on the operation', () => {
    expect(doc.components.securitySchemes).toEqual({ bearerAuth: bearer, apiKeyAuth: apiKey });
    expect(op('/users/{user_id}', 'get').security).toEqual([{ bearerAuth: [] }]);
    expect(op('/users', 'post').security).toEqual([{ apiKeyAuth: ['users:write'] }]);
    expect(op('/users', 'get').security).toBeUndefined();
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
