/**
 * The chat, validators and jobs examples have an entry `fnapi client` takes (`src/document.ts`): the
 * command, run in a child process, writes types that compile; and what generators read in them: the
 * validators' optional arktype header typed `string` (not `unknown`), the uploads' file field's
 * content type the one `encoding` lists.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const examples = join(here, '../..');
const cli = join(examples, '../packages/dev/src/cli.ts');
// The job store is reached only when the app starts: an address where nothing listens shows it.
const env = { ...process.env, NODE_OPTIONS: '--conditions=@fnapi/source', FNAPI_LOG_LEVEL: 'silent', REDIS_URL: 'redis://127.0.0.1:1' };
const dir = mkdtempSync(join(tmpdir(), 'fnapi-entries-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fnapi(...args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', cli, ...args], { encoding: 'utf8', env, timeout: 90_000 });
}

function compiles(file: string): string[] {
  const program = ts.createProgram([file], { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, types: [], skipLibCheck: true });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('example entries for fnapi client', () => {
  it.each(['chat', 'validators', 'jobs'])('examples/%s/src/document.ts', { timeout: 120_000 }, (name) => {
    const out = join(dir, `${name}-api.d.ts`);
    const result = fnapi('client', join(examples, name, 'src/document.ts'), '-o', out);
    expect(result.status, result.stderr).toBe(0);
    const types = readFileSync(out, 'utf8');
    expect(types).toContain('export interface paths');
    expect(compiles(out)).toEqual([]);
    if (name === 'validators') {
      // `header(type('string | undefined'))`: an optional string header, as every generator reads it.
      expect(types).toMatch(/"x-request-source"\?: string;/);
    }
  });

  it("an upload field's content type is the one encoding lists", { timeout: 120_000 }, () => {
    const result = fnapi('openapi', join(examples, 'uploads/src/document.ts'));
    expect(result.status, result.stderr).toBe(0);
    const media = JSON.parse(result.stdout).paths['/avatars/{user_id}'].post.requestBody.content['multipart/form-data'];
    const listed = String(media.encoding.avatar.contentType).split(', ');
    const own = media.schema.properties.avatar.contentMediaType as string | undefined;
    // One type: that type; several (`image/png, image/jpeg`): none of its own, never octet-stream.
    expect(listed.length === 1 ? own === listed[0] : own === undefined).toBe(true);
    expect(own).not.toBe('application/octet-stream');
  });
});
