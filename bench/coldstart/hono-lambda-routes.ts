// hono-lambda.ts with COLDSTART_ROUTES more endpoints, the peer of fnapi-lambda-routes.ts.
import { zValidator } from '@hono/zod-validator';
import { z } from 'zod';
import { app, handler } from './hono-lambda.js';

const extra = Number(process.env.COLDSTART_ROUTES ?? 0);
for (let i = 0; i < extra / 2; i++) {
  app.get(
    `/extra${i}/:id/items/:itemId`,
    zValidator('param', z.object({ id: z.coerce.number().int(), itemId: z.coerce.number().int() })),
    zValidator('query', z.object({ page: z.coerce.number().int().default(1), limit: z.coerce.number().int().default(20) })),
    (c) => {
      const { id, itemId } = c.req.valid('param');
      const { page, limit } = c.req.valid('query');
      return c.json({ id, itemId, page, limit });
    },
  );
  app.post(`/extra${i}`, zValidator('json', z.object({ name: z.string().min(2), email: z.email(), age: z.int().min(18) })), (c) =>
    c.json(c.req.valid('json'), 201),
  );
}

// Hono's handler calls app.fetch, whose router is built on the first request: the routes added here are served.
export { handler };
