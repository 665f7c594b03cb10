// The hello endpoint with or without TracingMiddleware (TRACING=1), no OpenTelemetry SDK registered.
import { API } from '@fnapi/core';
import { TracingMiddleware } from '@fnapi/monitoring';

const app = new API({ logger: false, docsUrl: null, redocUrl: null, openapiUrl: null });
if (process.env.TRACING === '1') app.addMiddleware(new TracingMiddleware());
app.get('/hello', () => ({ message: 'hello' }));
const server = await app.run({ host: '127.0.0.1', port: 0, handleSignals: false });
process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
