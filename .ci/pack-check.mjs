// The packed-install check: builds the workspace, packs every published package (`prepack` builds
// each again, as a publish would),
// checks each tarball carries its LICENSE and `license` field, then installs the tarballs into fresh npm
// projects — as a user who has none of this workspace would — and in each runs a smoke script and
// type-checks a typed snippet under the strictest consumer settings (`strict`,
// `exactOptionalPropertyTypes`, `noUncheckedIndexedAccess`, `skipLibCheck: false`, no DOM lib,
// `@types/node@20`) with both the workspace's TypeScript and the latest one from the registry. For core
// it also measures the install on disk (at most 20 MB) and serves /docs and /redoc from it; for
// `@fnapi/all` it reports the install (packages, MB) and the import time.
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
      // Optional options take undefined, as under exactOptionalPropertyTypes an env variable is.
      const store: CacheStore = new RedisCacheStore({ url: process.env.REDIS_URL, keyPrefix: 'x:', timeout: 0.1 });
      void store;`,
  },
  jobs: {
    packages: ['@fnapi/core', '@fnapi/jobs'],
    smoke: `
      import { API, z } from '@fnapi/core';
      import { Jobs } from '@fnapi/jobs';
      const app = new API({ logger: false });
      const jobs = new Jobs({ redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix: 'pack-check-' + process.pid });
      const double = jobs.define('double', { payload: z.object({ n: z.int() }) }, ({ n }) => n * 2);
      jobs.attach(app);
      await app.startup();
      const { id } = await double.enqueue({ n: 21 });
      let info;
      for (let i = 0; i < 200 && info?.state !== 'completed'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        info = await double.get(id);
      }
      if (info?.result !== 42) throw new Error('job ' + JSON.stringify(info));
      await app.shutdown();`,
    typed: `
      import { API, z } from '@fnapi/core';
      import { Jobs, JobPayloadError, type JobInfo } from '@fnapi/jobs';
      const jobs = new Jobs({ postgres: process.env.DATABASE_URL, prefix: 'x' });
      const kind = jobs.define('k', { payload: z.object({ id: z.int() }), attempts: 3 }, async ({ id }, job) => id + job.attempt);
      jobs.schedule('s', { every: 30 }, async (job) => job.logger.info('tick'));
      jobs.attach(new API(), { workers: false });
      const info: Promise<JobInfo | undefined> = kind.get('1');
      void kind.enqueue({ id: 1 }, { key: 'k:1', delay: 1 });
      void info; void JobPayloadError;`,
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
  client: {
    packages: ['@fnapi/client'],
    smoke: `
      import { createServer } from 'node:http';
      import { createClient, readEvents, readLines, StreamError } from '@fnapi/client';
      const events = [];
      for await (const e of readEvents(new Response(': ping\\n\\nevent: tick\\nid: 1\\ndata: {"n":1}\\n\\n'))) events.push(e);
      if (JSON.stringify(events) !== '[{"data":{"n":1},"id":"1","event":"tick"}]') throw new Error(JSON.stringify(events));
      const rows = [];
      for await (const row of readLines(new Response('{"a":1}\\n{"a":2}\\n'))) rows.push(row);
      if (rows.length !== 2 || rows[1].a !== 2) throw new Error(JSON.stringify(rows));
      try {
        for await (const _ of readEvents(new Response('event: error\\ndata: {"status":500}\\n\\n'))) void _;
        throw new Error('no StreamError');
      } catch (error) {
        if (!(error instanceof StreamError) || error.status !== 500) throw error;
      }
      // The typed client over real HTTP: a JSON body, an upload sent as multipart, an error body.
      const server = createServer(async (req, res) => {
        let body = '';
        for await (const chunk of req) body += chunk;
        const status = req.url === '/missing' ? 404 : 200;
        res.writeHead(status, { 'content-type': status === 200 ? 'application/json' : 'application/problem+json' });
        res.end(JSON.stringify(status === 200 ? { url: req.url, type: req.headers['content-type'], body } : { status, title: 'Not Found' }));
      });
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
      const api = createClient({ baseUrl: 'http://127.0.0.1:' + server.address().port });
      const json = await api.POST('/echo/{id}', { params: { path: { id: 7 } }, body: { a: 1 } });
      if (json.data?.url !== '/echo/7' || json.data.type !== 'application/json' || json.data.body !== '{"a":1}') throw new Error(JSON.stringify(json.data));
      const upload = await api.POST('/upload', { body: { file: new Blob(['x']), note: 'n' } });
      if (!upload.data?.type.startsWith('multipart/form-data; boundary=') || !upload.data.body.includes('name="file"; filename="blob"')) throw new Error(JSON.stringify(upload.data));
      const missing = await api.GET('/missing');
      if (missing.error?.status !== 404 || missing.response.status !== 404) throw new Error(JSON.stringify(missing.error));
      server.close();`,
    typed: `
      import { createClient, readEvents, readLines, StreamError, type Client, type StreamEvent, type StreamSource } from '@fnapi/client';
      // What \`fnapi client\` writes, for one operation.
      type Problem<S extends number> = { type: string; title: string; status: S; detail?: string };
      interface paths {
        '/books/{id}': {
          parameters: { query?: never; header?: never; path?: never; cookie?: never };
          get: {
            parameters: { query?: never; header?: never; path: { id: number }; cookie?: never };
            requestBody?: never;
            responses: {
              200: { headers: { [name: string]: unknown }; content: { 'application/json': { id: number; title: string } } };
              404: { headers: { [name: string]: unknown }; content: { 'application/problem+json': Problem<404> } };
              422: { headers: { [name: string]: unknown }; content: { 'application/problem+json': Problem<422> & { errors: { path: (string | number)[] }[] } } };
            };
          };
          put?: never; post?: never; delete?: never; options?: never; head?: never; patch?: never; trace?: never;
        };
      }
      // Options may be undefined, as an unset environment variable is.
      const api: Client<paths> = createClient<paths>({ baseUrl: process.env.API_URL, headers: undefined });
      export async function title(id: number): Promise<string> {
        const { data, error } = await api.GET('/books/{id}', { params: { path: { id } } });
        if (error?.status === 422) return error.errors.map((e) => e.path.join('.')).join(', ');
        if (error) return error.status + ': ' + (error.detail ?? error.title);
        return data.title;
      }
      interface streams { '/ticks': { get: { n: number } } }
      export async function ticks(response: StreamSource): Promise<number> {
        let total = 0;
        for await (const event of readEvents<streams['/ticks']['get']>(response)) {
          const e: StreamEvent<{ n: number }> = event;
          total += e.data.n + (e.id === undefined ? 0 : 1);
        }
        for await (const row of readLines<{ n: number }>(response)) total += row.n;
        return total;
      }
      export const isStreamError = (e: unknown): e is StreamError => e instanceof StreamError;`,
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
      import { API, z, jwtRequired, createToken, batchProcess, CacheMiddleware, RedisCacheStore, type Request } from '@fnapi/all';
      const app = new API();
      app.get('/me', { params: { q: z.string().optional() } }, jwtRequired({ secret: 's'.repeat(32), algorithm: 'HS256' })((input: { q?: string | undefined }, request: Request) => ({ q: input.q, sub: request.auth?.subject })));
      const cache = new CacheMiddleware({ store: new RedisCacheStore({ url: process.env.REDIS_URL }) });
      app.get('/books', { middleware: [cache] }, () => [{ id: 1 }]);
      const load = batchProcess({ cacheKey: (k: { id: number }) => k.id }, async (keys: { id: number }[]) => keys.map((k) => k.id));
      void load({ id: 1 });
      void createToken({ sub: 'ada' }, { secret: 's'.repeat(32), algorithm: 'HS256', expiresIn: null });
      void cache.invalidate('/books');`,
  },
};

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...options });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  }
  return result.stdout;
}

function readVersion(pkgDir) {
  return JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')).version;
}

/** Packages in a node_modules tree (scoped ones counted one by one, nested trees included). */
function installedPackages(dir) {
  let count = 0;
  for (const name of readdirSync(dir)) {
    if (name.startsWith('.')) continue;
    const path = join(dir, name);
    if (name.startsWith('@')) {
      for (const scoped of readdirSync(path)) count += 1 + nested(join(path, scoped));
    } else count += 1 + nested(path);
  }
  return count;
}

function nested(pkgDir) {
  const inner = join(pkgDir, 'node_modules');
  return statSync(inner, { throwIfNoEntry: false })?.isDirectory() ? installedPackages(inner) : 0;
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
const failures = [];
for (const { dir, manifest } of published) {
  const out = run('pnpm', ['pack', '--pack-destination', tarballs], { cwd: dir });
  const file = out.trim().split('\n').pop().trim();
  tarballOf[manifest.name] = file.startsWith('/') ? file : join(tarballs, file);
}
// Every tarball carries the LICENSE file and says its license.
for (const [name, file] of Object.entries(tarballOf)) {
  const listing = run('tar', ['-tzf', file]).split('\n');
  if (!listing.includes('package/LICENSE')) failures.push(`${name}: no LICENSE in the tarball`);
  const manifest = JSON.parse(run('tar', ['-xzOf', file, 'package/package.json']));
  if (manifest.license !== 'MIT') failures.push(`${name}: license field is ${JSON.stringify(manifest.license)}, not "MIT"`);
}
if (failures.length === 0) console.log(`ok   every tarball has LICENSE and "license": "MIT"`);

// The consumer's TypeScript: the workspace's, and the latest from the registry (TypeScript 7 and later
// may ship a native binary under another name: the package's own \`bin\` says which).
const compilers = [
  {
    label: `typescript ${readVersion(join(root, 'node_modules', 'typescript'))}`,
    command: [process.execPath, join(root, 'node_modules', 'typescript', 'bin', 'tsc')],
  },
];
{
  const latestDir = join(work, 'typescript-latest');
  mkdirSync(latestDir);
  writeFileSync(join(latestDir, 'package.json'), JSON.stringify({ name: 'typescript-latest', private: true }));
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', 'typescript@latest'], { cwd: latestDir });
  const pkgDir = join(latestDir, 'node_modules', 'typescript');
  const bin = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')).bin;
  const binName = typeof bin === 'string' ? 'tsc' : (['tsc', 'tsgo'].find((n) => bin?.[n]) ?? Object.keys(bin ?? {})[0]);
  if (!binName) throw new Error('typescript@latest declares no binary');
  compilers.push({ label: `typescript@latest ${readVersion(pkgDir)}`, command: [join(latestDir, 'node_modules', '.bin', binName)] });
}

const overrides = Object.fromEntries(Object.entries(tarballOf).map(([name, file]) => [name, `file:${file}`]));
const wanted = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(COMBINATIONS);

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
          exactOptionalPropertyTypes: true,
          noUncheckedIndexedAccess: true,
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
          typeRoots: [join(typesDir, 'node_modules', '@types')],
          // No DOM: a declaration naming a browser-only type (CryptoKey …) must fail here.
          lib: ['ES2023', 'ESNext.Disposable'],
        },
        files: ['typed.ts'],
      }),
    );
    for (const compiler of compilers) {
      const [command, ...args] = compiler.command;
      try {
        run(command, [...args, '-p', 'tsconfig.json'], { cwd: dir });
      } catch (error) {
        throw new Error(`${compiler.label}: ${error.message}`);
      }
    }
    const mb = (size / 1024 / 1024).toFixed(1);
    let note = `${mb} MB installed, typed snippet clean under ${compilers.map((c) => c.label).join(' and ')}`;
    if (name === 'all') {
      const count = installedPackages(join(dir, 'node_modules'));
      const times = [];
      for (let i = 0; i < 5; i++) {
        const out = run(
          process.execPath,
          ['--input-type=module', '-e', "const t = performance.now(); await import('@fnapi/all'); console.log(performance.now() - t)"],
          { cwd: dir },
        );
        times.push(Number(out.trim()));
      }
      times.sort((a, b) => a - b);
      note += `; ${count} packages; import ${times[0].toFixed(0)}–${times[times.length - 1].toFixed(0)} ms (median ${times[2].toFixed(0)} ms over 5 runs)`;
      for (const tool of ['@fnapi/dev', 'tsx', 'esbuild']) {
        if (statSync(join(dir, 'node_modules', tool), { throwIfNoEntry: false })) throw new Error(`@fnapi/all installs ${tool}`);
      }
    }
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
