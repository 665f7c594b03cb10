/**
 * `fnapi check` and `fnapi client` on an app that validates with valibot and arktype: the check
 * generates inputs from the JSON Schema each library gives, and the client types know their fields.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { checkContract, clientTypes, formatReport } from '../src/index.js';
import { app } from './fixtures/validators-app.js';

const here = dirname(fileURLToPath(import.meta.url));
const dir = mkdtempSync(join(here, 'tmp-validators-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('other validators in the contract check and the client', () => {
  it('checkContract passes the clean valibot/arktype app, every operation exercised', async () => {
    const report = await checkContract(app, { runs: 40, seed: 5 });
    expect(report.failures, formatReport(report)).toEqual([]);
    expect(report.operations.every((o) => o.requests >= 40)).toBe(true);
  }, 120_000);

  it('fnapi client types carry the valibot and arktype fields', async () => {
    const types = await clientTypes(app.openapi(), 'the validators app');
    writeFileSync(join(dir, 'api.ts'), types);
    writeFileSync(
      join(dir, 'use.ts'),
      `import type { paths } from './api.js';
type Get = paths['/books/{book_id}']['get'];
type Add = paths['/books']['post'];
export const id: Get['parameters']['path']['book_id'] = 1;
// @ts-expect-error: the path parameter is an integer
export const badId: Get['parameters']['path']['book_id'] = '1';
export const book: Get['responses'][200]['content']['application/json'] = { id: 1, title: 'Dune', tags: [] };
// @ts-expect-error: tags are strings
export const badBook: Get['responses'][200]['content']['application/json'] = { id: 1, title: 'Dune', tags: [1] };
export const input: NonNullable<Add['requestBody']>['content']['application/json'] = { title: 'Emma' };
// @ts-expect-error: a title is required
export const noTitle: NonNullable<Add['requestBody']>['content']['application/json'] = { tags: [] };
export const limit: paths['/search']['get']['parameters']['query']['limit'] = 5;
`,
    );
    const program = ts.createProgram([join(dir, 'use.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: [],
    });
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(diagnostics).toEqual([]);
  }, 60_000);
});
