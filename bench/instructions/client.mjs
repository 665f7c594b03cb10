// Sends exactly N requests of one benchmark endpoint over C keep-alive connections, then exits.
//   node client.mjs <port> <hello|deferred|posts|create|list|root> <N> [C=50]
import http from 'node:http';

const [port, endpoint, count, connections] = process.argv.slice(2);
const total = Number(count);
const sockets = Number(connections ?? 50);
const requests = {
  hello: { method: 'GET', path: '/hello' },
  deferred: { method: 'GET', path: '/hello-deferred' },
  posts: { method: 'GET', path: '/users/42/posts/7?page=2&limit=10' },
  list: { method: 'GET', path: '/items' },
  root: { method: 'GET', path: '/' },
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
let sent = 0;
let done = 0;
let failed = 0;
await new Promise((resolve) => {
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
  for (let i = 0; i < sockets; i++) next();
});
agent.destroy();
if (failed > 0) {
  console.error(`${failed} answers were not 2xx`);
  process.exit(1);
}
