/**
 * The one way to Node's built-ins (`@fnapi/validation/builtins`) on the real runtimes: Bun and Deno
 * have every built-in fnapi reaches; a Worker without nodejs_compat loads the helper and has none,
 * and `builtin` then says which runtime lacks what and what would provide it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadMiniflare, runtimeAvailable, runtimeBinary } from '@fnapi/test-support';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN_NAMES, type BuiltinsReport, builtinsReport } from './builtins-probe.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'fnapi-builtins-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The probe bundled as a Worker module (esbuild as wrangler runs it) or as a script that prints its report. */
async function bundle(kind: 'worker' | 'script'): Promise<string> {
  const outfile = join(dir, `${kind}.mjs`);
  const contents =
    kind === 'worker'
      ? "import { builtinsReport } from './builtins-probe.ts'; export default { fetch: () => Response.json(builtinsReport()) };"
      : "import { builtinsReport } from './builtins-probe.ts'; console.log(JSON.stringify(builtinsReport()));";
  await build({
    stdin: { contents, resolveDir: here, loader: 'ts' },
    outfile,
    bundle: true,
    format: 'esm',
    logLevel: 'error',
    ...(kind === 'worker'
      ? { platform: 'neutral', conditions: ['@fnapi/source', 'workerd', 'worker', 'browser'], mainFields: ['browser', 'module', 'main'] }
      : { platform: 'node', conditions: ['@fnapi/source'] }),
  });
  return outfile;
}

let script = '';
let worker = '';
beforeAll(async () => {
  [script, worker] = await Promise.all([bundle('script'), bundle('worker')]);
});

function runScript(command: string, args: string[]): BuiltinsReport {
  const result = spawnSync(command, [...args, script], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, NO_COLOR: '1' },
  });
  if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').pop()!) as BuiltinsReport;
}

async function onWorker(compatibilityFlags: string[]): Promise<BuiltinsReport> {
  const { Miniflare } = await loadMiniflare();
  const mf = new Miniflare({ modules: true, script: readFileSync(worker, 'utf8'), compatibilityDate: '2025-09-01', compatibilityFlags });
  try {
    return (await (await mf.dispatchFetch('http://localhost/')).json()) as BuiltinsReport;
  } finally {
    await mf.dispose();
  }
}

const everyOne = { found: BUILTIN_NAMES, errors: {}, joined: 'a/b' };

describe('Node built-ins through the one helper', () => {
  it('Node has every one', () => {
    expect(builtinsReport()).toEqual({ runtime: 'node', ...everyOne });
    expect(runScript(process.execPath, [])).toEqual({ runtime: 'node', ...everyOne });
  });

  it.skipIf(!runtimeAvailable('bun', 'the built-ins test'))('Bun has every one', () => {
    expect(runScript(runtimeBinary('bun')!, [])).toEqual({ runtime: 'bun', ...everyOne });
  });

  it.skipIf(!runtimeAvailable('deno', 'the built-ins test'))('Deno has every one', () => {
    expect(runScript(runtimeBinary('deno')!, ['run', '-A'])).toEqual({ runtime: 'deno', ...everyOne });
  });

  it('a Worker without nodejs_compat loads the helper, finds none, and is told what would provide them', async () => {
    const report = await onWorker([]);
    expect(report.runtime).toBe('workerd');
    expect(report.found).toEqual([]);
    expect(report.joined).toBeNull();
    expect(report.errors).toEqual(
      Object.fromEntries(
        BUILTIN_NAMES.map((name) => [
          name,
          `${name} is not available on workerd (Cloudflare Workers) without the nodejs_compat compatibility flag, which provides most Node built-ins`,
        ]),
      ),
    );
  });

  it('a Worker with nodejs_compat finds what workerd implements, and is told what it lacks', async () => {
    const report = await onWorker(['nodejs_compat']);
    expect(report.runtime).toBe('workerd');
    expect(report.joined).toBe('a/b');
    // What core, auth and middleware use on a Worker when the flag is on.
    expect(report.found).toEqual(expect.arrayContaining(['node:async_hooks', 'node:crypto', 'node:events', 'node:stream', 'node:zlib']));
    // The others (node:cluster and node:os, at the least): each named with the runtime.
    const missing = BUILTIN_NAMES.filter((name) => !report.found.includes(name));
    expect(missing).toEqual(expect.arrayContaining(['node:cluster', 'node:os']));
    expect(report.errors).toEqual(
      Object.fromEntries(
        missing.map((name) => [name, `${name} is not available on workerd (Cloudflare Workers) at this compatibility date and flags`]),
      ),
    );
  });
});
