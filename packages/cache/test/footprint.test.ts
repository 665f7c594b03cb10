/**
 * What importing `@fnapi/cache` loads of node-redis: `@redis/client` alone, never the modules the
 * `redis` package bundles (bloom, json, search, time-series) that the stores and the hub do not use.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const cacheDir = fileURLToPath(new URL('..', import.meta.url));

// Run in a fresh process: CommonJS modules loaded (node-redis is CommonJS) are in require's cache.
const probe = `
import { createRequire } from 'node:module';
await import('@fnapi/cache');
const loaded = Object.keys(createRequire(import.meta.url).cache).filter((file) => file.includes('/@redis/'));
const modules = [...new Set(loaded.map((file) => /\\/node_modules\\/(@redis\\/[^/]+)\\//.exec(file)[1]))].sort();
console.log(JSON.stringify({ modules, files: loaded.length }));
`;

describe('importing @fnapi/cache', () => {
  it('loads @redis/client and no other node-redis module', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--conditions=@fnapi/source', '--input-type=module', '-e', probe], {
      cwd: cacheDir,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout.trim().split('\n').pop()!) as { modules: string[]; files: number };
    expect(report.modules).toEqual(['@redis/client']);
  });
});
