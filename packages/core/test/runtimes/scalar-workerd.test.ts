/**
 * `docsUi: 'scalar'` on workerd (bundled as wrangler does, without nodejs_compat): no file system, so
 * the page loads the pinned `@scalar/api-reference` from the CDN with Subresource Integrity, and the
 * per-version documents and deprecation headers are served as on Node.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadMiniflare } from '@fnapi/test-support';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const here = fileURLToPath(new URL('.', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'fnapi-scalar-workerd-'));
let send: (path: string) => Promise<globalThis.Response>;
let dispose: (() => Promise<void>) | undefined;

beforeAll(async () => {
  const outfile = join(dir, 'worker.mjs');
  await build({
    entryPoints: [join(here, 'scalar-app.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    logLevel: 'error',
    conditions: ['@fnapi/source', 'workerd', 'worker', 'browser'],
    platform: 'neutral',
    mainFields: ['browser', 'module', 'main'],
    target: 'es2022',
  });
  const { Miniflare } = await loadMiniflare();
  const worker = new Miniflare({ modules: true, script: readFileSync(outfile, 'utf8'), compatibilityDate: '2025-09-01' });
  dispose = () => worker.dispose();
  send = (path) => worker.dispatchFetch(`http://127.0.0.1${path}`) as unknown as Promise<globalThis.Response>;
}, 60_000);

afterAll(async () => {
  await dispose?.();
  rmSync(dir, { recursive: true, force: true });
});

describe("docsUi: 'scalar' on workerd", () => {
  it('loads the pinned bundle from the CDN with its integrity hash, on every docs page', async () => {
    for (const path of ['/docs', '/v1/docs']) {
      const page = await send(path);
      expect(page.status, path).toBe(200);
      const html = await page.text();
      expect(html).toMatch(
        /<script src="https:\/\/cdn\.jsdelivr\.net\/npm\/@scalar\/api-reference@\d+\.\d+\.\d+\/dist\/browser\/standalone\.js" integrity="sha384-[A-Za-z0-9+/=]{64}" crossorigin="anonymous"><\/script>/,
      );
      expect(page.headers.get('content-security-policy')).toContain('https://cdn.jsdelivr.net');
      const init = /<script src="(\/_fnapi\/docs\/[^"]+scalar-init\.js)"/.exec(html)![1]!;
      expect(await (await send(init)).text()).toContain('withDefaultFonts: false');
    }
  });

  it('serves the version document and the deprecation headers as Node does', async () => {
    const document = (await (await send('/v1/openapi.json')).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths)).toEqual(['/v1/hello/{name}']);
    const hello = await send('/v1/hello/Ada');
    expect(await hello.json()).toEqual({ message: 'Hello, Ada!' });
    expect(hello.headers.get('deprecation')).toBe('@1796083200');
  });
});
