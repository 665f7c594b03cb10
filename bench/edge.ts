// The request-edge features' overhead, fnapi alone (no framework comparison): one server process
// (`servers/fnapi-edge.ts`), each case a short autocannon run, bare and with the feature interleaved.
//   pnpm --filter @fnapi/bench edge [-- --duration 3 --rounds 2]
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const here = dirname(fileURLToPath(import.meta.url));
const flag = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const duration = flag('duration', 3);
const rounds = flag('rounds', 2);

const CASES: { name: string; path: string; headers: Record<string, string> }[] = [
  { name: 'hello (request id on, as always)', path: '/hello', headers: {} },
  { name: 'hello behind RateLimitMiddleware (memory store)', path: '/limited/hello', headers: {} },
  { name: '10 KB JSON, no compression', path: '/json10k', headers: { 'accept-encoding': 'gzip, br' } },
  { name: '10 KB JSON, CompressionMiddleware → br', path: '/compressed/json10k', headers: { 'accept-encoding': 'gzip, br' } },
  { name: '10 KB JSON, CompressionMiddleware → gzip', path: '/compressed/json10k', headers: { 'accept-encoding': 'gzip' } },
];

const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', join(here, 'servers/fnapi-edge.ts')], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, NODE_ENV: 'production' },
});
const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
const { port } = JSON.parse(line) as { port: number };

const results = new Map<string, { rps: number[]; bytes: number }>();
try {
  for (let round = 0; round < rounds; round++) {
    for (const c of CASES) {
      const url = `http://127.0.0.1:${port}${c.path}`;
      await autocannon({ url, headers: c.headers, connections: 20, duration: 1 });
      const r = await autocannon({ url, headers: c.headers, connections: 20, duration });
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`${c.name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      const entry = results.get(c.name) ?? { rps: [], bytes: 0 };
      entry.rps.push(r.requests.average);
      entry.bytes = Math.round(r.throughput.total / r.requests.total);
      results.set(c.name, entry);
    }
  }
} finally {
  child.kill('SIGTERM');
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`| case | req/s (median of ${rounds}) | bytes per answer |\n|---|---:|---:|`);
for (const [name, { rps, bytes }] of results) console.log(`| ${name} | ${Math.round(median(rps))} | ${bytes} |`);
