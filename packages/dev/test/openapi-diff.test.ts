/**
 * `fnapi openapi diff`: the classifier over a corpus of document pairs (each kind of breaking,
 * deprecation and informational change), then the command in real child processes with files (JSON
 * and YAML), entry modules and `git:<ref>:<path>` inputs from a temporary repository.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { type Change, diffDocuments, diffFails, formatDiff } from '../src/index.js';
import { baseDocument, breaking, type Case, deprecations, type Expected, informational } from './fixtures/diff/corpus.js';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '../src/cli.ts');
const env = { ...process.env, NODE_OPTIONS: '--conditions=@fnapi/source', FNAPI_LOG_LEVEL: 'silent' };
const NOW = new Date('2026-12-06T00:00:00Z');

function pair(c: Case) {
  // Each side starts from the base document: `base` edits the one side, `head` the other.
  const base = baseDocument();
  c.base?.(base);
  const head = baseDocument();
  c.head(head);
  return { base, head };
}

const key = (c: Pick<Change, 'severity' | 'rule' | 'operation' | 'pointer'>) => `${c.severity} ${c.rule} ${c.operation} ${c.pointer}`;

function run(c: Case): Change[] {
  const { base, head } = pair(c);
  return diffDocuments(base, head, { now: NOW }).changes;
}

function expectExactly(changes: Change[], expected: Expected[]) {
  expect(changes.map(key).sort()).toEqual(expected.map(key).sort());
}

describe('diffDocuments: the corpus', () => {
  it('reports nothing for a document compared with itself', () => {
    expect(diffDocuments(baseDocument(), baseDocument()).changes).toEqual([]);
  });

  describe.each([
    ['breaking', breaking],
    ['deprecation', deprecations],
    ['informational', informational],
  ] as const)('%s changes', (_, cases) => {
    it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
      const changes = run(c);
      expectExactly(changes, c.expect);
      for (const change of changes) expect(change.message.length).toBeGreaterThan(5);
    });
  });

  it('covers every rule of the contract with at least one case', () => {
    const rules = new Set([...breaking, ...deprecations, ...informational].flatMap((c) => c.expect.map((e) => e.rule)));
    for (const rule of [
      'operation-removed',
      'operation-removed-after-sunset',
      'success-status-removed',
      'response-media-type-removed',
      'response-field-removed',
      'response-field-made-optional',
      'response-made-nullable',
      'response-type-changed',
      'request-parameter-added-required',
      'request-parameter-made-required',
      'request-parameter-removed-strict',
      'request-field-added-required',
      'request-field-made-required',
      'request-field-removed-strict',
      'request-type-narrowed',
      'request-format-changed',
      'request-enum-value-removed',
      'request-min-raised',
      'request-max-lowered',
      'request-pattern-added',
      'request-body-added-required',
      'security-added',
      'security-scope-added',
      'operation-deprecated',
      'operation-sunset',
      'deprecated',
      'status-added',
      'status-removed',
      'request-parameter-removed',
      'field-added',
      'operation-added',
    ]) {
      expect(rules, rule).toContain(rule);
    }
  });

  it('points into head for a change, into base for a removal, and names the change in words', () => {
    const [removed] = run(
      breaking.find(
        (c) => c.name === 'a response field removed from a shared component: once per operation reaching it, pointing into base',
      )!,
    );
    expect(removed).toMatchObject({
      severity: 'breaking',
      operation: 'GET /users',
      pointer: '/components/schemas/User/properties/nickname',
      message: '200 response body field `[].nickname` removed',
    });
    const changes = run(breaking.find((c) => c.name === 'a request enum value removed')!);
    expect(changes[0]!.message).toBe('request body field `role` no longer accepts "guest"');
  });

  it('reads OpenAPI 3.0 `nullable` as 3.1 reads a type array', () => {
    const base = {
      openapi: '3.0.3',
      paths: {
        '/a': {
          get: {
            responses: {
              '200': {
                description: 'OK',
                content: { 'application/json': { schema: { type: 'object', properties: { n: { type: 'string' } } } } },
              },
            },
          },
        },
      },
    };
    const head = structuredClone(base) as typeof base & {
      paths: {
        '/a': {
          get: { responses: { '200': { content: { 'application/json': { schema: { properties: { n: Record<string, unknown> } } } } } } };
        };
      };
    };
    head.paths['/a'].get.responses['200'].content['application/json'].schema.properties.n.nullable = true;
    expectExactly(diffDocuments(base, head).changes, [
      {
        severity: 'breaking',
        rule: 'response-made-nullable',
        operation: 'GET /a',
        pointer: '/paths/~1a/get/responses/200/content/application~1json/schema/properties/n',
      },
    ]);
  });

  it("reads a 3.1 document's x-query as 3.2's query: the same operation", () => {
    const base = baseDocument();
    base.openapi = '3.1.0';
    base.paths['/search']['x-query'] = base.paths['/search'].query;
    delete base.paths['/search'].query;
    expect(diffDocuments(base, baseDocument()).changes).toEqual([]);
    const head = baseDocument();
    delete head.paths['/search'];
    expectExactly(diffDocuments(base, head).changes, [
      { severity: 'breaking', rule: 'operation-removed', operation: 'QUERY /search', pointer: '/paths/~1search/x-query' },
    ]);
  });

  it('compares the items of a stream (itemSchema) as a response', () => {
    const doc = (fields: Record<string, unknown>, required: string[]) => ({
      openapi: '3.2.0',
      paths: {
        '/ticks': {
          get: {
            responses: {
              '200': {
                description: 'OK',
                content: { 'text/event-stream': { itemSchema: { type: 'object', properties: fields, required } } },
              },
            },
          },
        },
      },
    });
    const changes = diffDocuments(
      doc({ n: { type: 'integer' }, at: { type: 'string' } }, ['n', 'at']),
      doc({ n: { type: 'integer' } }, ['n']),
    ).changes;
    expectExactly(changes, [
      {
        severity: 'breaking',
        rule: 'response-field-removed',
        operation: 'GET /ticks',
        pointer: '/paths/~1ticks/get/responses/200/content/text~1event-stream/itemSchema/properties/at',
      },
    ]);
  });

  it('fails at the chosen severity', () => {
    const onlyDeprecation = { changes: run(deprecations[0]!) };
    const onlyInfo = { changes: run(informational[0]!) };
    const withBreaking = { changes: run(breaking[0]!) };
    expect([diffFails(withBreaking, 'breaking'), diffFails(onlyDeprecation, 'breaking'), diffFails(onlyInfo, 'breaking')]).toEqual([
      true,
      false,
      false,
    ]);
    expect([diffFails(withBreaking, 'deprecation'), diffFails(onlyDeprecation, 'deprecation'), diffFails(onlyInfo, 'deprecation')]).toEqual(
      [true, true, false],
    );
    expect(diffFails(withBreaking, 'none')).toBe(false);
  });

  it('writes a markdown table for review comments', () => {
    const text = formatDiff({ changes: run(breaking[0]!) }, 'markdown');
    expect(text).toContain('**OpenAPI changes:** 1 breaking, 0 deprecation, 0 informational');
    expect(text).toContain('| Severity | Operation | Change | Pointer |');
    expect(text).toContain('| breaking | `DELETE /users/{id}` | operation removed | `/paths/~1users~1{id}/delete` |');
  });
});

function fnapi(args: string[], cwd?: string) {
  return spawnSync(process.execPath, ['--import', 'tsx', cli, ...args], {
    encoding: 'utf8',
    env,
    timeout: 60_000,
    ...(cwd ? { cwd } : {}),
  });
}

describe('fnapi openapi diff', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(here, 'tmp-diff-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('compares a JSON file with a YAML file; exit 1 on a breaking change, JSON as the contract writes it', () => {
    const c = breaking.find((x) => x.name === 'a response field made optional')!;
    const { base, head } = pair(c);
    const basePath = write('base.json', JSON.stringify(base));
    const headPath = write('head.yaml', toYaml(head));
    const result = fnapi(['openapi', 'diff', basePath, headPath, '--format', 'json']);
    expect(result.status, result.stderr).toBe(1);
    const out = JSON.parse(result.stdout) as { changes: Change[] };
    expect(out.changes).toHaveLength(4);
    expect(out.changes[0]).toEqual({
      severity: 'breaking',
      operation: 'GET /users',
      pointer: '/components/schemas/User/properties/email',
      message: '200 response body field `[].email` made optional',
    });
    const text = fnapi(['openapi', 'diff', basePath, headPath]);
    expect(text.status).toBe(1);
    expect(text.stdout).toContain('BREAKING');
    expect(text.stdout).toContain('4 breaking, 0 deprecation, 0 informational');
    expect(fnapi(['openapi', 'diff', basePath, headPath, '--fail-on', 'none']).status).toBe(0);
  });

  it('--fail-on deprecation exits 1 on a deprecation; the default does not', () => {
    const { base, head } = pair(deprecations[0]!);
    const basePath = write('dep-base.json', JSON.stringify(base));
    const headPath = write('dep-head.json', JSON.stringify(head));
    const byDefault = fnapi(['openapi', 'diff', basePath, headPath, '--format', 'markdown']);
    expect(byDefault.status, byDefault.stderr).toBe(0);
    expect(byDefault.stdout).toContain('| deprecation | `GET /users` | operation deprecated | `/paths/~1users/get/deprecated` |');
    expect(fnapi(['openapi', 'diff', basePath, headPath, '--fail-on', 'deprecation']).status).toBe(1);
  });

  it('exits 2 when a document cannot be read or built, naming it', () => {
    const good = write('good.json', JSON.stringify(baseDocument()));
    const broken = write('broken.json', '{ "openapi": ');
    const notOpenapi = write('other.yaml', 'name: not a document\n');
    const cases: [string, string][] = [
      [join(dir, 'missing.json'), 'missing.json: no such file'],
      [broken, 'is not valid JSON'],
      [notOpenapi, 'is not an OpenAPI document'],
      [join(here, 'fixtures/not-an-app.ts'), 'exports no API'],
    ];
    for (const [input, message] of cases) {
      const result = fnapi(['openapi', 'diff', good, input]);
      expect(result.status, input).toBe(2);
      expect(result.stderr).toContain(message);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    const badOption = fnapi(['openapi', 'diff', good, good, '--fail-on', 'sometimes']);
    expect(badOption.status).toBe(2);
    expect(badOption.stderr).toContain('--fail-on takes breaking, deprecation, none, not "sometimes"');
  });

  it('loads entry modules without serving: a strict query model makes a removed parameter breaking', () => {
    const result = fnapi([
      'openapi',
      'diff',
      join(here, 'fixtures/diff/app-v1.ts'),
      join(here, 'fixtures/diff/app-v2.ts'),
      '--format',
      'json',
    ]);
    expect(result.status, result.stderr).toBe(1);
    const { changes } = JSON.parse(result.stdout) as { changes: Change[] };
    expect(changes.map((c) => `${c.severity} ${c.operation} ${c.pointer}`).sort()).toEqual(
      [
        'breaking GET /things /paths/~1things/get/parameters/1',
        'breaking GET /things /components/schemas/Thing/properties/name',
        'breaking GET /things/{thing_id} /components/schemas/Thing/properties/name',
        'info GET /loose /paths/~1loose/get/parameters/1',
      ].sort(),
    );
    expect(changes.find((c) => c.operation === 'GET /things' && c.pointer.endsWith('/parameters/1'))!.message).toBe(
      'query parameter `legacy` removed, and the operation refuses unknown query keys',
    );
  });

  it('reads git:<ref>:<entry> from a worktree of that commit with the current node_modules, and git:<ref>:<file>', () => {
    const repo = mkdtempSync(join(tmpdir(), 'fnapi-diff-repo-'));
    try {
      const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
      git('init', '-q', '-b', 'main');
      git('config', 'user.email', 'ci@example.com');
      git('config', 'user.name', 'CI');
      // The current dependencies, as a project's own node_modules.
      symlinkSync(join(here, '../node_modules'), join(repo, 'node_modules'), 'dir');
      writeFileSync(join(repo, '.gitignore'), 'node_modules\n');
      mkdirSync(join(repo, 'src'));
      writeFileSync(join(repo, 'src/app.ts'), readFileSync(join(here, 'fixtures/diff/app-v1.ts'), 'utf8'));
      writeFileSync(join(repo, 'openapi.json'), JSON.stringify(baseDocument()));
      git('add', '.');
      git('commit', '-qm', 'v1');
      writeFileSync(join(repo, 'src/app.ts'), readFileSync(join(here, 'fixtures/diff/app-v2.ts'), 'utf8'));
      const head = baseDocument();
      delete head.paths['/search'];
      writeFileSync(join(repo, 'openapi.json'), JSON.stringify(head));

      const entry = fnapi(['openapi', 'diff', 'git:main:src/app.ts', 'src/app.ts', '--format', 'json'], repo);
      expect(entry.status, entry.stderr).toBe(1);
      const { changes } = JSON.parse(entry.stdout) as { changes: Change[] };
      expect(changes.filter((c) => c.severity === 'breaking').map((c) => c.pointer)).toEqual([
        '/paths/~1things/get/parameters/1',
        '/components/schemas/Thing/properties/name',
        '/components/schemas/Thing/properties/name',
      ]);
      // The worktree is gone afterwards.
      expect(git('worktree', 'list').trim().split('\n')).toHaveLength(1);

      const file = fnapi(['openapi', 'diff', 'git:HEAD:openapi.json', 'openapi.json', '--format', 'json'], repo);
      expect(file.status, file.stderr).toBe(1);
      expect((JSON.parse(file.stdout) as { changes: Change[] }).changes).toEqual([
        { severity: 'breaking', operation: 'QUERY /search', pointer: '/paths/~1search/query', message: 'operation removed' },
      ]);
      // The same commit on both sides: nothing.
      const same = fnapi(['openapi', 'diff', 'git:HEAD:src/app.ts', 'git:main:src/app.ts'], repo);
      expect(same.status, same.stderr).toBe(0);
      expect(same.stdout).toContain('no changes');

      const unknown = fnapi(['openapi', 'diff', 'git:nope:src/app.ts', 'src/app.ts'], repo);
      expect(unknown.status).toBe(2);
      expect(unknown.stderr).toContain('no commit "nope"');
      const missing = fnapi(['openapi', 'diff', 'git:HEAD:src/gone.ts', 'src/app.ts'], repo);
      expect(missing.status).toBe(2);
      expect(missing.stderr).toContain('no file src/gone.ts at HEAD');
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });
});
