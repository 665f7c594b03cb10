// fnapi tuned for speed: logging and the docs off.
import { API } from '@fnapi/core';
import { addEndpoints } from './fnapi-app.js';

const app = addEndpoints(new API({ logger: false, docsUrl: null, redocUrl: null, openapiUrl: null }));
const server = await app.run({ host: '127.0.0.1', port: 0, handleSignals: false });
process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
