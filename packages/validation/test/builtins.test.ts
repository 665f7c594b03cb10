/**
 * One way to Node's built-ins: `process.getBuiltinModule` is called in `src/builtins.ts` and in no
 * other source file of the repository, so every package reaches a built-in through `builtin` /
 * `nodeBuiltin`, at its point of use. (On Bun, Deno and workerd: core's test/runtimes/builtins.test.ts.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { builtin, detectRuntime, nodeBuiltin } from '../src/builtins.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const CODE = /\.(?:[cm]?[jt]s|tsx)$/;
// Not sources: installed packages, build output, and tests (this one names what it looks for).
const SKIPPED = new Set(['node_modules', 'dist', '.git', 'test']);

function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIPPED.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(path));
    else if (CODE.test(entry.name)) files.push(path);
  }
  return files;
}

describe('the one way to a Node built-in', () => {
  it('no source file but validation/src/builtins.ts calls process.getBuiltinModule', () => {
    const files = sourceFiles(root);
    // The walk sees every package's sources (a walk that saw nothing would pass the check below).
    expect(files).toEqual(
      expect.arrayContaining(
        ['core', 'auth', 'middleware', 'openapi', 'validation'].map((name) => join(root, `packages/${name}/src/index.ts`)),
      ),
    );
    const callers = files.filter((file) => readFileSync(file, 'utf8').includes('getBuiltinModule'));
    expect(callers.map((file) => relative(root, file))).toEqual(['packages/validation/src/builtins.ts']);
  });

  it('hands out Node’s own modules, typed by name', async () => {
    expect(builtin('node:path')).toBe((await import('node:path')).default);
    expect(nodeBuiltin('node:zlib')).toBe((await import('node:zlib')).default);
    expect(builtin('node:cluster').isPrimary).toBe(true);
    expect(detectRuntime()).toBe('node');
  });
});
