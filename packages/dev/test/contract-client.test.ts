/**
 * What tools read, run through the tools: `fnapi client` (openapi-typescript) keeps QUERY operations,
 * types stream bodies without a warning under 3.1 and 3.2, and lets `readEvents` of `@fnapi/client`
 * narrow a named event's data; a header always sent is required. And `--document <key>` of `fnapi
 * openapi`, `client` and `check`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { untypedOperations } from '../src/client.js';
import { afterAll, describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '../src/cli.ts');
const fixture = join(here, 'fixtures/contract-app.ts');
const env = { ...process.env, NODE_OPTIONS: '--conditions=@fnapi/source', FNAPI_LOG_LEVEL: 'silent' };
const dir = mkdtempSync(join(here, 'tmp-contract-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fnapi(args: string[], extra: Record<string, string> = {}) {
  return spawnSync(process.execPath, ['--import', 'tsx', cli, ...args], { encoding: 'utf8', env: { ...env, ...extra }, timeout: 90_000 });
}

/** Type-checks `files` strictly; the diagnostics as `file:line message`. */
function compile(files: Record<string, string>): string[] {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const program = ts.createProgram(
    Object.keys(files).map((name) => join(dir, name)),
    {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.asynciterable.d.ts'],
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      skipLibCheck: true,
      types: [],
    },
  );
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file ? `${d.file.fileName.slice(dir.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}` : '';
    return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

const consumer = `import type { paths, streams } from './api.js';
import { readEvents, readLines, type StreamSource } from '../../../client/src/index.js';

type Search = paths['/search']['query'];
export const body: NonNullable<Search['requestBody']>['content']['application/json'] = { q: 'dune' };
// @ts-expect-error: q is a string
export const badBody: NonNullable<Search['requestBody']>['content']['application/json'] = { q: 1 };
export const hits: Search['responses'][200]['content']['application/json'] = { hits: ['dune'] };
export const invalid: Search['responses'][422]['content']['application/problem+json']['status'] = 422;

// The stream's body is text, typed; its items are in \`streams\`.
export const text: paths['/chat']['get']['responses'][200]['content']['text/event-stream'] = 'event: welcome';
export const row: streams['/rows']['get'] = { id: 1 };

type Echo = paths['/echo']['get']['responses'][200]['headers'];
export const echo: Echo['X-Echo'] = 'true';
// @ts-expect-error: the header is always sent
export const noEcho: Echo['X-Echo'] = undefined;

export async function chat(source: StreamSource): Promise<string[]> {
  const seen: string[] = [];
  for await (const item of readEvents<streams['/chat']['get']>(source)) {
    if (item.event === 'welcome') {
      seen.push(item.data.room);
      // @ts-expect-error: a welcome has no text
      seen.push(item.data.text);
    } else {
      const from: string = item.data.from;
      seen.push(item.event === 'message' ? from : 'never');
    }
  }
  for await (const line of readLines<streams['/rows']['get']>(source)) seen.push(String(line.id));
  return seen;
}
`;

describe.each(['3.1.0', '3.2.0'])('fnapi client under OpenAPI %s', (version) => {
  it('keeps QUERY operations, types streams without a warning, narrows named events, requires headers always sent', {
    timeout: 120_000,
  }, () => {
    const out = join(dir, 'api.d.ts');
    const result = fnapi(['client', fixture, '-o', out], { FNAPI_OPENAPI_VERSION: version });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('warning');
    const types = readFileSync(out, 'utf8');
    expect(types).toMatch(/"\/search": \{\n {8}query: \{/);
    expect(compile({ 'api.d.ts': types, 'consumer.ts': consumer })).toEqual([]);
  });
});

describe('the warning of fnapi client', () => {
  it('names a QUERY operation without a model, never a stream (3.1 or 3.2)', () => {
    const open = { 200: { content: { 'application/json': { schema: {} } } } };
    const stream31 = { 200: { content: { 'text/event-stream': { schema: { type: 'string' }, 'x-itemSchema': { type: 'object' } } } } };
    const stream32 = { 200: { content: { 'text/event-stream': { itemSchema: { type: 'object' } } } } };
    const document = {
      paths: {
        '/q31': { 'x-query': { operationId: 'q31', responses: open } },
        '/q32': { query: { operationId: 'q32', responses: open } },
        '/s31': { get: { responses: stream31 } },
        '/s32': { get: { responses: stream32 } },
      },
    };
    expect(untypedOperations(document)).toEqual(['QUERY /q31 (q31)', 'QUERY /q32 (q32)']);
  });
});

describe('--document', () => {
  it('fnapi openapi, client and check take one of the app’s documents', { timeout: 180_000 }, () => {
    const whole = fnapi(['openapi', fixture]);
    expect(whole.status, whole.stderr).toBe(0);
    expect(Object.keys(JSON.parse(whole.stdout).paths)).toContain('/search');
    const v1 = fnapi(['openapi', fixture, '--document', 'v1']);
    expect(v1.status, v1.stderr).toBe(0);
    const document = JSON.parse(v1.stdout);
    expect(Object.keys(document.paths)).toEqual(['/v1/old']);
    expect(document.paths['/v1/old'].get).toMatchObject({ deprecated: true, 'x-sunset': '2027-06-30' });

    const client = fnapi(['client', fixture, '--document', 'v1']);
    expect(client.status, client.stderr).toBe(0);
    expect(client.stdout).toContain('"/v1/old"');
    expect(client.stdout).not.toContain('"/search"');

    const check = fnapi(['check', fixture, '--document', 'v1', '--runs', '5', '--seed', '1']);
    expect(check.status, check.stdout + check.stderr).toBe(0);
    expect(check.stdout).toContain('old');
    expect(check.stdout).not.toContain('search');

    const unknown = fnapi(['openapi', fixture, '--document', 'v9']);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('No document "v9": the app\'s documents are "v1"');
  });
});
