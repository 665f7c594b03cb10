// A short load run against GET /todos: 100 connections for 10 s with autocannon; prints the errors,
// latency and throughput, and the pool's stats once the load is over (they should be back to idle).
import autocannon from 'autocannon';
import { createApp } from './app.js';

const prefix = `load_${process.pid}`;
const { app, pool } = createApp({ tablePrefix: prefix, logger: false });
const server = await app.run({ port: 0, handleSignals: false });
for (const name of ['Ada', 'Grace', 'Edsger']) {
  const author = await (
    await fetch(`${server.url}/authors`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name }),
    })
  ).json();
  for (let i = 0; i < 7; i++) {
    await fetch(`${server.url}/todos`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: `${name} ${i}`, author_id: author.id }),
    });
  }
}
const result = await autocannon({
  url: `${server.url}/todos?limit=20`,
  connections: 100,
  duration: Number(process.env.LOAD_DURATION ?? 10),
});
await new Promise((resolve) => setTimeout(resolve, 200));
const stats = pool.stats();
const non2xx = result.non2xx;
console.log(
  JSON.stringify(
    {
      requests: result.requests.total,
      reqPerSec: Math.round(result.requests.average),
      latencyMs: { p50: result.latency.p50, p99: result.latency.p99 },
      errors: result.errors,
      timeouts: result.timeouts,
      non2xx,
      poolAfter: stats,
    },
    null,
    2,
  ),
);
await pool.query(`drop table if exists ${prefix}_todos`);
await pool.query(`drop table if exists ${prefix}_authors`);
await server.close();
process.exit(result.errors + result.timeouts + non2xx === 0 && stats.inUse === 0 && stats.waiting === 0 ? 0 : 1);
