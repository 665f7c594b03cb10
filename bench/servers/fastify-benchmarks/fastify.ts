// fastify/benchmarks' Fastify server (benchmarks/fastify.cjs): default options, a response schema
// (fast-json-stringify), `reply.send` from a synchronous handler.
import Fastify from 'fastify';

const app = Fastify();

const schema = {
  schema: { response: { 200: { type: 'object', properties: { hello: { type: 'string' } } } } },
};

app.get('/', schema, (_req, reply) => {
  reply.send({ hello: 'world' });
});

const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${JSON.stringify({ port: Number(new URL(address).port) })}\n`);
