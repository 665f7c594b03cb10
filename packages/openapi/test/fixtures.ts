import { cookie, header, problemSchemaFor, ValidationProblemSchema, z } from '@fnapi/validation';
import { STATUS_CODES } from 'node:http';
import type { HttpFacts, OperationDescription, OperationResponse } from '../src/index.js';

/** HTTP facts as a server passes them (`@fnapi/core` passes its own, tested in core's document tests). */
export const http: HttpFacts = {
  reasonPhrase: (status) => ({ 413: 'Content Too Large', 422: 'Unprocessable Content' })[status] ?? STATUS_CODES[status] ?? 'Error',
  statusHasBody: (status) => !(status < 200 || status === 204 || status === 205 || status === 304),
  jsonMediaType: 'application/json',
  problemMediaType: 'application/problem+json',
};

/** A user model shared by several endpoints (one component, not copies). */
export const User = z
  .object({
    name: z.string().min(1).max(50),
    age: z.int().min(18),
    email: z.email().optional(),
  })
  .describe('A registered user');

/** A model that names itself through zod's global registry. */
export const Address = z.object({ street: z.string(), city: z.string() }).meta({ id: 'PostalAddress' });

/** An error answer as a server lists it: the problem body with `status` fixed. */
export const problem = (status: number, description: string): OperationResponse => ({
  status,
  description,
  content: { mediaType: 'application/problem+json', schema: problemSchemaFor(status), component: `Problem${status}` },
});
export const invalid: OperationResponse = {
  status: 422,
  description: 'Validation Error',
  content: { mediaType: 'application/problem+json', schema: ValidationProblemSchema, component: 'ValidationProblem' },
};

export const bearer = { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' };
export const apiKey = { type: 'apiKey', in: 'header', name: 'X-API-Key' };

export const operations: OperationDescription[] = [
  {
    method: 'GET',
    path: '/users/{user_id}',
    operationId: 'getUser',
    summary: 'Get one user',
    description: 'Looks a user up by id.',
    tags: ['users'],
    plan: {
      method: 'GET',
      pathParams: ['user_id'],
      params: {
        user_id: z.int().min(1),
        verbose: z.boolean().default(false),
        fields: z.array(z.enum(['name', 'age', 'email'])).optional(),
        x_request_id: header(z.uuid()),
        session: cookie(z.string().optional()),
      },
    },
    response: User,
    statusCode: 200,
    security: [{ name: 'bearerAuth', scheme: bearer }],
    responses: [
      { status: 200, description: 'OK', content: { mediaType: 'application/json', schema: User } },
      problem(401, 'Missing or invalid credentials'),
      problem(403, 'Forbidden'),
      problem(404, 'Not Found'),
      invalid,
    ],
  },
  {
    method: 'GET',
    path: '/users',
    operationId: 'listUsers',
    tags: ['users', 'listing'],
    plan: {
      method: 'GET',
      pathParams: [],
      params: {
        page: z.int().min(1).default(1),
        size: z.int().min(1).max(100).default(20),
        order: z.enum(['asc', 'desc']),
        tag: z.array(z.string()).optional(),
      },
    },
    response: z.array(User),
    statusCode: 200,
  },
  {
    method: 'POST',
    path: '/users',
    operationId: 'createUser',
    summary: 'Create a user',
    tags: ['users'],
    plan: { method: 'POST', pathParams: [], params: { user: User } },
    response: User,
    statusCode: 201,
    security: [{ name: 'apiKeyAuth', scheme: apiKey, scopes: ['users:write'] }],
  },
  {
    method: 'PUT',
    path: '/users/{user_id}',
    operationId: 'replaceUser',
    plan: { method: 'PUT', pathParams: ['user_id'], params: { user_id: z.int(), user: User } },
    statusCode: 204,
    responses: [
      problem(504, 'Gateway Timeout'),
      { status: 204, description: 'No Content', headers: { ETag: { description: 'Version of the stored user' } } },
      problem(409, 'Name taken'),
      { status: 410, description: 'Gone for good', content: { mediaType: 'application/json', schema: z.object({ since: z.string() }) } },
      invalid,
    ],
  },
  {
    method: 'POST',
    path: '/add',
    operationId: 'add',
    plan: { method: 'POST', pathParams: [], params: { a: z.number(), b: z.number().optional() } },
    statusCode: 200,
  },
  {
    method: 'POST',
    path: '/addresses',
    operationId: 'createAddress',
    plan: { method: 'POST', pathParams: [], params: { address: Address } },
    response: Address,
    statusCode: 201,
  },
  {
    method: 'DELETE',
    path: '/legacy/{name}',
    operationId: 'deleteLegacy',
    deprecated: true,
    plan: { method: 'DELETE', pathParams: ['name'] },
    statusCode: 204,
  },
  {
    method: 'GET',
    path: '/health',
    operationId: 'health',
    plan: { method: 'GET', pathParams: [] },
    statusCode: 200,
  },
];
