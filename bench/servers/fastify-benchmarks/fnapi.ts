// fnapi as a user writes it, on the fastify/benchmarks endpoint: default options (pino logging, /docs,
// /redoc and /openapi.json on), the handler returning the object.
import { API } from '@fnapi/core';

const app = new API();
app.get('/', () => ({ hello: 'world' }));

const server = await app.run({ host: '127.0.0.1', port: 0, handleSignals: false });
process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
