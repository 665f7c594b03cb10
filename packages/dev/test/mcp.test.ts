/**
 * `fnapi check --mcp` (every tool called through the official client, results checked against their
 * schemas) and `fnapi mcp <entry> --list` in a real child process.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { API, JSONResponse, NotFoundError, z } from '@fnapi/core';
import { mcp } from '@fnapi/mcp';
import { describe, expect, it } from 'vitest';
import { checkTools, formatToolReport } from '../src/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const Item = z.object({ id: z.int(), name: z.string() });

function shop(broken: boolean) {
  const app = new API({ logger: false });
  app.get('/items/{id}', { params: { id: z.int().min(1) }, response: Item, mcp: true }, function getItem({ id }) {
    if (id > 50) throw new NotFoundError(`No item ${id}`);
    return broken ? new JSONResponse({ id: String(id) }) : { id, name: `item ${id}` };
  });
  app.post(
    '/items',
    { params: { item: z.object({ name: z.string().min(1) }) }, response: Item, statusCode: 201, mcp: true },
    function addItem({ item }) {
      return { id: 1, name: item.name };
    },
  );
  app.extend(mcp());
  return app;
}

describe('fnapi check --mcp', () => {
  it('passes tools whose answers fit their schemas', async () => {
    const report = await checkTools(shop(false), { runs: 15, seed: 7 });
    expect(report.failures).toEqual([]);
    expect(report.tools.map((tool) => [tool.name, tool.calls])).toEqual([
      ['getItem', 15],
      ['addItem', 15],
    ]);
    expect(report.tools[0]!.errors).toBeGreaterThan(0);
    expect(formatToolReport(report)).toContain('✓ tool getItem');
  });

  it('reports a tool whose answer breaks its outputSchema', async () => {
    const report = await checkTools(shop(true), { runs: 10, seed: 7, only: ['getItem'] });
    expect(report.ok).toBe(false);
    expect(report.failures[0]).toMatchObject({ tool: 'getItem' });
    expect(formatToolReport(report)).toContain('FAIL tool getItem');
  });
});

describe('fnapi mcp --list', () => {
  it('prints the catalogue of the entry through the fnapi-mcp of @fnapi/mcp', () => {
    const entry = join(here, '../../../examples/mcp/src/app.ts');
    const result = spawnSync(process.execPath, ['--import', 'tsx', join(here, '../src/cli.ts'), 'mcp', entry, '--list'], {
      encoding: 'utf8',
      cwd: join(here, '../../../examples/mcp'),
      env: { ...process.env, NODE_OPTIONS: '--conditions=@fnapi/source' },
      timeout: 60_000,
    });
    expect(result.status, result.stderr).toBe(0);
    const catalogue = JSON.parse(result.stdout) as { tools: Array<{ name: string }> };
    expect(catalogue.tools.map((tool) => tool.name).sort()).toEqual(['addBook', 'deleteBook', 'getBook', 'listBooks']);
  });
});
