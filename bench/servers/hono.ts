// Hono 4 on @hono/node-server, validating with @hono/zod-validator (zod 4): Hono's idiomatic form.
import { serve } from '@hono/node-server';
import { publicItems } from './catalogue.js';
import { createHonoApp } from './hono-app.js';

const app = createHonoApp();

app.get('/items', (c) => c.json(publicItems()));

serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
  process.stdout.write(`${JSON.stringify({ port: info.port })}\n`);
});
