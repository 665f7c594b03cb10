// fastify/benchmarks' Express server (benchmarks/express.cjs): ETag and X-Powered-By off, `res.json`.
import express from 'express';
import type { AddressInfo } from 'node:net';

const app = express();
app.disable('etag');
app.disable('x-powered-by');

app.get('/', (_req, res) => {
  res.json({ hello: 'world' });
});

const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
