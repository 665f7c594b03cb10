import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REDIS_URL, serviceAvailable } from '@fnapi/test-support';
import { build } from 'esbuild';
import { createClient } from 'redis';
import { afterAll, describe, expect, it } from 'vitest';

// A bundle made with esbuild's code splitting gives import() of a CommonJS package (BullMQ,
// node-redis, prom-client) only its `default` export; the package must still find what it needs.

const here = fileURLToPath(new URL('.', import.meta.url));
const available = await serviceAvailable('Redis', REDIS_URL);
const prefix = `fnapi-jobs-bundle-${process.pid}-${randomBytes(3).toString('hex')}`;
const dir = mkdtempSync(join(tmpdir(), 'fnapi-jobs-bundle-'));

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  if (!available) return;
  const client = createClient({ url: REDIS_URL });
  client.on('error', () => {});
  await client.connect();
  const keys: string[] = [];
  for await (const batch of client.scanIterator({ MATCH: `${prefix}:*`, COUNT: 500 })) keys.push(...batch);
  if (keys.length) await client.del(keys);
  await client.quit();
});

describe.skipIf(!available)('@fnapi/jobs in a split bundle', () => {
  it('runs a job on Redis and records its metrics', async () => {
    await build({
      entryPoints: [join(here, 'fixtures', 'bundled-app.ts')],
      outdir: dir,
      outExtension: { '.js': '.mjs' },
      splitting: true,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      conditions: ['@fnapi/source'],
      banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
      logLevel: 'error',
    });
    // The packages loaded with import() are chunks of their own, not in the entry.
    expect(readdirSync(dir).length).toBeGreaterThan(2);
    const result = spawnSync(process.execPath, [join(dir, 'bundled-app.mjs')], {
      encoding: 'utf8',
      cwd: dir,
      timeout: 30_000,
      env: { ...process.env, REDIS_URL, JOBS_PREFIX: prefix },
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const out = JSON.parse(result.stdout.trim().split('\n').pop()!) as { result: number; metrics: string };
    expect(out.result).toBe(42);
    expect(out.metrics).toContain('jobs_total{job="double",state="completed"} 1');
  }, 60_000);
});
