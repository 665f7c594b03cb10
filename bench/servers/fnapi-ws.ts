// fnapi's WebSocket server for websocket.ts: an echo route, and a feed route that forwards a hub
// topic (a RedisHub when REDIS_URL is set, so instances share it) with POST /publish. Prints its URL;
// answers "mem" on stdin with its memory after a full collection.
import { createInterface } from 'node:readline';
import { RedisHub } from '@fnapi/cache';
import { API, Hub, z } from '@fnapi/core';

const hub: Hub = process.env.REDIS_URL
  ? new RedisHub({ url: process.env.REDIS_URL, keyPrefix: process.env.HUB_PREFIX, logger: false })
  : new Hub({ logger: false });
const app = new API({ logger: false, openapiUrl: null });
app.ws('/echo', {}, async (_input, socket) => {
  for await (const message of socket) await socket.send(message);
});
app.ws('/feed', {}, async (_input, socket) => {
  await socket.forward(hub.subscribe('feed', { signal: socket.signal }));
});
app.post('/publish', { params: { at: z.number() } }, async ({ at }) => {
  await hub.publish('feed', { at });
  return { ok: true };
});
const { url } = await app.run({ host: '127.0.0.1', port: 0, handleSignals: true });
process.stdout.write(`${JSON.stringify({ url: url.replace('http', 'ws') })}\n`);
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.stdout.write(`${JSON.stringify({ cpu: user + system })}\n`);
    return;
  }
  if (line !== 'mem') return;
  for (let i = 0; i < 3; i++) globalThis.gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  process.stdout.write(`${JSON.stringify({ rss, heapUsed })}\n`);
});
