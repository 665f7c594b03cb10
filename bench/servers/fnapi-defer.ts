// fnapi tuned for speed (as fnapi.ts), with one more endpoint that defers a no-op: `hello` against
// `deferred` is what `request.defer` adds to a request.
import { API } from '@fnapi/core';
import { addEndpoints } from './fnapi-app.js';

const app = addEndpoints(new API({ logger: false, docsUrl: null, redocUrl: null, openapiUrl: null }));
const noop = () => {};
app.get('/hello-deferred', (_input, request) => {
  request.defer(noop);
  return { message: 'hello' };
});
const server = await app.run({ host: '127.0.0.1', port: 0, handleSignals: false });
process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
