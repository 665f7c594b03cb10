// Start-up of Fastify with N routes, each with an Ajv schema for its path parameter and optional
// query string: from `Fastify()` to the first answered request over real HTTP. Prints {"ms": …}.
import Fastify from 'fastify';

const n = Number(process.argv[2]);
const started = performance.now();
const app = Fastify({ logger: false });
const schema = {
  params: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
  querystring: { type: 'object', properties: { q: { type: 'string' } } },
} as const;
for (let i = 0; i < n; i++) {
  app.get<{ Params: { id: number }; Querystring: { q?: string } }>(`/items${i}/:id`, { schema }, async (request) => ({
    id: request.params.id,
    q: request.query.q,
  }));
}
const url = await app.listen({ host: '127.0.0.1', port: 0 });
const response = await fetch(`${url}/items${n - 1}/5?q=x`);
const body = (await response.json()) as { id: number };
const ms = performance.now() - started;
if (response.status !== 200 || body.id !== 5) throw new Error(`unexpected answer ${response.status} ${JSON.stringify(body)}`);
process.stdout.write(`${JSON.stringify({ ms })}\n`);
await app.close();
