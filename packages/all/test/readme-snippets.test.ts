/**
 * Docs that cannot drift: every ```ts snippet of every README (root and packages) type-checks against
 * the workspace. The rules are in `readme-snippets.ts` and the root README's contributing notes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allSnippets, extractSnippets, readmes, relativeLinks, typeCheckSnippets, workspaceRoot } from './readme-snippets.js';

describe('README snippets', () => {
  const snippets = allSnippets();

  it('every TypeScript snippet of every README type-checks', { timeout: 240_000 }, () => {
    expect(snippets.filter((s) => !s.fragment).length).toBeGreaterThan(15);
    const errors = typeCheckSnippets(snippets);
    expect(errors.map((e) => `${e.where}: ${e.message}`)).toEqual([]);
  });

  it('keeps fragments rare (at most one in five snippets)', () => {
    const fragments = snippets.filter((s) => s.fragment);
    expect(fragments.length * 5).toBeLessThanOrEqual(snippets.length);
  });

  it('package READMEs link to nothing a package user lacks (no relative links)', () => {
    const found = readmes()
      .filter((readme) => readme.startsWith('packages'))
      .flatMap((readme) => relativeLinks(readFileSync(join(workspaceRoot, readme), 'utf8')).map((link) => `${readme}: ${link}`));
    expect(found).toEqual([]);
    expect(relativeLinks('[a](../../examples) [b](https://x.dev) [c](#usage) ![d](./pic.png)')).toEqual(['../../examples', './pic.png']);
  });

  it('reports a wrong signature and a missing import at their README line', { timeout: 240_000 }, () => {
    const readme = [
      '# x',
      '```ts',
      "import { readFileSync } from 'node:fs';",
      'readFileSync();',
      '```',
      '',
      '```ts',
      'const app = new API();',
      '```',
      '',
      '```ts',
      '// fragment: not checked',
      'app.get(',
      '```',
    ].join('\n');
    const found = extractSnippets('FAKE.md', readme);
    expect(found.map((s) => [s.line, s.fragment])).toEqual([
      [3, false],
      [8, false],
      [12, true],
    ]);
    const errors = typeCheckSnippets(found);
    expect(errors.map((e) => e.where)).toEqual(['FAKE.md:4:1', 'FAKE.md:8:17']);
    expect(errors[0]!.message).toMatch(/^TS2554/);
    expect(errors[1]!.message).toMatch(/^TS2304: Cannot find name 'API'/);
  });
});
