// fastify/benchmarks' Hono server (benchmarks/hono.mjs): Hono on @hono/node-server, `c.json`.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const app = new Hono();
app.get('/', (c) => c.json({ hello: 'world' }));

serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
  process.stdout.write(`${JSON.stringify({ port: info.port })}\n`);
});
