// Cold-start benchmark for AWS Lambda: a fresh Node process imports a Lambda entry and answers its
// first HTTP API (v2) event. fnapi runs examples/serverless/src/lambda.ts; Hono runs the same routes
// through `hono/aws-lambda` (coldstart/hono-lambda.ts). Both are bundled the way Lambda deployments
// are (esbuild, ESM, minified) with code splitting: what an entry loads with `import()` (fnapi's
// multipart parser, file-type; Hono has none) goes into files of its own beside the entry, read only
// when first used. --one-file bundles into one file instead, as esbuild does without splitting. Run
// interleaved, reported as the median of the runs.
// Appends (or replaces) the "Cold start" section of RESULTS.md.
//
// --instructions adds instruction counts (valgrind's callgrind, whole processes): "import" is a process
// that imports the bundle less one that imports an empty module (Node's own start), "import + first
// event" the whole cold start less the same. Unlike the times they do not move with the machine's
// load. --runs 0 leaves the times out.
//
//   pnpm --filter @fnapi/bench coldstart [-- --runs 15 --instructions --instruction-runs 3 --one-file --routes 100 --no-write]
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { replaceSection } from './report.js';

const here = dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({
  args: process.argv.slice(2).filter((a, i) => !(i === 0 && a === '--')),
  options: {
    runs: { type: 'string', default: '15' },
    instructions: { type: 'boolean', default: false },
    'instruction-runs': { type: 'string', default: '3' },
    'one-file': { type: 'boolean', default: false },
    routes: { type: 'string', default: '0' },
    'no-write': { type: 'boolean', default: false },
  },
});
const runs = Number(args.runs);
const instructionRuns = Number(args['instruction-runs']);
if (!(runs >= 0 && instructionRuns >= 1)) throw new Error('--runs takes a number ≥ 0, --instruction-runs one ≥ 1');
if (runs === 0 && !args.instructions) throw new Error('--runs 0 measures nothing without --instructions');
if (args.instructions) requireValgrind();
const out = join(here, '.coldstart');
mkdirSync(out, { recursive: true });

// --routes N: the same entries with N more endpoints (coldstart/*-routes.ts), for what each endpoint adds.
const extraRoutes = Number(args.routes);
if (!(Number.isInteger(extraRoutes) && extraRoutes >= 0)) throw new Error('--routes takes a whole number ≥ 0');
const FRAMEWORKS = [
  {
    name: 'fnapi (LambdaAdapter)',
    entry:
      extraRoutes > 0 ? join(here, 'coldstart', 'fnapi-lambda-routes.ts') : join(here, '..', 'examples', 'serverless', 'src', 'lambda.ts'),
  },
  { name: 'Hono (hono/aws-lambda)', entry: join(here, 'coldstart', extraRoutes > 0 ? 'hono-lambda-routes.ts' : 'hono-lambda.ts') },
];
const PATHS = ['/hello', '/users/1/posts/2'];

// ESM bundles of CommonJS packages need `require`; this is the banner Lambda's esbuild recipes use.
const banner = "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";
const oneFile = args['one-file'];
/** Each framework's entry file, and the bytes of the entry and of everything bundled with it. */
const bundles = new Map<string, { file: string; entryBytes: number; bytes: number }>();
for (const fw of FRAMEWORKS) {
  const dir = join(out, fw.name.split(' ')[0]!.toLowerCase());
  rmSync(dir, { recursive: true, force: true });
  const result = await build({
    entryPoints: [fw.entry],
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    splitting: !oneFile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    minify: true,
    banner: { js: banner },
    logLevel: 'error',
    metafile: true,
  });
  const outputs = Object.entries(result.metafile.outputs);
  const [entryPath, entry] = outputs.find(([, output]) => output.entryPoint !== undefined)!;
  bundles.set(fw.name, {
    file: resolve(entryPath),
    entryBytes: entry.bytes,
    bytes: outputs.reduce((sum, [, output]) => sum + output.bytes, 0),
  });
}

interface Sample {
  importMs: number;
  firstEventMs: number;
  totalMs: number;
}

const firstEvent = join(here, 'coldstart', 'first-event.mjs');
const lambdaEnv = { ...process.env, NODE_ENV: 'production', AWS_LAMBDA_FUNCTION_NAME: 'coldstart', COLDSTART_ROUTES: String(extraRoutes) };

function once(file: string, path: string): Sample {
  const result = spawnSync(process.execPath, [firstEvent, pathToFileURL(file).href, path], {
    encoding: 'utf8',
    timeout: 60_000,
    env: lambdaEnv,
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

// Instruction counts: each process runs under callgrind, which counts every instruction of every
// thread. --random-seed fixes V8's hash seed (hash tables then fill the same way every run, and runs
// agree within 0.1 %); --no-memory-reducer keeps V8's timer-driven idle collections, which land at
// random under valgrind's slowdown, out. NODE_EXTRA_CA_CERTS is left out: Node parses those
// certificates at start in every process alike, baseline included, and only slows the count down.
const COUNT_FLAGS = ['--no-memory-reducer', '--random-seed=1'];
const countEnv: NodeJS.ProcessEnv = { ...lambdaEnv };
delete countEnv.NODE_EXTRA_CA_CERTS;

function requireValgrind(): void {
  const probe = spawnSync('valgrind', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    process.stderr.write('--instructions needs valgrind (callgrind) on the PATH: on Debian or Ubuntu, apt-get install valgrind\n');
    process.exit(1);
  }
}

/** Instructions of one whole `first-event.mjs` process (the import alone without a path). */
function countOnce(file: string, path?: string): number {
  const dir = mkdtempSync(join(tmpdir(), 'coldstart-callgrind-'));
  try {
    const result = spawnSync(
      'valgrind',
      [
        '--tool=callgrind',
        `--callgrind-out-file=${join(dir, 'out.%p')}`,
        process.execPath,
        ...COUNT_FLAGS,
        firstEvent,
        pathToFileURL(file).href,
        ...(path === undefined ? [] : [path]),
      ],
      { encoding: 'utf8', timeout: 600_000, env: countEnv },
    );
    if (result.error || result.status !== 0) throw new Error(`counting ${file} failed: ${result.error?.message ?? result.stderr}`);
    let total = 0;
    for (const name of readdirSync(dir)) {
      const line = readFileSync(join(dir, name), 'utf8').match(/^totals: (\d+)/m);
      if (line) total += Number(line[1]);
    }
    if (total === 0) throw new Error(`callgrind wrote no totals for ${file}`);
    return total;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function count(file: string, path?: string): number {
  return median(Array.from({ length: instructionRuns }, () => countOnce(file, path)));
}

const counts = new Map<string, { import: number; event: Map<string, number> }>();
if (args.instructions) {
  const empty = join(out, 'empty.mjs');
  writeFileSync(empty, 'export const handler = undefined;\n');
  const baseline = count(empty);
  for (const fw of FRAMEWORKS) {
    const file = bundles.get(fw.name)!.file;
    const entry = { import: count(file) - baseline, event: new Map<string, number>() };
    for (const path of PATHS) entry.event.set(path, count(file, path) - baseline);
    counts.set(fw.name, entry);
    process.stdout.write(`counted ${fw.name}\n`);
  }
}

const ms = (x: number) => `${x.toFixed(1)} ms`;
const mi = (x: number) => `${(x / 1e6).toFixed(1)} M`;
const timed = runs > 0;
const counted = counts.size > 0;
const rows: string[] = [];
const totals = new Map<string, number>();
for (const path of PATHS) {
  for (const fw of FRAMEWORKS) {
    const cells = [`GET ${path}`, fw.name];
    if (timed) {
      const xs = samples.get(`${fw.name} ${path}`)!;
      const total = median(xs.map((s) => s.totalMs));
      totals.set(`${fw.name} ${path}`, total);
      cells.push(ms(median(xs.map((s) => s.importMs))), ms(median(xs.map((s) => s.firstEventMs))), ms(total));
    }
    if (counted) {
      const c = counts.get(fw.name)!;
      cells.push(mi(c.import), mi(c.event.get(path)!));
    }
    const { entryBytes, bytes } = bundles.get(fw.name)!;
    const kib = (n: number) => `${(n / 1024).toFixed(0)} KiB`;
    cells.push(entryBytes === bytes ? kib(bytes) : `${kib(entryBytes)} (${kib(bytes)} in all)`);
    rows.push(`| ${cells.join(' | ')} |`);
  }
}
const [ours, theirs] = FRAMEWORKS.map((fw) => fw.name) as [string, string];
const verdict = (what: string, a: number, b: number, unit: string) =>
  `${what}: fnapi ${(a / b).toFixed(2)}× Hono's ${unit} (${a <= b ? 'at or below' : 'above'} Hono)`;
const verdicts = [
  ...(timed ? PATHS.map((path) => verdict(`GET ${path}`, totals.get(`${ours} ${path}`)!, totals.get(`${theirs} ${path}`)!, 'time')) : []),
  ...(counted
    ? [
        verdict('Import', counts.get(ours)!.import, counts.get(theirs)!.import, 'instructions'),
        ...PATHS.map((path) =>
          verdict(`Import + GET ${path}`, counts.get(ours)!.event.get(path)!, counts.get(theirs)!.event.get(path)!, 'instructions'),
        ),
      ]
    : []),
];
const headers = [
  'first event',
  'entry',
  ...(timed ? ['import', 'first event', 'total'] : []),
  ...(counted ? ['import, instructions', 'import + first event, instructions'] : []),
  'bundle',
];
const title = extraRoutes > 0 ? `## Cold start (AWS Lambda), ${extraRoutes} more endpoints` : '## Cold start (AWS Lambda)';
const section = [
  title,
  '',
  ...(extraRoutes > 0
    ? [
        `The entries below with ${extraRoutes} more endpoints each (\`bench/coldstart/*-routes.ts\`): half GETs with path and`,
        'query parameters, half POSTs with a body model.',
        '',
      ]
    : []),
  'A fresh Node process imports the Lambda entry and answers its first HTTP API (v2) event: fnapi',
  '`examples/serverless/src/lambda.ts` (LambdaAdapter) beside the same routes in Hono through',
  '`hono/aws-lambda` (`bench/coldstart/hono-lambda.ts`), both validating with zod and bundled as for a',
  oneFile
    ? 'Lambda deployment (esbuild, ESM, minified), each into one file.'
    : 'Lambda deployment (esbuild, ESM, minified) with code splitting: modules loaded with `import()` go into files beside the entry, read when first used (the bundle column: the entry, and all files).',
  ...(timed ? [`"Total" is the time from process start to the answer. Interleaved, median of ${runs} runs.`] : []),
  ...(counted
    ? [
        `Instructions (\`--instructions\`, valgrind's callgrind, median of ${instructionRuns}): a whole process`,
        'less one importing an empty module, that is, the import alone and the import with the first event.',
      ]
    : []),
  `${new Date().toISOString().slice(0, 10)}.`,
  '',
  `| ${headers.join(' | ')} |`,
  `|---|---|${headers
    .slice(2)
    .map(() => '---:|')
    .join('')}`,
  ...rows,
  '',
  ...verdicts.map((v) => `- ${v}`),
  '',
].join('\n');
process.stdout.write(`\n${section}`);

if (!args['no-write']) replaceSection(join(here, 'RESULTS.md'), title, section);
