// Hono 4 on @hono/node-server, validating with zod 4 (safeParse in the handler).
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { z } from 'zod';
import { User } from './user-model.js';

const app = new Hono();

app.get('/hello', (c) => c.json({ message: 'hello' }));

const PostsParams = z.object({ id: z.coerce.number().int(), postId: z.coerce.number().int() });
const PostsQuery = z.object({
  page: z.coerce.number().int().default(1),
  limit: z.coerce.number().int().default(20),
});

app.get('/users/:id/posts/:postId', (c) => {
  const params = PostsParams.safeParse(c.req.param());
  if (!params.success) return c.json({ errors: params.error.issues }, 400);
  const query = PostsQuery.safeParse(c.req.query());
  if (!query.success) return c.json({ errors: query.error.issues }, 400);
  const { id, postId } = params.data;
  const { page, limit } = query.data;
  return c.json({ id, postId, page, limit });
});

app.post('/users', async (c) => {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    return c.json({ error: 'malformed JSON' }, 400);
  }
  const user = User.safeParse(body);
  if (!user.success) return c.json({ errors: user.error.issues }, 422);
  return c.json(user.data, 201);
});

serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
  process.stdout.write(`${JSON.stringify({ port: info.port })}\n`);
});
