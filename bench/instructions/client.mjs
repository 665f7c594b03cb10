// Sends exactly N requests of one benchmark endpoint over C keep-alive connections, then exits.
//   node client.mjs <port> <hello|deferred|posts|create|list|root|deps|inline> <N> [C=50] [warm]
// With `warm`, it first sends that many requests, prints "warm" and waits for a line on stdin; then
// sends the N over the same connections, prints "counted" and waits for another line before closing
// them. measure.sh counts between the two, so that no connection opens or closes in the window.
import http from 'node:http';
import { createInterface } from 'node:readline';

const [port, endpoint, count, connections, warm] = process.argv.slice(2);
const sockets = Number(connections ?? 50);
const requests = {
  hello: { method: 'GET', path: '/hello' },
  deferred: { method: 'GET', path: '/hello-deferred' },
  posts: { method: 'GET', path: '/users/42/posts/7?page=2&limit=10' },
  list: { method: 'GET', path: '/items' },
  root: { method: 'GET', path: '/' },
  // bench/servers/fnapi-deps.ts: three cached request dependencies, and the same code inline.
  deps: { method: 'GET', path: '/deps' },
  inline: { method: 'GET', path: '/inline' },
  create: {
    method: 'POST',
    path: '/users',
    body: JSON.stringify({ name: 'Ada Lovelace', email: 'ada@example.com', age: 36, tags: ['math', 'computing'] }),
  },
};
const request = requests[endpoint];
if (!request) throw new Error(`unknown endpoint ${endpoint}`);
const headers = request.body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(request.body) } : {};
const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
let failed = 0;

/** Sends `total` requests, `sockets` at a time. */
function send(total) {
  let sent = 0;
  let done = 0;
  return new Promise((resolve) => {
    const next = () => {
      if (sent >= total) return;
      sent++;
      const req = http.request({ host: '127.0.0.1', port, method: request.method, path: request.path, agent, headers }, (res) => {
        if (res.statusCode >= 300) failed++;
        res.resume();
        res.on('end', () => {
          done++;
          if (done === total) resolve();
          else next();
        });
      });
      req.end(request.body);
    };
    for (let i = 0; i < Math.min(sockets, total); i++) next();
  });
}

const lines = warm === undefined ? undefined : createInterface({ input: process.stdin })[Symbol.asyncIterator]();
if (lines !== undefined) {
  await send(Number(warm));
  process.stdout.write('warm\n');
  await lines.next();
}
await send(Number(count));
if (lines !== undefined) {
  process.stdout.write('counted\n');
  await lines.next();
}
agent.destroy();
if (failed > 0) {
  console.error(`${failed} answers were not 2xx`);
  process.exit(1);
}
process.exit(0);
