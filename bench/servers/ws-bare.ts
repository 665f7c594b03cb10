// A bare `ws` echo server, the baseline of websocket.ts. Prints its URL; answers "mem" on stdin with
// its memory after a full collection.
import { createInterface } from 'node:readline';
import { WebSocketServer } from 'ws';

const server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false, maxPayload: 1024 * 1024 });
server.on('connection', (socket) => {
  socket.on('message', (data, isBinary) => socket.send(data, { binary: isBinary }));
});
server.on('listening', () => {
  const { port } = server.address() as { port: number };
  process.stdout.write(`${JSON.stringify({ url: `ws://127.0.0.1:${port}` })}\n`);
});
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
