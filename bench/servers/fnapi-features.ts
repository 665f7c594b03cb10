// The per-feature overhead server (features.ts): fnapi with default options (pino logging, the docs
// on), the same routes in every variant, and FEATURE choosing what is added to the app:
//   none         nothing
//   tracing      TracingMiddleware, no OpenTelemetry SDK registered
//   ratelimit    RateLimitMiddleware, memory store, a 1 s window and a limit never reached
//   ratelimit60  the same with a 60 s window (the store keeps one timestamp per request in the window)
//   compression  CompressionMiddleware (br and gzip, by the request's Accept-Encoding)
import { API, z } from '@fnapi/core';
import { CompressionMiddleware, MemoryRateLimitStore, RateLimitMiddleware } from '@fnapi/middleware';
import { TracingMiddleware } from '@fnapi/monitoring';

const feature = process.env.FEATURE ?? 'none';
const app = new API();
if (feature === 'tracing') app.addMiddleware(new TracingMiddleware());
else if (feature === 'ratelimit' || feature === 'ratelimit60') {
  // Every request is counted and stamped with the RateLimit headers; none is refused.
  const window = feature === 'ratelimit' ? 1 : 60;
  app.addMiddleware(new RateLimitMiddleware({ limit: 1_000_000_000, window, store: new MemoryRateLimitStore() }));
} else if (feature === 'compression') app.addMiddleware(new CompressionMiddleware());
else if (feature !== 'none') throw new Error(`unknown FEATURE ${feature}`);

// 10 KB of JSON (10,267 bytes).
const rows = Array.from({ length: 160 }, (_, id) => ({ id, name: `item number ${id}`, price: id * 1.5, tags: ['x', 'y'] }));
const Tick = z.object({ i: z.int() });

app.get('/hello', () => ({ message: 'hello' }));
app.get('/json10k', () => rows);
// n items yielded as fast as the stream takes them, then the stream ends.
app.get('/events', { params: { n: z.int().min(0).max(10_000) }, events: Tick }, async function* ({ n }) {
  for (let i = 0; i < n; i++) yield { i };
});
app.get('/lines', { params: { n: z.int().min(0).max(10_000) }, lines: Tick }, async function* ({ n }) {
  for (let i = 0; i < n; i++) yield { i };
});

const server = await app.run({ host: '127.0.0.1', port: 0, handleSignals: false });
process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
