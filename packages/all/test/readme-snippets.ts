/**
 * Extracts the TypeScript snippets of the READMEs and type-checks them against the workspace sources,
 * so a wrong signature or a missing import in the docs fails the build. The rules, also in the root
 * README's contributing notes:
 *
 * - every block fenced as ```ts or ```typescript in README.md and packages/<name>/README.md is checked;
 * - each block is a module on its own: it imports what it uses (top-level await is fine);
 * - a block whose first line is a `// fragment` comment is skipped (keep these rare).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const workspaceRoot = join(dirname(fileURLToPath(import.meta.url)), '../../..');

export interface Snippet {
  /** The README, relative to the workspace root. */
  readme: string;
  /** 1-based line in the README of the snippet's first code line. */
  line: number;
  code: string;
  fragment: boolean;
}

const FENCE = /^```(?:ts|typescript)[^\S\n]*\n([\s\S]*?)^```[^\S\n]*$/gm;
const FRAGMENT = /^\s*\/\/\s*fragment\b/;

/** Every README the rules cover: the root one and each package's. */
export function readmes(root = workspaceRoot): string[] {
  const packages = join(root, 'packages');
  const found = existsSync(join(root, 'README.md')) ? ['README.md'] : [];
  for (const dir of readdirSync(packages).sort()) {
    if (existsSync(join(packages, dir, 'README.md'))) found.push(join('packages', dir, 'README.md'));
  }
  return found;
}

export function extractSnippets(readme: string, text: string): Snippet[] {
  const snippets: Snippet[] = [];
  for (const match of text.matchAll(FENCE)) {
    const code = match[1] ?? '';
    const line = text.slice(0, match.index).split('\n').length + 1;
    snippets.push({ readme, line, code, fragment: FRAGMENT.test(code.split('\n', 1)[0] ?? '') });
  }
  return snippets;
}

export interface SnippetError {
  /** `README.md:12:5` — where in the README. */
  where: string;
  message: string;
}

/**
 * Type-checks the snippets (fragments left out) in one `tsc` run inside the workspace, so `@fnapi/*`
 * resolve to the packages' sources. Errors are reported at their place in the README.
 */
export function typeCheckSnippets(snippets: readonly Snippet[], root = workspaceRoot): SnippetError[] {
  const dir = mkdtempSync(join(root, '.readme-snippets-'));
  try {
    const files = new Map<string, Snippet>();
    snippets
      .filter((s) => !s.fragment)
      .forEach((snippet, i) => {
        const name = `snippet-${i}.ts`;
        files.set(name, snippet);
        // `export {}` makes each snippet a module: its own scope, top-level await allowed.
        writeFileSync(join(dir, name), `${snippet.code}\nexport {};\n`);
      });
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        extends: relative(dir, join(root, 'tsconfig.base.json')),
        compilerOptions: { noEmit: true, customConditions: ['@fnapi/source'], noUnusedLocals: false },
        include: ['*.ts'],
      }),
    );
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = spawnSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json'), '--pretty', 'false'], {
      cwd: root,
      encoding: 'utf8',
    });
    const errors: SnippetError[] = [];
    for (const line of `${result.stdout}\n${result.stderr}`.split('\n')) {
      const m = /^(.*?)\((\d+),(\d+)\): error (TS\d+: .*)$/.exec(line.trim());
      if (!m) continue;
      const file = m[1]!.split(/[\\/]/).pop()!;
      const snippet = files.get(file);
      // An error inside a package's own source is reported as it is.
      if (snippet === undefined || !m[1]!.includes(relative(root, dir))) {
        errors.push({ where: m[1]!, message: m[4]! });
        continue;
      }
      errors.push({ where: `${snippet.readme}:${snippet.line + Number(m[2]) - 1}:${m[3]}`, message: m[4]! });
    }
    if (result.status !== 0 && errors.length === 0) errors.push({ where: 'tsc', message: `${result.stdout}${result.stderr}`.trim() });
    return errors;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function allSnippets(root = workspaceRoot): Snippet[] {
  return readmes(root).flatMap((readme) => extractSnippets(readme, readFileSync(join(root, readme), 'utf8')));
}

/** Markdown link and image targets that are neither absolute URLs nor anchors. */
export function relativeLinks(text: string): string[] {
  const links: string[] = [];
  for (const m of text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)[^)]*\)/g)) {
    const target = m[1]!;
    if (!/^(?:[a-z][a-z0-9+.-]*:|#)/i.test(target)) links.push(target);
  }
  return links;
}
