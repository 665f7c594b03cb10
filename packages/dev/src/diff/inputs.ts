import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, relative, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { loadApp } from '../load.js';

/** A document that cannot be read or built (the command exits 2). */
export class DocumentInputError extends Error {
  override name = 'DocumentInputError';
}

const DOCUMENT_EXTENSIONS = new Set(['.json', '.yaml', '.yml']);

function parseDocument(text: string, source: string, extension: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = extension === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new DocumentInputError(`${source} is not valid ${extension === '.json' ? 'JSON' : 'YAML'}: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !('openapi' in value || 'paths' in value)) {
    throw new DocumentInputError(`${source} is not an OpenAPI document (no "openapi" or "paths" at its top level)`);
  }
  return value as Record<string, unknown>;
}

async function documentOfEntry(entry: string, source: string): Promise<Record<string, unknown>> {
  try {
    const app = await loadApp(entry);
    return app.openapi();
  } catch (error) {
    throw new DocumentInputError(`${source}: the app could not be loaded or documented: ${(error as Error).message}`);
  }
}

function git(args: string[], cwd: string): string {
  try {
    return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
    throw new DocumentInputError(`git ${args.join(' ')} failed${stderr ? `: ${stderr}` : ''}`);
  }
}

/**
 * Links every `node_modules` directory of the checkout at `from` into the same place under `to` (where
 * that directory exists), so an entry checked out at another commit imports the current dependencies.
 */
function linkNodeModules(from: string, to: string, depth = 0): void {
  if (depth > 6) return;
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.name === 'node_modules' && (entry.isDirectory() || entry.isSymbolicLink())) {
      if (!existsSync(target)) symlinkSync(source, target, 'dir');
      continue;
    }
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    if (entry.name === 'dist' || !existsSync(target)) continue;
    linkNodeModules(source, target, depth + 1);
  }
}

/** `git:<ref>:<path>`: a file read at that commit, or an entry loaded from a worktree of it. */
async function documentAtRevision(spec: string, cwd: string): Promise<Record<string, unknown>> {
  const rest = spec.slice('git:'.length);
  const colon = rest.indexOf(':');
  if (colon <= 0 || colon === rest.length - 1)
    throw new DocumentInputError(`${spec}: write git:<ref>:<path> (for example git:main:src/app.ts)`);
  const ref = rest.slice(0, colon);
  const path = rest.slice(colon + 1);
  const top = git(['rev-parse', '--show-toplevel'], cwd).trim();
  const inRepo = relative(top, resolve(cwd, path)).split('\\').join('/');
  if (inRepo.startsWith('..')) throw new DocumentInputError(`${spec}: ${path} is outside the repository at ${top}`);
  let commit: string;
  try {
    commit = git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], top).trim();
  } catch {
    throw new DocumentInputError(`${spec}: no commit "${ref}" in the repository at ${top}`);
  }
  const extension = extname(path).toLowerCase();
  try {
    git(['cat-file', '-e', `${commit}:${inRepo}`], top);
  } catch {
    throw new DocumentInputError(`${spec}: no file ${inRepo} at ${ref}`);
  }
  if (DOCUMENT_EXTENSIONS.has(extension)) return parseDocument(git(['show', `${commit}:${inRepo}`], top), spec, extension);
  const worktree = mkdtempSync(join(tmpdir(), 'fnapi-diff-'));
  try {
    git(['worktree', 'add', '--detach', '--force', worktree, commit], top);
    linkNodeModules(top, worktree);
    return await documentOfEntry(join(worktree, inRepo), spec);
  } finally {
    try {
      git(['worktree', 'remove', '--force', worktree], top);
    } catch {
      // The directory is removed below all the same (`git worktree prune` then forgets it).
    }
    rmSync(worktree, { recursive: true, force: true });
  }
}

/**
 * The OpenAPI document an input names: a JSON or YAML file, an entry module (its app loaded without
 * serving, as `fnapi openapi` does), or `git:<ref>:<file or entry>` for a committed version.
 * Throws a `DocumentInputError` when it cannot be read or built.
 */
export async function loadDocument(input: string, options: { cwd?: string } = {}): Promise<Record<string, unknown>> {
  const cwd = options.cwd ?? process.cwd();
  if (input.startsWith('git:')) return documentAtRevision(input, cwd);
  const path = resolve(cwd, input);
  if (!existsSync(path)) throw new DocumentInputError(`${input}: no such file`);
  const extension = extname(path).toLowerCase();
  if (DOCUMENT_EXTENSIONS.has(extension)) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new DocumentInputError(`${input} cannot be read: ${(error as Error).message}`);
    }
    return parseDocument(text, input, extension);
  }
  return documentOfEntry(path, input);
}
