// The app the conformance test serves on every runtime: Node (node:http), Bun (Bun.serve), Deno
// (`deno serve`, this module's default export) and workerd (the default export as a Workers module).
// It imports @fnapi/core as users do; the test bundles it for each runtime.
import { apiKeyRequired, basicAuthRequired, jwtRequired } from '@fnapi/auth';
import { API, FileResponse, file, HTTPError, type Logger, Response, Router, sseEvent, z } from '@fnapi/core';
import { CacheMiddleware, CORSMiddleware, LoggingMiddleware, RateLimitMiddleware } from '@fnapi/middleware';
import { mcp } from '@fnapi/mcp';
import { JWT_SECRET } from './secret.js';

const app = new API({
  title: 'Conformance',
  version: '1.0.0',
  bodyLimit: 2048,
  uploadLimit: 64 * 1024,
  // The same pages everywhere: the assets come from where the app says, not from disk or a CDN.
  docsAssetsUrl: '/static/docs',
});

const Item = z.object({ name: z.string().min(1), price: z.number().positive(), tags: z.array(z.string()).default([]) });

app.get(
  '/items/{item_id}',
  { params: { item_id: z.int(), q: z.string().optional(), limit: z.int().max(100).default(10) } },
  ({ item_id, q, limit }) => ({
    item_id,
    q: q ?? null,
    limit,
  }),
);

app.post('/items', { params: { item: Item }, statusCode: 201 }, ({ item }) => ({ ...item, id: 1 }));

app.get('/teapot', () => {
  throw new HTTPError(418, 'Not a coffee machine');
});

app.get('/text', () => 'plain words, ünïcödé');

// An unexpected error: a 500 without details, and one error line in the log (pino's JSON, or the
// same through console on workerd).
app.get('/crash', () => {
  throw new Error('kaput');
});

app.post(
  '/upload',
  { params: { doc: file({ maxSize: 8 * 1024, types: ['image/png', 'text/plain'] }), caption: z.string().max(50).optional() } },
  async ({ doc, caption }) => ({
    name: doc.name,
    type: doc.type,
    size: doc.size,
    caption: caption ?? null,
    head: [...(await doc.bytes()).slice(0, 4)],
  }),
);

const Tick = z.object({ n: z.int() });
app.get('/ticks', { params: { count: z.int().max(10) }, events: Tick }, async function* ({ count }) {
  for (let n = 0; n < count; n++) yield n === count - 1 ? sseEvent({ data: { n }, event: 'last', id: String(n) }) : { n };
});

// Guards: a JWT (HS256 through Web Crypto everywhere), an API key and Basic credentials.
app.get(
  '/secure/jwt',
  jwtRequired({ secret: JWT_SECRET, algorithm: 'HS256' })((_input, request) => ({ subject: request.auth?.subject ?? null })),
);
app.get(
  '/secure/key',
  apiKeyRequired({ apiKeys: { 'key-1': ['read'] } })(() => ({ ok: true })),
);
app.get(
  '/secure/basic',
  basicAuthRequired({ credentials: { ada: 'lovelace' } })((_input, request) => ({ user: request.auth?.subject ?? null })),
);

app.addMiddleware(new CORSMiddleware({ allowOrigins: ['https://app.example'] }));

// The memory stores of the cache and the rate limit, under their own prefix.
let computed = 0;
const stored = new Router({ prefix: '/stored' });
stored.addMiddleware(new RateLimitMiddleware({ limit: 1000, window: 60 }));
stored.addMiddleware(new CacheMiddleware({ ttl: 60 }));
stored.get('/bytes', () => new Response(Uint8Array.from([1, 2, 3, ++computed])));
app.includeRouter(stored);

// A download under LoggingMiddleware: observing never changes framing, so it keeps its Content-Length
// (200, 206, HEAD) on every runtime. The lines go nowhere: only their being written matters.
const quiet = { isLevelEnabled: () => true, info: () => {} } as unknown as Logger;
const downloads = new Router({ prefix: '/download' });
downloads.addMiddleware(new LoggingMiddleware({ logger: quiet }));
downloads.get('/ten.txt', () => new FileResponse(new TextEncoder().encode('0123456789'), { filename: 'ten.txt' }));
app.includeRouter(downloads);

// Runtime-specific answers, checked per runtime rather than against Node's.
app.get('/platform', (_input, request) => {
  const env = request.platform.env as { GREETING?: string } | undefined;
  return { runtime: request.platform.runtime, greeting: env?.GREETING ?? null, hasCtx: request.platform.ctx !== undefined };
});

// request.signal aborts only when the client goes away: not after a successful answer (Deno aborts
// its own request's signal then).
let abortedAfterAnswer = 0;
app.get('/signal/watch', (_input, request) => {
  request.signal.addEventListener('abort', () => abortedAfterAnswer++);
  return { watching: true };
});
app.get('/signal/aborted', () => ({ aborted: abortedAfterAnswer }));

let later = 'pending';
app.post('/later', (_input, request) => {
  const env = request.platform.env as { KV?: { put(key: string, value: string): Promise<void> } } | undefined;
  request.waitUntil(
    (async () => {
      // Work that ends after the answer went out (setTimeout: the one timer every runtime has).
      await new Promise((resolve) => setTimeout(resolve, 20));
      later = 'done';
      await env?.KV?.put('later', 'done');
    })(),
  );
  return { accepted: true };
});
app.get('/later', async (_input, request) => {
  const env = request.platform.env as { KV?: { get(key: string): Promise<string | null> } } | undefined;
  return { value: env?.KV !== undefined ? ((await env.KV.get('later')) ?? 'pending') : later };
});

// MCP: an endpoint as a tool, served at /mcp by the same handler on every runtime.
app.get(
  '/books/{id}',
  { params: { id: z.int().max(100) }, response: z.object({ id: z.int(), title: z.string() }), mcp: true },
  function getBook({ id }) {
    return { id, title: `Book ${id}` };
  },
);
app.extend(mcp({ name: 'conformance', version: '1.0.0' }));

export default app;
