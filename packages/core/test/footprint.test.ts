/**
 * What importing core costs: the optional packages (pino, busboy, proxy-addr, undici, file-type) load
 * only when an app needs them, unbundled and in a single-file bundle (esbuild, as Lambda deployments
 * are built), and the bundle keeps zod's modules unwrapped (a dynamic import() of a core module would
 * make esbuild wrap everything it reaches, zod included, in initializers that all run at start).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';

const probe = fileURLToPath(new URL('./fixtures/load-probe.ts', import.meta.url));
const coreDir = fileURLToPath(new URL('..', import.meta.url));

function run(args: string[]): Record<string, string[]> {
  const result = spawnSync(process.execPath, args, { cwd: coreDir, encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) throw new Error(`probe failed: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').pop()!) as Record<string, string[]>;
}

const packagesOnly = (list: string[]) => list.filter((name) => !name.startsWith('node:'));

describe('loading core (unbundled)', () => {
  it('loads pino, busboy, proxy-addr and undici only when the app needs them', () => {
    const report = run(['--import', 'tsx', '--conditions=@fnapi/source', probe, 'upload', 'log', 'trust']);
    expect(packagesOnly(report.import!)).toEqual([]);
    // An app that does not log answers without making a logger.
    expect(packagesOnly(report.hello!)).toEqual([]);
    expect(packagesOnly(report.upload!)).toEqual(['@fastify/busboy']);
    expect(packagesOnly(report.log!)).toEqual(['pino', '@fastify/busboy']);
    expect(packagesOnly(report.trust!)).toEqual(['pino', '@fastify/busboy', 'proxy-addr']);
  });
});

describe('loading core from a single-file bundle', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fnapi-footprint-'));
  const bundle = join(dir, 'probe.mjs');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('bundles zod unwrapped and loads node:crypto and pino only when used, uploads and logs still working', async () => {
    await build({
      entryPoints: [probe],
      outfile: bundle,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      conditions: ['@fnapi/source'],
      banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
      logLevel: 'error',
    });
    const text = readFileSync(bundle, 'utf8');
    expect(text).toContain('zod/v4/core/core.js');
    expect(text).not.toMatch(/__esm\(\{\s*"[^"]*\/zod\//);
    // The problem-body schemas are built for a document only: their constants, which would build
    // them at load, are left out of a bundle that does not import them.
    expect(text).toContain('function validationProblemSchema(');
    expect(text).not.toMatch(/\b(ValidationProblemSchema|ProblemDetailsSchema)\b/);

    const report = run([bundle, 'upload', 'log']);
    for (const step of ['import', 'hello']) {
      expect(report[step]).not.toContain('node:crypto');
      expect(report[step]).not.toContain('node:worker_threads');
      // Nor the server's or file-type's built-ins, which a bundle would load with the function.
      expect(report[step]).not.toContain('node:http');
      expect(report[step]).not.toContain('node:stream/web');
    }
    // pino starts its transport machinery (thread-stream → worker_threads) once a logger is made.
    expect(report.log).toContain('node:worker_threads');
  });
});

describe('a Worker bundle (esbuild as wrangler runs it, without nodejs_compat)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fnapi-worker-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('builds core, validation, openapi, auth and middleware with no Node built-in and no Node-only package', async () => {
    const outfile = join(dir, 'worker.mjs');
    // Platform neutral: an import of a Node built-in, anywhere in the graph, fails the build.
    const result = await build({
      entryPoints: [fileURLToPath(new URL('./fixtures/worker-entry.ts', import.meta.url))],
      outfile,
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      conditions: ['@fnapi/source', 'workerd', 'worker', 'browser'],
      mainFields: ['browser', 'module', 'main'],
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    for (const name of ['pino', '@fastify/busboy', 'thread-stream', 'sonic-boom']) {
      expect(inputs.filter((path) => path.includes(`/node_modules/${name}/`))).toEqual([]);
    }
    // The Web fallbacks are what the bundle holds: console logger and the platform's form parser.
    expect(inputs.some((path) => path.endsWith('platform/logger-console.ts'))).toBe(true);
    expect(inputs.some((path) => path.endsWith('read-form-web.ts'))).toBe(true);
    expect(readFileSync(outfile, 'utf8')).not.toMatch(/\bfrom\s*["']node:/);
  });
});
