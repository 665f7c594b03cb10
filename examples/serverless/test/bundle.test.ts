import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Lambda functions are deployed as bundled files, without node_modules beside them: one file, or an
// entry with the chunks esbuild's code splitting makes of what is loaded with import(). Either bundle
// must start and answer every route, the docs pages included (they load Swagger UI and ReDoc from a
// CDN when the package files are not on disk), and a split one must load its chunks when first used.

const here = fileURLToPath(new URL('.', import.meta.url));
const firstEvent = join(here, '..', '..', '..', 'bench', 'coldstart', 'first-event.mjs');
const sendEvent = join(here, 'fixtures', 'send-event.mjs');
let dir: string;

async function bundle(entry: string, out: string, splitting: boolean): Promise<string> {
  await build({
    entryPoints: [entry],
    outdir: join(dir, out),
    outExtension: { '.js': '.mjs' },
    splitting,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['@fnapi/source'],
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    logLevel: 'error',
  });
  return join(dir, out, entry.split('/').pop()!.replace(/\.ts$/, '.mjs'));
}

const bundles: Record<'one file' | 'split', string> = { 'one file': '', split: '' };
let uploadBundle: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fnapi-bundle-'));
  const lambda = join(here, '..', 'src', 'lambda.ts');
  bundles['one file'] = await bundle(lambda, 'one-file', false);
  bundles.split = await bundle(lambda, 'split', true);
  uploadBundle = await bundle(join(here, 'fixtures', 'upload-lambda.ts'), 'upload', true);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function answer(file: string, path: string): { body: string } {
  const result = spawnSync(process.execPath, [firstEvent, pathToFileURL(file).href, path], { encoding: 'utf8', cwd: dir });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return JSON.parse(result.stdout.trim().split('\n').pop()!) as { body: string };
}

describe.each(['one file', 'split'] as const)('a Lambda bundle, %s', (form) => {
  it('answers its first event in a fresh process', () => {
    expect(JSON.parse(answer(bundles[form], '/hello').body)).toEqual({ message: 'hello' });
  });

  it('serves the docs page, loading Swagger UI from the CDN', () => {
    const html = answer(bundles[form], '/docs').body;
    expect(html).toContain('https://cdn.jsdelivr.net/npm/swagger-ui-dist@');
    expect(html).toContain('/openapi.json');
  });

  it('serves the OpenAPI document', () => {
    expect(JSON.parse(answer(bundles[form], '/openapi.json').body)).toMatchObject({ openapi: '3.1.0', paths: { '/hello': {} } });
  });
});

it('a split bundle keeps the multipart parser out of the entry and loads it for the first upload', () => {
  const files = readdirSync(join(dir, 'upload'));
  expect(files.length).toBeGreaterThan(1);
  const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
  const boundary = 'fnapi-boundary';
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="avatar"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`),
    png,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const event = {
    version: '2.0',
    routeKey: '$default',
    rawPath: '/avatar',
    rawQueryString: '',
    headers: { host: 'example.lambda-url.us-east-1.on.aws', 'content-type': `multipart/form-data; boundary=${boundary}` },
    requestContext: {
      http: { method: 'POST', path: '/avatar', protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'test' },
      requestId: 'test',
      routeKey: '$default',
      stage: '$default',
      timeEpoch: 1795514400000,
    },
    body: body.toString('base64'),
    isBase64Encoded: true,
  };
  // A parser that never arrives would keep the process waiting for it: bounded, so that fails here.
  const result = spawnSync(process.execPath, [sendEvent, pathToFileURL(uploadBundle).href, JSON.stringify(event)], {
    encoding: 'utf8',
    cwd: dir,
    timeout: 30_000,
  });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  const answered = JSON.parse(result.stdout.trim()) as { statusCode: number; body: string };
  expect(answered.statusCode).toBe(200);
  expect(JSON.parse(answered.body)).toEqual({ name: 'a.png', type: 'image/png', size: png.length });
});
