// Hono 4 on @hono/node-server, validating with @hono/zod-validator (zod 4): Hono's idiomatic form.
import { serve } from '@hono/node-server';
import { zValidator } from '@hono/zod-validator';
import { Hono } from 'hono';
import { z } from 'zod';
import { publicItems } from './catalogue.js';
import { User } from './user-model.js';

const app = new Hono();

app.get('/hello', (c) => c.json({ message: 'hello' }));

app.get(
  '/users/:id/posts/:postId',
  zValidator('param', z.object({ id: z.coerce.number().int(), postId: z.coerce.number().int() })),
  zValidator('query', z.object({ page: z.coerce.number().int().default(1), limit: z.coerce.number().int().default(20) })),
  (c) => {
    const { id, postId } = c.req.valid('param');
    const { page, limit } = c.req.valid('query');
    return c.json({ id, postId, page, limit });
  },
);

app.post('/users', zValidator('json', User), (c) => c.json(c.req.valid('json'), 201));

app.get('/items', (c) => c.json(publicItems()));

serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
  process.stdout.write(`${JSON.stringify({ port: info.port })}\n`);
});
