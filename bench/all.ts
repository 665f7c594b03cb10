// `pnpm bench`: the runner (run.ts) with every flag given, then — for a full run of the default
// format — the start-up, Lambda cold-start and type-check measurements, each replacing its own
// section of RESULTS.md. One entry point, so that flags reach run.ts (a `&&` chain in package.json
// would hand them to its last command only).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

const args = process.argv.slice(2).filter((a, i) => !(i === 0 && a === '--'));

function tsx(script: string, scriptArgs: string[]): number {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(here, script), ...scriptArgs], { cwd: here, stdio: 'inherit' });
  return r.status ?? 1;
}

const code = tsx('run.ts', args);
const has = (flag: string) => args.some((a) => a === flag || a.startsWith(`${flag}=`));
const at = args.indexOf('--format');
const format = args.find((a) => a.startsWith('--format='))?.slice(9) ?? (at === -1 ? undefined : args[at + 1]) ?? process.env.BENCH_FORMAT;
const onlyRunner =
  (format !== undefined && format !== '' && format !== 'default') ||
  has('--quick') ||
  has('--check-only') ||
  has('--help') ||
  has('-h') ||
  /^(1|true|yes)$/i.test(process.env.BENCH_QUICK ?? '');
if (code !== 0 || onlyRunner) process.exit(code);

const noWrite = has('--no-write') ? ['--no-write'] : [];
for (const [script, extra] of [
  ['startup.ts', [...noWrite, ...(has('--source') ? ['--source'] : [])]],
  ['coldstart.ts', noWrite],
  ['typecheck.ts', noWrite],
] as const) {
  const c = tsx(script, [...extra]);
  if (c !== 0) process.exit(c);
}
