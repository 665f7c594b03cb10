// fnapi as a user writes it: default options (pino logging to stdout, /docs, /redoc, /openapi.json on).
import { API } from '@fnapi/core';
import { addEndpoints } from './fnapi-app.js';

const app = addEndpoints(new API());
const server = await app.run({ host: '127.0.0.1', port: 0, handleSignals: false });
process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
