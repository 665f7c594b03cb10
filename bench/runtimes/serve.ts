// Serves one hello app on a free port and prints it: `<runtime> serve.ts fnapi|hono` under Node or Bun.
import fnapi from './fnapi-hello.js';
import hono from './hono-hello.js';

const which = process.argv[2] === 'hono' ? 'hono' : 'fnapi';
const bun = (globalThis as { Bun?: { serve(options: object): { port: number } } }).Bun;
if (bun !== undefined) {
  const server = bun.serve({ port: 0, hostname: '127.0.0.1', fetch: which === 'hono' ? hono.fetch : fnapi.fetch });
  console.log(`listening ${server.port}`);
} else if (which === 'fnapi') {
  const server = await fnapi.run({ port: 0, handleSignals: true });
  console.log(`listening ${server.port}`);
} else {
  const { serve } = await import('@hono/node-server');
  const server = serve({ fetch: hono.fetch, port: 0, hostname: '127.0.0.1' }, (info) => console.log(`listening ${info.port}`));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}
