/**
 * What `fnapi check` does not call is listed with the reason (WebSocket routes, endpoints left out of
 * the document), and deferred tasks that fail after a good answer are reported per operation and fail
 * the run: in `checkContract`'s report and in the printed summary of the command.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkContract, formatReport } from '../src/index.js';
import { app } from './fixtures/skipped-app.js';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '../src/cli.ts');
const env = { ...process.env, NODE_OPTIONS: '--conditions=@fnapi/source', FNAPI_LOG_LEVEL: 'silent' };

describe('checkContract: skipped routes and failed deferred tasks', () => {
  it('lists the WebSocket route and the undocumented endpoint as skipped, and counts failed deferred tasks per operation', async () => {
    const report = await checkContract(app, { runs: 20, seed: 3 });
    const byRoute = Object.fromEntries(report.operations.map((op) => [`${op.method} ${op.route}`, op]));
    expect(byRoute['GET /rooms/{room}']).toMatchObject({
      requests: 0,
      skipped: expect.stringMatching(/^a WebSocket endpoint: the check calls HTTP operations/),
    });
    expect(byRoute['GET /internal']).toMatchObject({
      skipped: expect.stringMatching(/^not in the OpenAPI document \(includeInSchema: false\)/),
    });

    const signup = byRoute['POST /signup']!;
    // Every valid signup deferred a task that threw; the task after it still ran (nothing else failed).
    expect(signup.deferred?.failed).toBe(signup.valid.succeeded);
    expect(signup.deferred?.failed).toBeGreaterThan(0);
    expect(signup.deferred?.errors).toHaveLength(3);
    expect(signup.deferred?.errors[0]).toMatch(/^Error: welcome mail to \d+-character address failed$/);
    expect(signup.deferred?.request).toMatch(/^POST \/signup$/);

    const reports = byRoute['GET /reports/{id}']!;
    expect(reports.deferred?.errors).toEqual(['TypeError: the report store rejected an even id']);
    expect(reports.deferred?.request).toMatch(/^GET \/reports\/[2468]$/);
    expect(byRoute['GET /healthy']!.deferred).toBeUndefined();
    expect(byRoute['GET /healthy']!.valid.succeeded).toBeGreaterThan(0);

    // Every answer matched the document: only the deferred tasks fail the run.
    expect(report.failures).toEqual([]);
    expect(report.ok).toBe(false);

    const printed = formatReport(report);
    expect(printed).toContain(`- ${byRoute['GET /rooms/{room}']!.operationId}  GET /rooms/{room}  skipped: a WebSocket endpoint`);
    expect(printed).toMatch(/✗ \S+ {2}POST \/signup {2}\d+ requests; \d+ of \d+ valid inputs answered 2xx; \d+ deferred tasks failed/);
    expect(printed).toMatch(
      /FAIL \S+ {2}GET \/reports\/\{id\}: \d+ deferred tasks? failed after the answer\n {2}request: {2}GET \/reports\/[2468] \(the first whose task failed\)\n {2}error: {4}TypeError: the report store rejected an even id/,
    );
    expect(printed).toMatch(/\n2 failures: 5 operations/);
  }, 60_000);

  it('fnapi check prints the skipped routes and the failed deferred tasks, and exits 1', () => {
    const result = spawnSync(
      process.execPath,
      ['--import', 'tsx', cli, 'check', join(here, 'fixtures/skipped-app.ts'), '--runs', '10', '--seed', '3'],
      {
        encoding: 'utf8',
        env,
        timeout: 120_000,
      },
    );
    expect(result.status, result.stderr).toBe(1);
    expect(result.stdout).toMatch(/- \S+ {2}GET \/rooms\/\{room\} {2}skipped: a WebSocket endpoint/);
    expect(result.stdout).toMatch(/- \S+ {2}GET \/internal {2}skipped: not in the OpenAPI document/);
    expect(result.stdout).toMatch(/FAIL \S+ {2}POST \/signup: \d+ deferred tasks? failed after the answer/);
    expect(result.stdout).not.toMatch(/FAIL \S+ {2}GET \/healthy/);
  }, 120_000);
});
