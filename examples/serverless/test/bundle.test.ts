import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, expect, it } from 'vitest';

// Lambda functions are deployed as one bundled file, without node_modules beside it. The bundled
// entry must start and answer every route, the docs pages included (they load Swagger UI and ReDoc
// from a CDN when the package files are not on disk).

const here = fileURLToPath(new URL('.', import.meta.url));
const firstEvent = join(here, '..', '..', '..', 'bench', 'coldstart', 'first-event.mjs');
let dir: string;
let bundle: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fnapi-bundle-'));
  bundle = join(dir, 'lambda.mjs');
  await build({
    entryPoints: [join(here, '..', 'src', 'lambda.ts')],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['@fnapi/source'],
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    logLevel: 'error',
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function answer(path: string): { body: string } {
  const result = spawnSync(process.execPath, [firstEvent, pathToFileURL(bundle).href, path], { encoding: 'utf8', cwd: dir });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return JSON.parse(result.stdout.trim().split('\n').pop()!) as { body: string };
}

it('the bundled Lambda entry answers its first event in a fresh process', () => {
  expect(JSON.parse(answer('/hello').body)).toEqual({ message: 'hello' });
});

it('serves the docs page from a bundle, loading Swagger UI from the CDN', () => {
  const html = answer('/docs').body;
  expect(html).toContain('https://cdn.jsdelivr.net/npm/swagger-ui-dist@');
  expect(html).toContain('/openapi.json');
});

it('serves the OpenAPI document from a bundle', () => {
  expect(JSON.parse(answer('/openapi.json').body)).toMatchObject({ openapi: '3.1.0', paths: { '/hello': {} } });
});
