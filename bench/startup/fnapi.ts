// Start-up of fnapi with N endpoints, as users write them: from `new API()` to the first answered
// request over real HTTP. Prints {"ms": …}.
import { API, z } from '@fnapi/core';

const n = Number(process.argv[2]);
const started = performance.now();
const app = new API({ logger: false });
for (let i = 0; i < n; i++) {
  app.get(`/items${i}/{id}`, { params: { id: z.int(), q: z.string().optional() } }, ({ id, q }) => ({ id, q }));
}
const server = await app.run({ host: '127.0.0.1', port: 0, handleSignals: false });
const response = await fetch(`${server.url}/items${n - 1}/5?q=x`);
const body = await response.json();
const ms = performance.now() - started;
if (response.status !== 200 || body.id !== 5) throw new Error(`unexpected answer ${response.status} ${JSON.stringify(body)}`);
process.stdout.write(`${JSON.stringify({ ms })}\n`);
await server.close();
