// The request-edge features' overhead: the hello endpoint bare, behind RateLimitMiddleware (memory
// store), and a 10 KB JSON answer with and without CompressionMiddleware.
import { API, Router } from '@fnapi/core';
import { CompressionMiddleware, MemoryRateLimitStore, RateLimitMiddleware } from '@fnapi/middleware';

const app = new API({ logger: false, docsUrl: null, redocUrl: null, openapiUrl: null });
// ~10 KB of JSON.
const rows = Array.from({ length: 120 }, (_, id) => ({ id, name: `item number ${id}`, price: id * 1.5, tags: ['x', 'y'] }));

app.get('/hello', () => ({ message: 'hello' }));
const limited = new Router({ prefix: '/limited' });
// A limit never reached: every request is counted and stamped, none refused.
limited.addMiddleware(new RateLimitMiddleware({ limit: 1_000_000_000, window: 1, store: new MemoryRateLimitStore() }));
limited.get('/hello', () => ({ message: 'hello' }));
app.includeRouter(limited);

app.get('/json10k', () => rows);
const compressed = new Router({ prefix: '/compressed' });
compressed.addMiddleware(new CompressionMiddleware());
compressed.get('/json10k', () => rows);
app.includeRouter(compressed);

const server = await app.run({ host: '127.0.0.1', port: 0, handleSignals: false });
process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
