/**
 * `fnapi client` in real child processes: the types it writes for a fixture app compile, know every
 * documented status (a declared 404, validation's 422, a body's 400/413/415) with `status` narrowed
 * to its number, and its warning names the endpoint without a `response` model; `fnapi dev
 * --client` rewrites them when the app changes.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@fnapi/test-support';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { stop } from './child.js';
import { untypedOperations } from '../src/client.js';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '../src/cli.ts');
const fixture = join(here, 'fixtures/client-app.ts');
const env = { ...process.env, NODE_OPTIONS: '--conditions=@fnapi/source', FNAPI_LOG_LEVEL: 'silent' };
const dir = mkdtempSync(join(here, 'tmp-client-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fnapi(...args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', cli, ...args], { encoding: 'utf8', env, timeout: 60_000 });
}

/** Type-checks `files` (name → text) strictly; the diagnostics as `file:line message`. */
function compile(files: Record<string, string>): string[] {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const program = ts.createProgram(
    Object.keys(files).map((name) => join(dir, name)),
    {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      skipLibCheck: false,
      types: [],
    },
  );
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file ? `${d.file.fileName.slice(dir.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}` : '';
    return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

// What a caller writes against the generated `paths`; each @ts-expect-error must be an error.
const consumer = `import type { paths, streams } from './api.js';
type Get = paths['/books/{book_id}']['get'];
type Add = paths['/books']['post'];
type Body<R, S extends keyof R> = R[S] extends { content: infer C } ? C[keyof C] : never;

export const book: Body<Get['responses'], 200> = { id: 1, title: 'Dune' };
export const missing: Body<Get['responses'], 404>['status'] = 404;
// @ts-expect-error: the 404 body's status is exactly 404
export const wrongStatus: Body<Get['responses'], 404>['status'] = 500;
export const invalid: Body<Get['responses'], 422> = {
  type: 'about:blank', title: 'Unprocessable Content', status: 422, detail: 'Request validation failed',
  errors: [{ in: 'path', path: ['book_id'], message: 'Invalid input', code: 'invalid_type' }],
};
// @ts-expect-error: an error item names where it was found
export const noIn: Body<Get['responses'], 422>['errors'][number] = { path: [], message: '', code: '' };
export const statuses: Array<keyof Add['responses']> = [201, 400, 409, 413, 415, 422];
// @ts-expect-error: POST /books documents no 404
export const notListed: keyof Add['responses'] = 404;
export const conflict: Body<Add['responses'], 409> = { existing: 1 };
export const body: NonNullable<Add['requestBody']>['content']['application/json'] = { title: 'Emma' };
// @ts-expect-error: the path parameter is an integer
export const badId: Get['parameters']['path']['book_id'] = '1';
// Without a response model the success body is unknown.
export const stats: Body<paths['/stats']['get']['responses'], 200> = undefined as unknown;
// Binary fields and bodies are Blobs.
export const cover: NonNullable<paths['/books/{book_id}/cover']['post']['requestBody']>['content']['multipart/form-data']['cover'] = new Blob([]);
export const pdf: paths['/books/{book_id}/pdf']['get']['responses'][200]['content']['application/pdf'] = new Blob([]);
// @ts-expect-error: a binary field is not a string
export const notString: NonNullable<paths['/books/{book_id}/cover']['post']['requestBody']>['content']['multipart/form-data']['cover'] = 'x';
// Stream items, by path and method.
export const tick: streams['/ticks']['get'] = { n: 1 };
// @ts-expect-error: a tick's n is an integer
export const badTick: streams['/ticks']['get'] = { n: 'one' };
export const feed: Array<streams['/feed']['get']> = [{ hi: 'x' }, { id: 1, title: 'Dune' }];
export const row: streams['/rows']['get'] = { id: 1, title: 'Dune' };
`;

describe('fnapi client', () => {
  it('writes types that compile and know every documented status, and warns of the endpoint without a model', { timeout: 90_000 }, () => {
    const out = join(dir, 'api.d.ts');
    const result = fnapi('client', fixture, '-o', out);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toContain(`wrote the client types of ${fixture} to ${out}`);
    expect(result.stderr).toMatch(/warning: 1 endpoint has no `response` model.*GET \/stats \(stats\)/);
    expect(result.stderr).not.toContain('/pdf');
    expect(result.stderr).not.toContain('/books');
    const types = readFileSync(out, 'utf8');
    expect(types).toContain('export interface paths');
    expect(compile({ 'api.d.ts': types, 'consumer.ts': consumer })).toEqual([]);
  });

  it('fails the consumer when a wrong status is assumed (the check can fail)', { timeout: 90_000 }, () => {
    const types = readFileSync(join(dir, 'api.d.ts'), 'utf8');
    const errors = compile({
      'api.d.ts': types,
      'consumer.ts': consumer.replace('= 404;\n// @ts-expect-error', '= 403;\n// @ts-expect-error'),
    });
    expect(errors.some((e) => e.startsWith('consumer.ts:7 '))).toBe(true);
  });

  it('writes to stdout without -o', { timeout: 90_000 }, () => {
    const result = fnapi('client', fixture);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('"/books/{book_id}"');
  });

  it('names operations whose success body has no schema', () => {
    const document = {
      paths: {
        '/a': { get: { operationId: 'a', responses: { 200: { content: { 'application/json': { schema: {} } } } } } },
        '/b': { delete: { responses: { 204: { description: 'No Content' } } } },
        '/c': { post: { operationId: 'c', responses: { 201: { content: { 'application/json': { schema: { type: 'object' } } } } } } },
      },
    };
    expect(untypedOperations(document)).toEqual(['GET /a (a)']);
  });
});

describe('fnapi dev --client', () => {
  it('writes the client types on start and again after a change', { timeout: 120_000 }, async () => {
    const app = join(dir, 'app.ts');
    const out = join(dir, 'dev-api.d.ts');
    const source = (route: string) =>
      `import { API, z } from '@fnapi/core';\nconst app = new API({ logger: false });\napp.get('${route}', { response: z.object({ ok: z.boolean() }) }, () => ({ ok: true }));\nexport default app;\n`;
    writeFileSync(app, source('/first'));
    const port = await freePort();
    let output = '';
    const child = spawn(process.execPath, ['--import', 'tsx', cli, 'dev', app, '--client', out], {
      env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const written = () => (existsSync(out) ? readFileSync(out, 'utf8') : '');
    try {
      await expect.poll(written, { timeout: 60_000, interval: 200 }).toContain('"/first"');
      writeFileSync(app, source('/second'));
      await expect.poll(written, { timeout: 60_000, interval: 200 }).toContain('"/second"');
      expect(written()).not.toContain('"/first"');
      expect(output).not.toContain('could not write');
    } finally {
      await stop(child);
    }
  });
});
