// Type-check cost of a typed client for a 1,000-endpoint API: fnapi's document turned into
// openapi-typescript types (what `fnapi client` writes) and called through openapi-fetch, beside
// Hono's `hc` over the same 1,000 routes built with `@hono/zod-validator`. Each client project calls
// the same 20 operations; `tsc --noEmit` wall time and peak memory are measured for both in one run.
// Replaces the "Type-check" section of RESULTS.md.
// Then the server side (typecheck-servers.ts): a hello world and a 100-endpoint app as written, fnapi
// beside Hono 4 + @hono/zod-validator, with `tsc --extendedDiagnostics` figures (instantiations, check
// time, memory); it replaces the "Type-check: endpoints as written" section.
//
//   pnpm bench:typecheck            (from the repository root)
//   tsx typecheck.ts --runs 3 --no-write [--servers-only]
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { API, z } from '@fnapi/core';
import { clientTypes } from '@fnapi/dev';
import { replaceSection } from './report.js';
import { app100Fnapi, app100Hono, HELLO_FNAPI, HELLO_HONO } from './typecheck-servers.js';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    resources: { type: 'string', default: '200' },
    'no-write': { type: 'boolean' },
    'servers-only': { type: 'boolean' },
  },
});
const RUNS = Number(args.runs);
/** Five routes a resource: list, get, create, update, delete. */
const RESOURCES = Number(args.resources);
const ENDPOINTS = RESOURCES * 5;
const work = join(here, '.typecheck');
const tsc = require.resolve('typescript/bin/tsc');

// The 20 operations both clients call: the five kinds of route on four resources spread over the app.
const CALLED = [0, Math.floor(RESOURCES / 3), Math.floor((2 * RESOURCES) / 3), RESOURCES - 1];

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    lib: ['ES2023', 'DOM'],
  },
  include: ['*.ts'],
};

function project(name: string, files: Record<string, string>): string {
  const dir = join(work, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `typecheck-${name}`, private: true, type: 'module' }));
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return dir;
}

/** A client module: its set-up, then the 20 calls in one function, so that every result is used. */
function clientModule(setup: string, calls: string[]): string {
  return `${setup}

export async function main(): Promise<[number, string[], number[]]> {
  let total = 0;
  const names: string[] = [];
  const codes: number[] = [];
${calls.join('\n')}
  return [total, names, codes];
}
`;
}

// ---------------------------------------------------------------------------------------------
// fnapi: the app, its document, openapi-typescript's types, an openapi-fetch client.

async function fnapiProjects(): Promise<{ fnapi: string; fnapiTs: string }> {
  const app = new API({ title: 'typecheck', version: '1.0.0', logger: false });
  for (let i = 0; i < RESOURCES; i++) {
    const Item = z
      .object({ id: z.int(), name: z.string(), tags: z.array(z.string()), price: z.number(), active: z.boolean() })
      .meta({ id: `Item${i}` });
    const ItemIn = z
      .object({
        name: z.string().min(1),
        tags: z.array(z.string()).default([]),
        price: z.number().min(0),
        active: z.boolean().default(true),
      })
      .meta({ id: `Item${i}In` });
    const item = (id: number, body: { name: string; tags: string[]; price: number; active: boolean }) => ({ id, ...body });
    app.api(
      {
        route: `/r${i}`,
        method: 'GET',
        operationId: `list${i}`,
        params: { limit: z.int().min(1).max(100).default(20), q: z.string().optional() },
        response: z.array(Item),
      },
      () => [],
    );
    app.api({ route: `/r${i}/{id}`, method: 'GET', operationId: `get${i}`, params: { id: z.int() }, response: Item }, ({ id }) =>
      item(id, { name: 'x', tags: [], price: 1, active: true }),
    );
    app.api(
      { route: `/r${i}`, method: 'POST', operationId: `create${i}`, statusCode: 201, params: { item: ItemIn }, response: Item },
      ({ item: body }) => item(1, body),
    );
    app.api(
      { route: `/r${i}/{id}`, method: 'PATCH', operationId: `update${i}`, params: { id: z.int(), item: ItemIn }, response: Item },
      ({ id, item: body }) => item(id, body),
    );
    app.api(
      { route: `/r${i}/{id}`, method: 'DELETE', operationId: `delete${i}`, statusCode: 204, params: { id: z.int() } },
      () => undefined,
    );
  }
  // Exactly what `fnapi client` writes.
  const types = await clientTypes(app.openapi(), 'the generated app');
  const calls = CALLED.map(
    (i) => `
  {
    const list = await api.GET('/r${i}', { params: { query: { limit: 10 } } });
    if (list.data) total += list.data.length;
    const one = await api.GET('/r${i}/{id}', { params: { path: { id: 1 } } });
    if (one.data) names.push(one.data.name);
    else if (one.error) codes.push(one.error.status);
    const made = await api.POST('/r${i}', { body: { name: 'n', price: 1, tags: [], active: true } });
    if (made.data) total += made.data.id;
    const changed = await api.PATCH('/r${i}/{id}', { params: { path: { id: 1 } }, body: { name: 'n', price: 2, tags: ['a'], active: false } });
    if (changed.data) names.push(changed.data.name);
    const gone = await api.DELETE('/r${i}/{id}', { params: { path: { id: 1 } } });
    if (gone.error) codes.push(gone.error.status);
  }`,
  );
  const client = clientModule(
    `import createClient from 'openapi-fetch';
import type { paths } from './api.js';

const api = createClient<paths>({ baseUrl: 'http://localhost:8000' });`,
    calls,
  );
  // As API.md shows it (\`fnapi client src/app.ts -o src/api.d.ts\`), and as a .ts file that tsc checks in full.
  return {
    fnapi: project('fnapi', { 'api.d.ts': types, 'client.ts': client }),
    fnapiTs: project('fnapi-ts', { 'api.ts': types, 'client.ts': client }),
  };
}

// ---------------------------------------------------------------------------------------------
// Hono: the same routes, each resource a chained sub-app mounted with `.route()` (Hono's guide for
// larger apps), validated with @hono/zod-validator; the client is `hc<AppType>`.

function honoProject(): string {
  const resources: string[] = [];
  for (let i = 0; i < RESOURCES; i++) {
    resources.push(`const r${i} = new Hono()
  .get('/', zValidator('query', z.object({ limit: z.coerce.number().int().min(1).max(100).default(20), q: z.string().optional() })), (c) =>
    c.json([] as Item[], 200),
  )
  .get('/:id', zValidator('param', IdParam), (c) => c.json(item(c.req.valid('param').id, { name: 'x', tags: [], price: 1, active: true }), 200))
  .post('/', zValidator('json', ItemIn), (c) => c.json(item(1, c.req.valid('json')), 201))
  .patch('/:id', zValidator('param', IdParam), zValidator('json', ItemIn), (c) => c.json(item(c.req.valid('param').id, c.req.valid('json')), 200))
  .delete('/:id', zValidator('param', IdParam), (c) => c.body(null, 204));`);
  }
  const server = `import { Hono } from 'hono';
import { zValidator } from '@hono/zod-validator';
import { z } from 'zod';

const Item = z.object({ id: z.number().int(), name: z.string(), tags: z.array(z.string()), price: z.number(), active: z.boolean() });
type Item = z.infer<typeof Item>;
const ItemIn = z.object({ name: z.string().min(1), tags: z.array(z.string()).default([]), price: z.number().min(0), active: z.boolean().default(true) });
const IdParam = z.object({ id: z.coerce.number().int() });
const item = (id: number, body: z.infer<typeof ItemIn>): Item => ({ id, ...body });

${resources.join('\n\n')}

const app = new Hono()
${Array.from({ length: RESOURCES }, (_, i) => `  .route('/r${i}', r${i})`).join('\n')};

export type AppType = typeof app;
export default app;
`;
  const calls = CALLED.map(
    (i) => `
  {
    const list = await client.r${i}.$get({ query: { limit: '10' } });
    if (list.ok) total += (await list.json()).length;
    const one = await client.r${i}[':id'].$get({ param: { id: '1' } });
    if (one.ok) names.push((await one.json()).name);
    else codes.push(one.status);
    const made = await client.r${i}.$post({ json: { name: 'n', price: 1, tags: [], active: true } });
    if (made.ok) total += (await made.json()).id;
    const changed = await client.r${i}[':id'].$patch({ param: { id: '1' }, json: { name: 'n', price: 2, tags: ['a'], active: false } });
    if (changed.ok) names.push((await changed.json()).name);
    const gone = await client.r${i}[':id'].$delete({ param: { id: '1' } });
    if (!gone.ok) codes.push(gone.status);
  }`,
  );
  return project('hono', {
    'server.ts': server,
    'client.ts': clientModule(
      `import { hc } from 'hono/client';
import type { AppType } from './server.js';

const client = hc<AppType>('http://localhost:8000');`,
      calls,
    ),
  });
}

// ---------------------------------------------------------------------------------------------
// Measuring: wall time around the child, peak memory from the child's own resource usage.

interface Measure {
  seconds: number;
  /** User and system CPU of tsc: less sensitive than wall time to other load on the machine. */
  cpu: number;
  peakMB: number;
  /** From `--extendedDiagnostics`, when asked for. */
  instantiations?: number;
  checkSeconds?: number;
  types?: number;
}

const REPORT_USAGE = `process.on('exit', () => { require('node:fs').writeSync(2, '\\n@@usage ' + JSON.stringify(process.resourceUsage()) + '\\n'); });`;

function typecheck(dir: string, diagnostics = false): Promise<Measure> {
  const preload = join(work, 'usage.cjs');
  writeFileSync(preload, REPORT_USAGE);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const flags = diagnostics ? ['--extendedDiagnostics'] : [];
    const child = spawn(process.execPath, ['-r', preload, tsc, '-p', join(dir, 'tsconfig.json'), ...flags], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      const seconds = (performance.now() - started) / 1000;
      const usage = /@@usage (.+)/.exec(out);
      if (code !== 0 || !usage) return reject(new Error(`tsc failed in ${dir} (exit ${code}):\n${out.slice(0, 4000)}`));
      const used = JSON.parse(usage[1]!) as NodeJS.ResourceUsage;
      const figure = (name: string) => {
        const match = new RegExp(`^${name}:\\s+([\\d.]+)`, 'm').exec(out);
        return match ? Number(match[1]) : undefined;
      };
      resolve({
        seconds,
        cpu: (used.userCPUTime + used.systemCPUTime) / 1e6,
        peakMB: used.maxRSS / 1024,
        instantiations: figure('Instantiations'),
        checkSeconds: figure('Check time'),
        types: figure('Types'),
      });
    });
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

mkdirSync(work, { recursive: true });
const tsVersion = require('typescript/package.json').version;
if (!args['servers-only']) await clientBench();
await serverBench();

async function clientBench(): Promise<void> {
  console.log(`Generating two client projects over ${ENDPOINTS} endpoints, 20 operations called…`);
  const dirs = { ...(await fnapiProjects()), hono: honoProject() };
  type Name = keyof typeof dirs;
  const names: Name[] = ['fnapi', 'fnapiTs', 'hono'];
  const results = { fnapi: [], fnapiTs: [], hono: [] } as Record<Name, Measure[]>;
  // Alternated, so that a change in the machine's load falls on all.
  for (let run = 0; run < RUNS; run++) {
    for (const name of names) {
      const measure = await typecheck(dirs[name]);
      results[name].push(measure);
      console.log(
        `  run ${run + 1}/${RUNS}  ${name.padEnd(7)}  ${measure.seconds.toFixed(2)} s wall  ${measure.cpu.toFixed(2)} s CPU  ${measure.peakMB.toFixed(0)} MB`,
      );
    }
  }
  const summary = (name: Name): Measure => ({
    seconds: median(results[name].map((m) => m.seconds)),
    cpu: median(results[name].map((m) => m.cpu)),
    peakMB: median(results[name].map((m) => m.peakMB)),
  });
  const fnapi = summary('fnapi');
  const fnapiTs = summary('fnapiTs');
  const hono = summary('hono');
  const ratio = fnapi.seconds / hono.seconds;
  const goal = ratio <= 0.5 && fnapi.seconds < 5;
  const row = (label: string, m: Measure) => `| ${label} | ${m.seconds.toFixed(2)} s | ${m.cpu.toFixed(2)} s | ${m.peakMB.toFixed(0)} MB |`;

  const section = [
    '## Type-check: a typed client of a 1,000-endpoint app',
    '',
    `Generated by \`pnpm bench:typecheck\` (bench/typecheck.ts) on ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}: ` +
      `\`tsc --noEmit\` (TypeScript ${tsVersion}, strict) of a client project calling 20 operations of a ${ENDPOINTS}-endpoint app, ` +
      `median of ${RUNS} alternated runs; peak memory is the tsc process's maximum resident set size.`,
    '',
    '| client | tsc wall time | tsc CPU time | peak memory |',
    '|---|---:|---:|---:|',
    row('fnapi: `fnapi client -o api.d.ts` (openapi-typescript) + openapi-fetch', fnapi),
    row('fnapi, the same types as `api.ts` (checked in full)', fnapiTs),
    row('Hono: `hc<AppType>` over `@hono/zod-validator` routes', hono),
    '',
    `fnapi / Hono: wall time **${ratio.toFixed(2)}**, CPU time ${(fnapi.cpu / hono.cpu).toFixed(2)}, memory ${(fnapi.peakMB / hono.peakMB).toFixed(2)}. ` +
      `Goal (at most half of Hono's time and under 5 s): **${goal ? 'met' : 'not met'}**` +
      (goal ? '.' : ` (CPU time ${fnapi.cpu.toFixed(2)} s; wall time on this shared machine includes waiting for a core).`),
    `Load average at the end of the run: ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores (wall time grows with it; CPU time much less).`,
    '',
    'Both projects use `strict` and `skipLibCheck` (the usual setting): the generated `api.d.ts` is read, not checked',
    "line by line, as with any library's declarations; the `api.ts` row checks it in full. Hono's project checks its",
    'server module, whose route chain (one chained sub-app per resource, mounted with `.route()`) is what `hc` infers from.',
  ].join('\n');
  console.log(`\n${section}`);
  if (!args['no-write']) replaceSection(join(here, 'RESULTS.md'), '## Type-check', section);
}

// ---------------------------------------------------------------------------------------------
// The server side: a hello world and a 100-endpoint app as written, with --extendedDiagnostics.

async function serverBench(): Promise<void> {
  const projects = {
    helloFnapi: project('hello-fnapi', { 'app.ts': HELLO_FNAPI }),
    helloHono: project('hello-hono', { 'app.ts': HELLO_HONO }),
    app100Fnapi: project('app100-fnapi', { 'app.ts': app100Fnapi() }),
    app100Hono: project('app100-hono', { 'app.ts': app100Hono() }),
  };
  type Server = keyof typeof projects;
  const order: Server[] = ['helloFnapi', 'helloHono', 'app100Fnapi', 'app100Hono'];
  const measured = { helloFnapi: [], helloHono: [], app100Fnapi: [], app100Hono: [] } as Record<Server, Measure[]>;
  console.log('\nType-checking the endpoints as written (hello world, 100 endpoints), fnapi beside Hono…');
  for (let run = 0; run < RUNS; run++) {
    for (const name of order) {
      const m = await typecheck(projects[name], true);
      measured[name].push(m);
      console.log(
        `  run ${run + 1}/${RUNS}  ${name.padEnd(11)}  ${m.instantiations} instantiations  check ${m.checkSeconds?.toFixed(2)} s  ` +
          `${m.cpu.toFixed(2)} s CPU  ${m.peakMB.toFixed(0)} MB`,
      );
    }
  }
  const of = (name: Server) => ({
    instantiations: measured[name][0]!.instantiations ?? 0,
    types: measured[name][0]!.types ?? 0,
    check: median(measured[name].map((m) => m.checkSeconds ?? 0)),
    cpu: median(measured[name].map((m) => m.cpu)),
    peakMB: median(measured[name].map((m) => m.peakMB)),
  });
  const line = (label: string, name: Server) => {
    const m = of(name);
    return `| ${label} | ${m.instantiations.toLocaleString('en-US')} | ${m.types.toLocaleString('en-US')} | ${m.check.toFixed(2)} s | ${m.cpu.toFixed(2)} s | ${m.peakMB.toFixed(0)} MB |`;
  };
  const hello = { fnapi: of('helloFnapi'), hono: of('helloHono') };
  const app100 = { fnapi: of('app100Fnapi'), hono: of('app100Hono') };
  const helloGoal = hello.fnapi.instantiations <= 10_000 && hello.fnapi.check <= 2 * hello.hono.check;
  const appGoal = app100.fnapi.check <= app100.hono.check;
  const section = [
    '## Type-check: endpoints as written',
    '',
    `Generated by \`pnpm bench:typecheck\` (bench/typecheck.ts, projects from bench/typecheck-servers.ts) on ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}: ` +
      `\`tsc --noEmit --extendedDiagnostics\` (TypeScript ${tsVersion}, strict, skipLibCheck), median of ${RUNS} alternated runs ` +
      '(instantiation and type counts do not vary between runs).',
    '',
    '| project | instantiations | types | check time | tsc CPU time | peak memory |',
    '|---|---:|---:|---:|---:|---:|',
    line("fnapi hello world: `app.get('/hello/{name}', { params, response }, handler)`", 'helloFnapi'),
    line('Hono 4 + `@hono/zod-validator`, the same endpoint', 'helloHono'),
    line('fnapi, 100 endpoints (20 routers; zod params of every source, response models, `jwtRequired`)', 'app100Fnapi'),
    line('Hono, the same 100 endpoints (`.route()` sub-apps, `zValidator` per source, `jwt()`)', 'app100Hono'),
    '',
    `Hello world: fnapi ÷ Hono check time **${(hello.fnapi.check / hello.hono.check).toFixed(2)}**, ` +
      `${hello.fnapi.instantiations.toLocaleString('en-US')} instantiations. Goal (≤ 10,000 instantiations and ≤ 2× Hono's check time): **${helloGoal ? 'met' : 'not met'}**.`,
    `100 endpoints: fnapi ÷ Hono check time **${(app100.fnapi.check / app100.hono.check).toFixed(2)}**, instantiations ` +
      `${(app100.fnapi.instantiations / app100.hono.instantiations).toFixed(2)}. Goal (no slower than Hono): **${appGoal ? 'met' : 'not met'}**.`,
    `Load average at the end of the run: ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores (check time is wall time inside tsc; it grows with load, instantiations do not).`,
  ].join('\n');
  console.log(`\n${section}`);
  if (!args['no-write']) replaceSection(join(here, 'RESULTS.md'), '## Type-check: endpoints as written', section);
}
process.exitCode = 0;
