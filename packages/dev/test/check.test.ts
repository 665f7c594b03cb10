/**
 * `checkContract` and `fnapi check`: each planted kind of bug is found, shrunk and reported with a
 * `curl` line that, run for real against the app on a loopback port, gets the same status; a clean
 * app passes; the same seed gives the same report.
 */
import { execFile, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { API, z } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CheckFailure, type CheckReport, checkContract, formatReport } from '../src/index.js';
import { app as planted } from './fixtures/planted.js';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '../src/cli.ts');
const env = { ...process.env, NODE_OPTIONS: '--conditions=@fnapi/source', FNAPI_LOG_LEVEL: 'silent' };

/** Runs a printed curl line in a shell (the server answers in this process) and returns the status. */
async function curlStatus(line: string): Promise<number> {
  const { stdout: out } = await promisify(execFile)('bash', ['-c', line], { encoding: 'utf8', timeout: 30_000 });
  const match = /^HTTP\/[\d.]+ (\d{3})/.exec(out);
  if (!match) throw new Error(`no status line in: ${out.slice(0, 200)}`);
  return Number(match[1]);
}

function only(report: CheckReport, operationId: string): CheckFailure[] {
  return report.failures.filter((f) => f.operationId === operationId);
}

describe('checkContract finds each planted bug', () => {
  let client: TestClient;
  let report: CheckReport;

  beforeAll(async () => {
    client = await TestClient.start(planted);
    report = await checkContract(planted, { runs: 100, seed: 7, baseUrl: client.url });
  }, 120_000);
  afterAll(async () => client?.close());

  it('reports a 500 on valid input, shrunk to the threshold, with a curl line that reproduces it', async () => {
    const [failure, ...more] = only(report, 'square');
    expect(more).toEqual([]);
    expect(failure).toMatchObject({ kind: 'server-error', input: { valid: true }, actual: { status: 500 } });
    expect(failure!.request.url).toBe('/square/1001');
    expect(await curlStatus(failure!.curl)).toBe(500);
  });

  it('reports a status the document does not list', async () => {
    const [failure] = only(report, 'teapot');
    expect(failure).toMatchObject({ kind: 'undocumented-status', actual: { status: 418 } });
    expect(failure!.expected).toMatch(/^a documented status \(200, .*422\)$/);
    expect(await curlStatus(failure!.curl)).toBe(418);
  });

  it("reports a body that does not match the documented schema, with the validator's reason", async () => {
    const [failure] = only(report, 'total');
    expect(failure).toMatchObject({ kind: 'body-mismatch', actual: { status: 200, body: '{"total":"10"}' } });
    expect(failure!.request.url).toBe('/total?count=10');
    expect(failure!.actual.reason).toContain('/total must be integer');
    expect(await curlStatus(failure!.curl)).toBe(200);
  });

  it('reports a 2xx to invalid input, naming what was broken', async () => {
    const [failure] = only(report, 'lenient');
    expect(failure).toMatchObject({ kind: 'invalid-accepted', input: { valid: false }, actual: { status: 200 } });
    expect(failure!.input.valid === false && failure!.input.mutation).toMatch(/amount|body/);
    expect(await curlStatus(failure!.curl)).toBe(200);
  });

  it('reports a 422 to valid input, shrunk to the shortest word refused', async () => {
    const [failure] = only(report, 'picky');
    expect(failure).toMatchObject({ kind: 'valid-rejected', actual: { status: 422 } });
    expect(decodeURIComponent(failure!.request.url.split('word=')[1]!)).toHaveLength(8);
    expect(await curlStatus(failure!.curl)).toBe(422);
  });

  it('passes the clean endpoint and prints every failure once', () => {
    expect(only(report, 'add')).toEqual([]);
    expect(report.ok).toBe(false);
    expect(report.failures.map((f) => f.operationId).sort()).toEqual(['lenient', 'picky', 'square', 'teapot', 'total']);
    const text = formatReport(report);
    for (const f of report.failures) expect(text.split(f.curl).length).toBe(2);
    expect(text).toContain('seed 7');
  });

  it('gives the same report for the same seed', async () => {
    const again = await checkContract(planted, { runs: 100, seed: 7, baseUrl: client.url });
    expect({ ...again, durationMs: 0 }).toEqual({ ...report, durationMs: 0 });
  }, 120_000);

  it('keeps to --only and --skip', async () => {
    const some = await checkContract(planted, { runs: 20, seed: 7, only: ['add', 'square'], skip: ['square'] });
    expect(some.operations.map((o) => o.operationId)).toEqual(['add']);
    expect(some.ok).toBe(true);
  }, 60_000);
});

describe('checkContract on clean apps', () => {
  it('passes an app whose answers keep the document, across path, query, header, cookie and body', async () => {
    const app = new API({ title: 'clean', version: '1', logger: false });
    const { header, cookie } = await import('@fnapi/core');
    const Item = z
      .object({ name: z.string().min(1).max(30), tags: z.array(z.string()).max(4), price: z.number().min(0) })
      .meta({ id: 'CleanItem' });
    const Out = z.object({ id: z.int(), name: z.string(), lang: z.string(), session: z.string().optional() });
    app.post(
      '/shops/{shop}/items',
      { params: { shop: z.int().min(1), item: Item }, response: Out, statusCode: 201 },
      function addItem({ shop, item }) {
        return { id: shop, name: item.name, lang: 'en' };
      },
    );
    app.get(
      '/greet/{who}',
      {
        params: {
          who: z.string(),
          x_lang: header(z.enum(['en', 'fr']).default('en')),
          session: cookie(z.string().optional()),
          loud: z.boolean().default(false),
        },
        response: Out,
      },
      function greet({ who, x_lang, session, loud }) {
        return { id: 1, name: loud ? who.toUpperCase() : who, lang: x_lang, session };
      },
    );
    const report = await checkContract(app, { runs: 60, seed: 3 });
    expect(report.failures, formatReport(report)).toEqual([]);
    expect(report.operations.every((o) => o.requests >= 60)).toBe(true);
  }, 120_000);

  it('exercises a guarded operation past its guard with a header, printed as a placeholder', async () => {
    const { apiKeyRequired } = await import('@fnapi/auth');
    const app = new API({ title: 'guarded', version: '1', logger: false });
    app.get(
      '/secret/{id}',
      { params: { id: z.int() } },
      apiKeyRequired({ apiKeys: { 'key-1': [] } })(function secret({ id }) {
        if (id > 5) throw new Error('past the guard');
        return { id };
      }),
    );
    const closed = await checkContract(app, { runs: 30, seed: 1 });
    expect(
      closed.failures.map((f) => f.kind),
      formatReport(closed),
    ).toEqual(['not-exercised']);
    const open = await checkContract(app, { runs: 30, seed: 1, headers: { 'X-API-Key': 'key-1' } });
    expect(open.failures.map((f) => f.kind)).toEqual(['server-error']);
    expect(open.failures[0]!.curl).toContain('-H "x-api-key: $FNAPI_CHECK_HEADER_1"');
    expect(open.failures[0]!.curl).not.toContain('key-1');
  }, 120_000);

  it('checks a binary answer by its content type, not a JSON schema', async () => {
    const { binary, FileResponse, Response } = await import('@fnapi/core');
    const app = new API({ title: 'files', version: '1', logger: false });
    const pdf = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x2d, 0x31, 0x2e, 0x37, 0xff, 0x00]);
    app.get('/reports/{id}', { params: { id: z.int() }, response: binary(['application/pdf']) }, function report({ id }) {
      return new FileResponse(pdf, { filename: `report-${id}.pdf` });
    });
    app.get('/images/{id}', { params: { id: z.int() }, response: binary(['image/png']) }, function image() {
      return new Response('not a png', { mediaType: 'text/plain' });
    });
    const report = await checkContract(app, { runs: 20, seed: 5 });
    expect(
      report.failures.filter((f) => f.operationId === 'report'),
      formatReport(report),
    ).toEqual([]);
    const wrong = report.failures.filter((f) => f.operationId === 'image');
    expect(wrong.map((f) => f.kind)).toEqual(['body-mismatch']);
  }, 120_000);
});

describe('fnapi check', () => {
  const fnapi = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', cli, ...args], { encoding: 'utf8', env, timeout: 120_000 });

  it('exits 1 with the failures and their curl lines, 0 on a clean app', () => {
    const bad = fnapi('check', join(here, 'fixtures/planted.ts'), '--runs', '50', '--seed', '7', '--skip', 'picky');
    expect(bad.status, bad.stderr).toBe(1);
    expect(bad.stdout).toContain('FAIL square  GET /square/{n}: answered 500');
    expect(bad.stdout).toContain("curl -sS -i -g -X GET 'http://127.0.0.1:8000/square/1001'");
    expect(bad.stdout).not.toContain('picky');
    const good = fnapi('check', join(here, 'fixtures/planted.ts'), '--runs', '50', '--only', 'add');
    expect(good.status, good.stdout).toBe(0);
    expect(good.stdout).toContain('All answers match the document');
  }, 240_000);

  it('refuses a malformed option', () => {
    const result = fnapi('check', join(here, 'fixtures/planted.ts'), '--runs', 'many');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('--runs takes an integer');
  }, 60_000);
});
