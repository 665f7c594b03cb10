// Fastify 5: validation through route JSON schemas (Ajv), serialisation through response
// schemas (fast-json-stringify) — the way Fastify is meant to be used.
import Fastify from 'fastify';
import { ITEM_JSON_SCHEMA, ITEMS } from './catalogue.js';

const app = Fastify({ logger: false });

app.get(
  '/hello',
  {
    schema: {
      response: { 200: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] } },
    },
  },
  async () => ({ message: 'hello' }),
);

interface PostsRoute {
  Params: { id: number; postId: number };
  Querystring: { page: number; limit: number };
}

app.get<PostsRoute>(
  '/users/:id/posts/:postId',
  {
    schema: {
      params: {
        type: 'object',
        properties: { id: { type: 'integer' }, postId: { type: 'integer' } },
        required: ['id', 'postId'],
      },
      querystring: {
        type: 'object',
        properties: { page: { type: 'integer', default: 1 }, limit: { type: 'integer', default: 20 } },
      },
      response: {
        200: {
          type: 'object',
          properties: {
            id: { type: 'integer' },
            postId: { type: 'integer' },
            page: { type: 'integer' },
            limit: { type: 'integer' },
          },
          required: ['id', 'postId', 'page', 'limit'],
        },
      },
    },
  },
  async (request) => {
    const { id, postId } = request.params;
    const { page, limit } = request.query;
    return { id, postId, page, limit };
  },
);

const userProperties = {
  name: { type: 'string', minLength: 2, maxLength: 50 },
  email: { type: 'string', format: 'email' },
  age: { type: 'integer', minimum: 18, maximum: 120 },
  role: { type: 'string', enum: ['admin', 'user', 'guest'], default: 'user' },
  tags: { type: 'array', items: { type: 'string' }, default: [] },
} as const;

interface User {
  name: string;
  email: string;
  age: number;
  role: 'admin' | 'user' | 'guest';
  tags: string[];
}

app.post<{ Body: User }>(
  '/users',
  {
    schema: {
      body: { type: 'object', properties: userProperties, required: ['name', 'email', 'age'] },
      response: {
        201: { type: 'object', properties: userProperties, required: ['name', 'email', 'age', 'role', 'tags'] },
      },
    },
  },
  async (request, reply) => {
    reply.code(201);
    return request.body;
  },
);

// The list through a response schema: fast-json-stringify keeps only the declared fields.
app.get('/items', { schema: { response: { 200: { type: 'array', items: ITEM_JSON_SCHEMA } } } }, async () => ITEMS);

const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${JSON.stringify({ port: Number(new URL(address).port) })}\n`);
