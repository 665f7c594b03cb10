// The routes every Hono peer serves, in Hono's idiomatic form (validation by @hono/zod-validator).
import { zValidator } from '@hono/zod-validator';
import { Hono } from 'hono';
import { z } from 'zod';
import { User } from './user-model.js';

export function createHonoApp(): Hono {
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
  return app;
}
