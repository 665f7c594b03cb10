/**
 * The example app's own document, as served: valid OpenAPI 3.1, exactly the example's endpoints, and
 * its parameters, bodies and statuses as the endpoints bind them.
 */
import { TestClient } from '@fnapi/core/testing';
import { validate } from '@hyperjump/json-schema/openapi-3-1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';

type Operation = {
  operationId?: string;
  description?: string;
  tags?: string[];
  parameters?: { name: string; in: string; required?: boolean; schema?: any }[];
  requestBody?: { required?: boolean; content: Record<string, { schema: any }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: any }> }>;
};
type Doc = {
  openapi: string;
  info: Record<string, unknown>;
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, any> };
};

async function validateOpenAPI(document: unknown) {
  const output = await validate('https://spec.openapis.org/oas/3.1/schema-base', JSON.parse(JSON.stringify(document)), 'BASIC');
  return { valid: output.valid, errors: output.valid ? [] : (output.errors ?? []) };
}
async function served(client: TestClient): Promise<Doc> {
  const res = await client.get('/openapi.json');
  expect(res.status).toBe(200);
  return res.json<Doc>();
}
function operationKeys(doc: Doc): string[] {
  return Object.entries(doc.paths)
    .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
    .sort();
}
function operation(doc: Doc, method: string, path: string): Operation {
  const op = doc.paths[path]?.[method.toLowerCase()];
  if (!op) throw new Error(`${method} ${path} is not in the document`);
  return op;
}
const parameterList = (op: Operation) => (op.parameters ?? []).map((p) => [p.in, p.name, p.required ?? false]);
function parameter(op: Operation, location: string, name: string) {
  const found = (op.parameters ?? []).find((p) => p.in === location && p.name === name);
  if (!found) throw new Error(`no ${location} parameter ${name}`);
  return found;
}
const statuses = (op: Operation) => Object.keys(op.responses);

describe('/openapi.json of the example app', () => {
  let client: TestClient;
  let doc: Doc;
  beforeAll(async () => {
    client = await TestClient.start(createApp({ logger: false }));
    doc = await served(client);
  });
  afterAll(() => client?.close());

  it('is valid OpenAPI 3.1 (schema-base dialect)', async () => {
    const result = await validateOpenAPI(doc);
    expect(result.errors).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toEqual({
      title: 'fnapi example',
      version: '1.0.0',
      description: 'The typical endpoint set: greetings, path and query parameters, a validated model, an echo.',
      contact: { name: 'fnapi maintainers', email: 'maintainers@example.com' },
      license: { name: 'MIT', identifier: 'MIT' },
      termsOfService: 'https://example.com/terms',
    });
  });

  it('lists exactly the example endpoints, and none of the docs routes', () => {
    expect(operationKeys(doc)).toEqual(
      ['GET /hello/{name}', 'GET /search', 'GET /users/{user_id}/posts/{post_id}', 'POST /echo', 'POST /users'].sort(),
    );
    for (const path of Object.keys(doc.paths)) expect(path).not.toMatch(/^\/(openapi\.json|docs|redoc|_fnapi)/);
  });

  it('describes parameters, bodies and statuses as the endpoints bind them', () => {
    const hello = operation(doc, 'GET', '/hello/{name}');
    expect(parameterList(hello)).toEqual([
      ['path', 'name', true],
      ['query', 'greeting', false],
    ]);
    expect(statuses(hello)).toEqual(['200', '404', '422']);
    expect(hello.operationId).toBe('sayHello');
    expect(hello.tags).toEqual(['greetings']);

    const post = operation(doc, 'GET', '/users/{user_id}/posts/{post_id}');
    expect(parameterList(post)).toEqual([
      ['path', 'user_id', true],
      ['path', 'post_id', true],
    ]);
    expect(parameter(post, 'path', 'post_id').schema).toMatchObject({ type: 'integer' });

    const search = operation(doc, 'GET', '/search');
    expect(parameterList(search)).toEqual([
      ['query', 'query', true],
      ['query', 'page', false],
      ['query', 'limit', false],
    ]);
    expect(parameter(search, 'query', 'limit').schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 10 });
    expect(statuses(search)).toEqual(['200', '422']);

    const create = operation(doc, 'POST', '/users');
    expect(statuses(create)).toEqual(['201', '400', '413', '415', '422']);
    expect(create.requestBody).toEqual({
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/User' } } },
    });
    expect(doc.components?.schemas?.User).toMatchObject({ type: 'object', required: expect.arrayContaining(['name', 'email', 'age']) });

    const echo = operation(doc, 'POST', '/echo');
    // Any JSON: an open schema, never a component named after the parameter.
    expect(echo.requestBody).toEqual({ required: true, content: { 'application/json': { schema: {} } } });
    expect(doc.components?.schemas?.Payload).toBeUndefined();
    expect(operation(doc, 'GET', '/users/{user_id}/posts/{post_id}').responses['200']?.content?.['application/json']?.schema).toEqual({
      $ref: '#/components/schemas/PostRef',
    });
    expect(statuses(echo)).toEqual(['200', '400', '413', '415', '422']);
    expect(echo.description).toBe('Answers with the JSON body it was sent (any JSON value) and an `X-Echo` header.');
  });

  it('is the document app.openapi() returns', async () => {
    const app = createApp({ logger: false });
    expect(JSON.parse(JSON.stringify(app.openapi()))).toEqual(doc);
  });
});
