// fnapi: plain functions, parameters declared with zod, docs and logging off.
import { API, z } from '@fnapi/core';
import { User } from './user-model.js';

const app = new API({ logger: false, docsUrl: null, redocUrl: null, openapiUrl: null });

app.get('/hello', () => ({ message: 'hello' }));

app.get(
  '/users/{id}/posts/{postId}',
  { params: { id: z.int(), postId: z.int(), page: z.int().default(1), limit: z.int().default(20) } },
  ({ id, postId, page, limit }) => ({ id, postId, page, limit }),
);

app.post('/users', { params: { user: User }, statusCode: 201 }, ({ user }) => user);

const server = await app.run({ host: '127.0.0.1', port: 0, handleSignals: false });
process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
