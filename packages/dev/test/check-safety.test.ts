/**
 * `fnapi check` is safe and never passes empty: it warns before it calls anything, keeps to
 * `--read-only`/`--methods`, sets FNAPI_CHECK=1 before the app loads, fails an operation that a rate
 * limit or a guard keeps from its handler, meets NUL, control characters, lone surrogates and the
 * longest string in default runs (a NUL breaks a query against the real PostgreSQL, and is caught),
 * prints credentials as placeholders and keeps the app's logs quiet. Every value shrinks: an edge
 * drawn as a boundary shrinks to the smallest failing value.
 */
import { execFile, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { apiKeyRequired } from '@fnapi/auth';
import { API, UnauthorizedError, z } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { RateLimitMiddleware } from '@fnapi/middleware';
import { DATABASE_URL, serviceAvailable } from '@fnapi/test-support';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { checkContract, formatReport } from '../src/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '../src/cli.ts');
const fixture = join(here, 'fixtures/check-safety.ts');

function quiet(): API {
  return new API({ title: 'check', version: '1', logger: false });
}

describe('operations not exercised fail the run', () => {
  // A handler that fails on some valid input: found without the limit, and never a pass with it.
  function limited(limit: number | undefined): API {
    const app = quiet();
    if (limit !== undefined) app.addMiddleware(new RateLimitMiddleware({ limit, window: 60 }));
    app.get('/items/{n}', { params: { n: z.int().min(0).max(1000) } }, function item({ n }) {
      if (n > 500) throw new Error('planted');
      return { n };
    });
    return app;
  }

  it('reports the planted 500 without the limit', async () => {
    const report = await checkContract(limited(undefined), { runs: 100, seed: 5 });
    expect(report.failures.map((f) => f.kind)).toEqual(['server-error']);
    expect(report.operations[0]!.valid.reached).toBe(report.operations[0]!.valid.requests);
  });

  it('fails, as not exercised, when a rate limit of 1 answers 429 in place of the handler', async () => {
    const report = await checkContract(limited(1), { runs: 100, seed: 5 });
    expect(report.ok).toBe(false);
    const [failure] = report.failures;
    expect(failure).toMatchObject({ kind: 'not-exercised', operationId: 'item', actual: { status: 429 } });
    expect(failure!.expected).toMatch(/^valid inputs reach the handler \(not 401, 429 or 503\); 1 of \d+ did$/);
    const text = formatReport(report);
    expect(text).toContain('FAIL item  GET /items/{n}: not exercised');
    expect(text).toMatch(/✗ item {2}GET \/items\/\{n\} {2}\d+ requests; 1 of \d+ valid inputs answered 2xx/);
    expect(text).not.toContain('All answers match');
  });

  it('fails an operation whose guard answers every valid input 401, and passes it with credentials', async () => {
    const app = quiet();
    app.get(
      '/secret/{id}',
      { params: { id: z.int().min(0).max(9) } },
      apiKeyRequired({ apiKeys: { 'key-1': [] } })(function secret({ id }) {
        return { id };
      }),
    );
    const closed = await checkContract(app, { runs: 30, seed: 1 });
    expect(closed.failures.map((f) => [f.kind, f.actual.status])).toEqual([['not-exercised', 401]]);
    const open = await checkContract(app, { runs: 30, seed: 1, headers: { 'X-API-Key': 'key-1' } });
    expect(open.failures, formatReport(open)).toEqual([]);
    expect(open.operations[0]!.valid).toEqual({ requests: 30, reached: 30, succeeded: 30 });
  });

  it("counts a public operation's own 401 (a login refusing unknown users) as reached", async () => {
    const app = quiet();
    app.post(
      '/login',
      { params: { username: z.string(), password: z.string() }, responses: { 401: 'Unknown user or wrong password' } },
      function login(): never {
        throw new UnauthorizedError('Unknown user or wrong password');
      },
    );
    const report = await checkContract(app, { runs: 30, seed: 1 });
    expect(report.failures, formatReport(report)).toEqual([]);
    expect(report.operations[0]!.valid).toEqual({ requests: 30, reached: 30, succeeded: 0 });
  });
});

describe('credentials are printed as placeholders', () => {
  it('writes --header values as $FNAPI_CHECK_HEADER_n in curl lines, and the line works with the variable set', async () => {
    const app = quiet();
    app.get(
      '/secret/{id}',
      { params: { id: z.int().min(0).max(100) } },
      apiKeyRequired({ apiKeys: { 'sk-live-123': [] } })(function secret({ id }) {
        if (id > 50) throw new Error('past the guard');
        return { id };
      }),
    );
    const client = await TestClient.start(app);
    try {
      const report = await checkContract(app, { runs: 50, seed: 2, headers: { 'X-API-Key': 'sk-live-123' }, baseUrl: client.url });
      const [failure] = report.failures;
      expect(failure!.kind).toBe('server-error');
      expect(failure!.curl).toContain('-H "x-api-key: $FNAPI_CHECK_HEADER_1"');
      expect(failure!.request.headers['x-api-key']).toBe('$FNAPI_CHECK_HEADER_1');
      const text = formatReport(report);
      expect(text).not.toContain('sk-live-123');
      expect(text).toContain('set:      FNAPI_CHECK_HEADER_1 to the x-api-key header given with --header');
      const run = await promisify(execFile)('bash', ['-c', failure!.curl], {
        env: { ...process.env, FNAPI_CHECK_HEADER_1: 'sk-live-123' },
        encoding: 'utf8',
      });
      expect(run.stdout).toMatch(/^HTTP\/1\.1 500/);
    } finally {
      await client.close();
    }
  });
});

describe('boundary values in default runs, every value shrunk', () => {
  it('shrinks an integer drawn as a boundary to the smallest failing one (n = -1)', async () => {
    const app = quiet();
    app.get('/n/{n}', { params: { n: z.int().min(-1000).max(1000) } }, function signed({ n }) {
      if (n < 0) throw new Error('negative');
      return { n };
    });
    for (const seed of [1, 2, 3, 4]) {
      const report = await checkContract(app, { seed });
      expect(report.failures.map((f) => f.request.url)).toEqual(['/n/-1']);
    }
  });

  it('shrinks a boundary past which a handler fails to the boundary itself (n = -6 for n < -5)', async () => {
    const app = quiet();
    app.get('/m', { params: { m: z.int().min(-1000).max(1000) } }, function below({ m }) {
      if (m < -5) throw new Error('too low');
      return { m };
    });
    for (const seed of [1, 2, 3]) {
      const report = await checkContract(app, { seed });
      expect(report.failures.map((f) => f.request.url)).toEqual(['/m?m=-6']);
    }
  });

  it('meets a NUL, a control character, a lone surrogate and the longest string in 100 runs, each shrunk', async () => {
    const app = quiet();
    app.get('/nul', { params: { q: z.string() } }, function nul({ q }) {
      if (q.includes('\u0000')) throw new Error('NUL');
      return { q };
    });
    app.get('/control', { params: { q: z.string().max(40) } }, function control({ q }) {
      if (q.includes('\u001b')) throw new Error('ESC');
      return { q };
    });
    app.post('/surrogate', { params: { text: z.string() } }, function surrogate({ text }) {
      if (/[\ud800-\udfff]/.test(text.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ''))) throw new Error('lone surrogate');
      return { text };
    });
    app.get('/longest', { params: { name: z.string().max(300) } }, function longest({ name }) {
      if (name.length === 300) throw new Error('full column');
      return { name };
    });
    for (const seed of [11, 12, 13]) {
      const report = await checkContract(app, { seed });
      const found = Object.fromEntries(report.failures.map((f) => [f.operationId, f.request]));
      expect(Object.keys(found).sort(), formatReport(report)).toEqual(['control', 'longest', 'nul', 'surrogate']);
      expect(found.nul!.url).toBe('/nul?q=%00');
      expect(found.control!.url).toBe('/control?q=%1B');
      expect(JSON.parse(found.surrogate!.body!)).toEqual({ text: '\ud800' });
      expect(found.longest!.url).toMatch(/^\/longest\?name=.{300}$/);
    }
  });
});

const postgres = await serviceAvailable('PostgreSQL', DATABASE_URL);

describe.skipIf(!postgres)('a NUL that breaks a query against the real PostgreSQL', () => {
  it('is caught by a default run for each of 3 seeds, shrunk to the NUL alone', async () => {
    const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
    const table = `fnapi_check_nul_${process.pid}`;
    try {
      await pool.query(`create temporary table if not exists ${table} (title text)`);
      const app = quiet();
      app.get('/documents', { params: { title: z.string().max(100).optional() } }, async function findDocuments({ title }) {
        const { rows } = await pool.query('select $1::text as title', [title ?? '']);
        return { title: rows[0].title as string };
      });
      for (const seed of [1, 2, 3]) {
        const report = await checkContract(app, { seed });
        expect(
          report.failures.map((f) => [f.kind, f.request.url]),
          formatReport(report),
        ).toEqual([['server-error', '/documents?title=%00']]);
      }
    } finally {
      await pool.end();
    }
  });
});

describe('fnapi check in a child process', () => {
  const run = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', cli, 'check', fixture, '--runs', '20', '--seed', '1', ...args], {
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '--conditions=@fnapi/source', FNAPI_LOG_LEVEL: undefined, FNAPI_CHECK: undefined },
      timeout: 60_000,
    });

  it('warns, sets FNAPI_CHECK=1 before the app loads, calls DELETE, and keeps info logs quiet', () => {
    const result = run();
    expect(result.stdout).toContain('fnapi check calls every operation, DELETE included,');
    expect(result.stdout.indexOf('--read-only')).toBeLessThan(result.stdout.indexOf('DELETE reached the app'));
    expect(result.stdout).toContain('DELETE reached the app');
    expect(result.stdout).toContain('✓ env  GET /env');
    expect(result.stdout).not.toContain('an info line the check keeps quiet');
    expect(result.stdout).toContain('an error line the check shows');
    expect(result.status, result.stdout).toBe(0);
  }, 60_000);

  it('--read-only never calls DELETE; --methods keeps to the list', () => {
    const readOnly = run('--read-only');
    expect(readOnly.stdout).toContain('fnapi check calls the GET, HEAD, QUERY operations');
    expect(readOnly.stdout).not.toContain('DELETE reached the app');
    expect(readOnly.stdout).toContain('- removeDocument  DELETE /documents/{id}  skipped: method not checked (--read-only)');
    expect(readOnly.status, readOnly.stdout).toBe(0);
    const methods = run('--methods', 'delete');
    expect(methods.stdout).toContain('DELETE reached the app');
    expect(methods.stdout).toContain('- env  GET /env  skipped: method not checked (--methods)');
  }, 60_000);

  it('shows the info logs with --verbose', () => {
    const result = run('--verbose', '--only', 'env');
    expect(result.stdout).toContain('an info line the check keeps quiet');
  }, 60_000);
});
