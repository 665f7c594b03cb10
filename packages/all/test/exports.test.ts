/**
 * `@fnapi/all` re-exports every public name of every published runtime package, as the same values:
 * the list of packages is read from the workspace, so a new package that is not added here fails.
 * `@fnapi/dev` (the `fnapi` command, with tsx and esbuild) stays out: a development dependency.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const DEV = '@fnapi/dev';
const packagesDir = join(dirname(fileURLToPath(import.meta.url)), '../..');
const published = readdirSync(packagesDir)
  .map((dir) => JSON.parse(readFileSync(join(packagesDir, dir, 'package.json'), 'utf8')) as { name: string; private?: boolean })
  .filter((pkg) => !pkg.private && pkg.name !== '@fnapi/all' && pkg.name !== DEV)
  .map((pkg) => pkg.name)
  .sort();

describe('@fnapi/all', () => {
  it('depends on every published package', () => {
    const own = JSON.parse(readFileSync(join(packagesDir, 'all/package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(Object.keys(own.dependencies).sort()).toEqual(published);
  });

  it('brings no build tool into production: no @fnapi/dev, tsx or esbuild among its dependencies', () => {
    const own = JSON.parse(readFileSync(join(packagesDir, 'all/package.json'), 'utf8')) as { dependencies: Record<string, string> };
    for (const name of [DEV, 'tsx', 'esbuild']) expect(own.dependencies).not.toHaveProperty(name);
  });

  it('exports the union of the packages’ exports, as the same values', async () => {
    const all = (await import('../src/index.js')) as Record<string, unknown>;
    const union = new Map<string, unknown>();
    for (const name of published) {
      const module = (await import(name)) as Record<string, unknown>;
      for (const [key, value] of Object.entries(module)) {
        const seen = union.get(key);
        // Core's Middleware is a type only; every runtime name is owned by one binding.
        if (seen !== undefined && seen !== value) throw new Error(`${key} has two different values across packages`);
        union.set(key, value);
      }
    }
    expect(Object.keys(all).sort()).toEqual([...union.keys()].sort());
    for (const [key, value] of union) expect(all[key], key).toBe(value);
  });
});
