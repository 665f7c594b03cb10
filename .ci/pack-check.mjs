// The packed-install check: builds the workspace, packs every published package (`prepack` builds
// each again, as a publish would),
// then installs the tarballs into fresh npm projects — as a user who has none of this workspace
// would — and in each runs a smoke script and `tsc --noEmit` on a typed snippet. For core alone it
// also measures the install on disk (at most 20 MB) and serves /docs and /redoc from it.
//
//   node .ci/pack-check.mjs [combination …]
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const CORE_INSTALL_LIMIT = 20 * 1024 * 1024;

// One line per combination: the packages installed, a smoke script (ESM) and a typed snippet.
const COMBINATIONS = {
  core: {
    packages: ['@fnapi/core'],
    smoke: `
      import { API, z } from '@fnapi/core';
      const app = new API({ logger: false });
      app.get('/hello/{name}', { params: { n: z.int().default(1) } }, ({ name, n }) => ({ message: 'hi ' + name, n }));
      const server = await app.run({ port: 0, handleSignals: false });
      const hello = await (await fetch(server.url + '/hello/ada?n=2')).json();
      if (hello.message !== 'hi ada' || hello.n !== 2) throw new Error('unexpected ' + JSON.stringify(hello));
      for (const path of ['/docs', '/redoc', '/openapi.json']) {
        const res = await fetch(server.url + path);
        if (res.status !== 200) throw new Error(path + ' answered ' + res.status);
        const html = await res.text();
        // The pages' scripts and styles are served by the app itself: fetch each one.
        for (const [, asset] of html.matchAll(/(?:src|href)="(\\/_fnapi\\/[^"]+)"/g)) {
          const a = await fetch(server.url + asset);
          if (a.status !== 200 || (await a.arrayBuffer()).byteLength === 0) throw new Error(asset + ' answered ' + a.status);
        }
      }
      await server.close();`,
    typed: `
      import { API, z } from '@fnapi/core';
      import { TestClient } from '@fnapi/core/testing';
      const app = new API();
      app.get('/users/{id}', { params: { id: z.int() } }, ({ id }) => ({ id: id + 1 }));
      const client: Promise<TestClient> = TestClient.start(app);
      void client;`,
  },
  database: {
    packages: ['@fnapi/core', '@fnapi/database'],
    smoke: `
      import { ConnectionPool, batchProcess } from '@fnapi/database';
      const pool = new ConnectionPool(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test', { minSize: 1, maxSize: 2 });
      const { rows } = await pool.query('select 1 + 1 as two');
      if (rows[0].two !== 2) throw new Error('unexpected ' + JSON.stringify(rows));
      await pool.close();
      const double = batchProcess({ maxBatchSize: 10 }, (xs) => xs.map((x) => x * 2));
      if ((await double(21)) !== 42) throw new Error('batch');`,
    typed: `
      import { ConnectionPool, type PoolStats } from '@fnapi/database';
      const pool = new ConnectionPool('postgres://localhost/x', { minSize: 0 });
      const stats: PoolStats = pool.stats();
      void stats;
      void pool.close();`,
  },
  cache: {
    packages: ['@fnapi/core', '@fnapi/cache'],
    smoke: `
      import { API } from '@fnapi/core';
      import { CacheMiddleware, RedisCacheStore } from '@fnapi/cache';
      const store = new RedisCacheStore({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', keyPrefix: 'pack-check:' + process.pid + ':' });
      const app = new API({ logger: false });
      app.addMiddleware(new CacheMiddleware({ store, ttl: 5 }));
      let calls = 0;
      app.get('/n', () => ({ n: ++calls }));
      const first = await app.inject('/n');
      const second = await app.inject('/n');
      if (first.headers['x-cache'] !== 'MISS' || second.headers['x-cache'] !== 'HIT') throw new Error('cache ' + first.headers['x-cache'] + ' ' + second.headers['x-cache']);
      await store.close();`,
    typed: `
      import { RedisCacheStore, type CacheStore } from '@fnapi/cache';
      const store: CacheStore = new RedisCacheStore({ keyPrefix: 'x:' });
      void store;`,
  },
  monitoring: {
    packages: ['@fnapi/core', '@fnapi/monitoring'],
    smoke: `
      import { API } from '@fnapi/core';
      import { MetricsMiddleware, metricsEndpoint, createLogger } from '@fnapi/monitoring';
      const app = new API({ logger: createLogger({ level: 'silent' }) });
      app.addMiddleware(new MetricsMiddleware());
      metricsEndpoint(app);
      app.get('/a', () => 'a');
      await app.inject('/a');
      const text = (await app.inject('/metrics')).body;
      if (!text.includes('http_requests_total{method="GET",route="/a",status="200"} 1')) throw new Error(text.slice(0, 500));`,
    typed: `
      import { MetricsMiddleware, metricsRegistry } from '@fnapi/monitoring';
      const m = new MetricsMiddleware({ registry: metricsRegistry });
      void m;`,
  },
  adapters: {
    packages: ['@fnapi/core', '@fnapi/adapters'],
    smoke: `
      import { API } from '@fnapi/core';
      import { LambdaAdapter } from '@fnapi/adapters/lambda';
      import { NetlifyAdapter } from '@fnapi/adapters/netlify';
      const app = new API({ logger: false });
      app.get('/hello', () => ({ message: 'hello' }));
      const result = await new LambdaAdapter(app).handle({
        version: '2.0', rawPath: '/hello', rawQueryString: '', headers: { host: 'x' }, isBase64Encoded: false,
        requestContext: { stage: '$default', http: { method: 'GET', sourceIp: '127.0.0.1' } },
      });
      if (result.statusCode !== 200 || JSON.parse(result.body).message !== 'hello') throw new Error(JSON.stringify(result));
      const web = await new NetlifyAdapter(app).handle(new Request('https://x/hello'));
      if (web.status !== 200) throw new Error(String(web.status));`,
    typed: `
      import { API } from '@fnapi/core';
      import { LambdaAdapter, type APIGatewayProxyResultV2 } from '@fnapi/adapters/lambda';
      import { AzureFunctionAdapter } from '@fnapi/adapters';
      const handler = new LambdaAdapter(new API(), { stripStagePath: true }).handle;
      const azure = new AzureFunctionAdapter(new API()).handle;
      void handler; void azure;
      export type R = APIGatewayProxyResultV2;`,
  },
  dev: {
    packages: ['@fnapi/dev'],
    entry: `
      import { API } from '@fnapi/core';
      const app = new API({ logger: false });
      app.get('/x', function getX() { return 1; });
      export default app;`,
    smoke: `
      import { execFileSync } from 'node:child_process';
      const out = execFileSync('npx', ['--no-install', 'fnapi', 'routes', 'entry.ts'], { encoding: 'utf8' });
      if (!/GET\\s+\\/x\\s+getX/.test(out)) throw new Error(out);`,
    typed: `
      import { loadApp } from '@fnapi/dev';
      void loadApp;`,
  },
  all: {
    packages: ['@fnapi/all'],
    smoke: `
      import { API, z, jwtRequired, createToken, CORSMiddleware, ConnectionPool, RedisCacheStore, MetricsMiddleware, LoggingPlugin } from '@fnapi/all';
      const app = new API({ logger: false });
      app.addMiddleware(new CORSMiddleware());
      const secret = 'pack-check-secret-with-enough-bytes!!';
      app.get('/me', jwtRequired({ secret, algorithm: 'HS256' })((_i, request) => ({ sub: request.auth.subject })));
      const token = await createToken({ sub: 'ada' }, { secret, algorithm: 'HS256', expiresIn: 60 });
      const res = await app.inject({ url: '/me', headers: { authorization: 'Bearer ' + token } });
      if (res.json().sub !== 'ada') throw new Error(res.body);
      for (const c of [z, ConnectionPool, RedisCacheStore, MetricsMiddleware, LoggingPlugin]) if (typeof c === 'undefined') throw new Error('missing export');`,
    typed: `
      import { API, z, jwtRequired, type Request } from '@fnapi/all';
      const app = new API();
      app.get('/me', { params: { q: z.string().optional() } }, jwtRequired({ secret: 's'.repeat(32), algorithm: 'HS256' })((input: { q?: string }, request: Request) => ({ q: input.q, sub: request.auth?.subject })));`,
  },
};

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...options });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  }
  return result.stdout;
}

function diskUsage(dir) {
  let total = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) continue;
    total += stat.isDirectory() ? diskUsage(path) : stat.size;
  }
  return total;
}

const work = mkdtempSync(join(tmpdir(), 'fnapi-pack-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
const tarballs = join(work, 'tarballs');
mkdirSync(tarballs);
const published = readdirSync(join(root, 'packages'))
  .map((dir) => ({
    dir: join(root, 'packages', dir),
    manifest: JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')),
  }))
  .filter(({ manifest }) => !manifest.private);

// Packages are packed one by one and each one's build needs its dependencies' declarations: build the
// workspace in dependency order first, so the script also works on its own from a fresh clone.
run('pnpm', ['-r', '--filter', './packages/*', 'build'], { cwd: root });
console.log(`packing ${published.length} packages…`);
const tarballOf = {};
for (const { dir, manifest } of published) {
  const out = run('pnpm', ['pack', '--pack-destination', tarballs], { cwd: dir });
  const file = out.trim().split('\n').pop().trim();
  tarballOf[manifest.name] = file.startsWith('/') ? file : join(tarballs, file);
}
const overrides = Object.fromEntries(Object.entries(tarballOf).map(([name, file]) => [name, `file:${file}`]));
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const wanted = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(COMBINATIONS);
const failures = [];

for (const name of wanted) {
  const combo = COMBINATIONS[name];
  const dir = join(work, name);
  mkdirSync(dir);
  const started = Date.now();
  try {
    const dependencies = Object.fromEntries(combo.packages.map((pkg) => [pkg, `file:${tarballOf[pkg]}`]));
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: `pack-check-${name}`, private: true, type: 'module', dependencies, overrides }, null, 2),
    );
    run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir });
    const size = diskUsage(join(dir, 'node_modules'));
    // Types for the typed snippet: what a TypeScript user has installed.
    const typesDir = join(dir, 'types');
    mkdirSync(typesDir);
    writeFileSync(
      join(typesDir, 'package.json'),
      JSON.stringify({ name: 'types', private: true, dependencies: { '@types/node': '^20.19.0' } }),
    );
    run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: typesDir });
    if (combo.entry) writeFileSync(join(dir, 'entry.ts'), combo.entry);
    writeFileSync(join(dir, 'smoke.mjs'), combo.smoke);
    run(process.execPath, ['smoke.mjs'], { cwd: dir, env: { ...process.env, FNAPI_LOG_LEVEL: 'silent' } });
    writeFileSync(join(dir, 'typed.ts'), combo.typed);
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
          typeRoots: [join(typesDir, 'node_modules', '@types')],
          lib: ['ES2023', 'DOM', 'ESNext.Disposable'],
        },
        files: ['typed.ts'],
      }),
    );
    run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: dir });
    const mb = (size / 1024 / 1024).toFixed(1);
    let note = `${mb} MB installed`;
    if (name === 'core') {
      note += ` (limit ${CORE_INSTALL_LIMIT / 1024 / 1024} MB)`;
      if (size > CORE_INSTALL_LIMIT)
        throw new Error(`@fnapi/core installs ${mb} MB, over the ${CORE_INSTALL_LIMIT / 1024 / 1024} MB limit`);
    }
    console.log(`ok   ${name.padEnd(11)} ${note}, ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } catch (error) {
    failures.push(name);
    console.log(`FAIL ${name}: ${error.message}`);
  }
}

if (failures.length) {
  console.error(`packed-install check failed for: ${failures.join(', ')}`);
  process.exit(1);
}
console.log('packed-install check passed');
