// Start-up benchmark: time from creating the app to its first answered request, with 1,000 and
// 10,000 endpoints, fnapi beside Fastify, each run in a fresh process, interleaved; the median of
// several runs. Appends (or replaces) the "Start-up" section of RESULTS.md.
//
//   pnpm --filter @fnapi/bench startup [-- --runs 5 --sizes 1000,10000 --no-write]
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { replaceSection } from './report.js';

const here = dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({
  args: process.argv.slice(2).filter((a, i) => !(i === 0 && a === '--')),
  options: {
    runs: { type: 'string', default: '3' },
    sizes: { type: 'string', default: '1000,10000' },
    source: { type: 'boolean', default: false },
    timeout: { type: 'string', default: '120' },
    'no-write': { type: 'boolean', default: false },
  },
});
const runs = Number(args.runs);
const sizes = args.sizes.split(',').map(Number);
const timeoutMs = Number(args.timeout) * 1000;
const FRAMEWORKS = [
  { name: 'fnapi', file: 'startup/fnapi.ts' },
  { name: 'Fastify', file: 'startup/fastify.ts' },
];

/** One fresh process: milliseconds from app creation to the first answer, or undefined on timeout. */
function once(file: string, size: number): number | undefined {
  const nodeArgs = ['--import', 'tsx', ...(args.source ? ['--conditions=@fnapi/source'] : []), join(here, file), String(size)];
  const result = spawnSync(process.execPath, nodeArgs, {
    cwd: here,
    encoding: 'utf8',
    timeout: timeoutMs,
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (result.error || result.status !== 0) {
    if (result.signal === 'SIGTERM') return undefined;
    throw new Error(`${file} ${size} failed: ${result.error?.message ?? result.stderr}`);
  }
  return JSON.parse(result.stdout.trim().split('\n').pop()!).ms as number;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

const samples = new Map<string, (number | undefined)[]>();
for (let run = 0; run < runs; run++) {
  for (const size of sizes) {
    // Interleaved, with the first framework rotating from run to run.
    const order = run % 2 === 0 ? FRAMEWORKS : [...FRAMEWORKS].reverse();
    for (const fw of order) {
      const key = `${fw.name} ${size}`;
      const ms = once(fw.file, size);
      samples.set(key, [...(samples.get(key) ?? []), ms]);
      process.stdout.write(`${key}: ${ms === undefined ? 'timed out' : `${ms.toFixed(0)} ms`}\n`);
    }
  }
}

const fmt = (ms: number | undefined) => (ms === undefined ? 'timed out' : `${(ms / 1000).toFixed(2)} s`);
const medianOf = (key: string): number | undefined => {
  const xs = samples.get(key) ?? [];
  return xs.some((x) => x === undefined) ? undefined : median(xs as number[]);
};
const rows = FRAMEWORKS.map((fw) => {
  const cells = sizes.map((size) => fmt(medianOf(`${fw.name} ${size}`)));
  const small = medianOf(`${fw.name} ${sizes[0]}`);
  const large = medianOf(`${fw.name} ${sizes[sizes.length - 1]}`);
  const growth = small && large ? `${(large / small).toFixed(1)}×` : '—';
  return `| ${fw.name} | ${cells.join(' | ')} | ${growth} |`;
});
const section = [
  '## Start-up',
  '',
  `Time from creating the app to its first answered request over HTTP, with N GET endpoints, each with one`,
  `integer path parameter and one optional query string (fnapi: \`z.int()\`; Fastify: an Ajv schema per route).`,
  `Fresh process per run, interleaved, median of ${runs} runs; ${new Date().toISOString().slice(0, 10)}.`,
  '',
  `| framework | ${sizes.map((s) => `${s.toLocaleString('en-US')} endpoints`).join(' | ')} | ${sizes[sizes.length - 1]!.toLocaleString('en-US')} / ${sizes[0]!.toLocaleString('en-US')} |`,
  `|---|${sizes.map(() => '---:').join('|')}|---:|`,
  ...rows,
  '',
].join('\n');
process.stdout.write(`\n${section}`);

if (!args['no-write']) replaceSection(join(here, 'RESULTS.md'), '## Start-up', section);
