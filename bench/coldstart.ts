// Cold-start benchmark for AWS Lambda: a fresh Node process imports a Lambda entry and answers its
// first HTTP API (v2) event. fnapi runs examples/serverless/src/lambda.ts; Hono runs the same routes
// through `hono/aws-lambda` (coldstart/hono-lambda.ts). Both are bundled the way Lambda deployments
// are (esbuild, one ESM file, minified), run interleaved, and reported as the median of the runs.
// Appends (or replaces) the "Cold start" section of RESULTS.md.
//
//   pnpm --filter @fnapi/bench coldstart [-- --runs 15 --no-write]
import { spawnSync } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { replaceSection } from './report.js';

const here = dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({
  args: process.argv.slice(2).filter((a, i) => !(i === 0 && a === '--')),
  options: {
    runs: { type: 'string', default: '15' },
    'no-write': { type: 'boolean', default: false },
  },
});
const runs = Number(args.runs);
const out = join(here, '.coldstart');
mkdirSync(out, { recursive: true });

const FRAMEWORKS = [
  { name: 'fnapi (LambdaAdapter)', entry: join(here, '..', 'examples', 'serverless', 'src', 'lambda.ts') },
  { name: 'Hono (hono/aws-lambda)', entry: join(here, 'coldstart', 'hono-lambda.ts') },
];
const PATHS = ['/hello', '/users/1/posts/2'];

// ESM bundles of CommonJS packages need `require`; this is the banner Lambda's esbuild recipes use.
const banner = "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";
const bundles = new Map<string, { file: string; bytes: number }>();
for (const fw of FRAMEWORKS) {
  const file = join(out, `${fw.name.split(' ')[0]!.toLowerCase()}.mjs`);
  await build({
    entryPoints: [fw.entry],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    minify: true,
    banner: { js: banner },
    logLevel: 'error',
  });
  bundles.set(fw.name, { file, bytes: statSync(file).size });
}

interface Sample {
  importMs: number;
  firstEventMs: number;
  totalMs: number;
}

function once(file: string, path: string): Sample {
  const result = spawnSync(process.execPath, [join(here, 'coldstart', 'first-event.mjs'), pathToFileURL(file).href, path], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, NODE_ENV: 'production', AWS_LAMBDA_FUNCTION_NAME: 'coldstart' },
  });
  if (result.error || result.status !== 0) throw new Error(`cold start of ${file} failed: ${result.error?.message ?? result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').pop()!) as Sample;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

const samples = new Map<string, Sample[]>();
for (let run = 0; run < runs; run++) {
  const order = run % 2 === 0 ? FRAMEWORKS : [...FRAMEWORKS].reverse();
  for (const path of PATHS) {
    for (const fw of order) {
      const key = `${fw.name} ${path}`;
      samples.set(key, [...(samples.get(key) ?? []), once(bundles.get(fw.name)!.file, path)]);
    }
  }
  process.stdout.write(`run ${run + 1}/${runs} done\n`);
}

const ms = (x: number) => `${x.toFixed(1)} ms`;
const rows: string[] = [];
const totals = new Map<string, number>();
for (const path of PATHS) {
  for (const fw of FRAMEWORKS) {
    const xs = samples.get(`${fw.name} ${path}`)!;
    const total = median(xs.map((s) => s.totalMs));
    totals.set(`${fw.name} ${path}`, total);
    rows.push(
      `| GET ${path} | ${fw.name} | ${ms(median(xs.map((s) => s.importMs)))} | ${ms(median(xs.map((s) => s.firstEventMs)))} | ${ms(total)} | ${(bundles.get(fw.name)!.bytes / 1024).toFixed(0)} KiB |`,
    );
  }
}
const verdicts = PATHS.map((path) => {
  const ours = totals.get(`${FRAMEWORKS[0]!.name} ${path}`)!;
  const theirs = totals.get(`${FRAMEWORKS[1]!.name} ${path}`)!;
  return `GET ${path}: fnapi ${(ours / theirs).toFixed(2)}× Hono's time (${ours <= theirs ? 'at or below' : 'above'} Hono)`;
});
const section = [
  '## Cold start (AWS Lambda)',
  '',
  'A fresh Node process imports the Lambda entry and answers its first HTTP API (v2) event: fnapi',
  '`examples/serverless/src/lambda.ts` (LambdaAdapter) beside the same routes in Hono through',
  '`hono/aws-lambda` (`bench/coldstart/hono-lambda.ts`), both validating with zod and bundled as for a',
  `Lambda deployment (esbuild, ESM, minified). "Total" is the time from process start to the answer.`,
  `Interleaved, median of ${runs} runs; ${new Date().toISOString().slice(0, 10)}.`,
  '',
  '| first event | entry | import | first event | total | bundle |',
  '|---|---|---:|---:|---:|---:|',
  ...rows,
  '',
  ...verdicts.map((v) => `- ${v}`),
  '',
].join('\n');
process.stdout.write(`\n${section}`);

if (!args['no-write']) replaceSection(join(here, 'RESULTS.md'), '## Cold start (AWS Lambda)', section);
