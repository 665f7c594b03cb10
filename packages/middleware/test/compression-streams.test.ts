/**
 * CompressionMiddleware on streams and its `exclude` option, over real HTTP: gzip and deflate streams
 * built item by item decode whole (checksums and lengths included) and item by item; a stream takes
 * gzip over br when both are equally wanted; and an idle compressed event stream costs under 64 KiB
 * more than an uncompressed one, measured in a child process of its own.
 */
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { type IncomingMessage, request as httpRequest } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { API, JSONResponse, StreamingResponse } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompressionMiddleware } from '../src/index.js';

const here = dirname(fileURLToPath(import.meta.url));

interface Raw {
  headers: IncomingMessage['headers'];
  chunks: Buffer[];
}

async function fetchRaw(base: string, path: string, acceptEncoding: string): Promise<Raw> {
  const req = httpRequest(new URL(path, base), { headers: { 'accept-encoding': acceptEncoding } });
  req.end();
  const [res] = (await once(req, 'response')) as [IncomingMessage];
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  await once(res, 'end');
  return { headers: res.headers, chunks };
}

function decodeAll(raw: Raw): string {
  const bytes = Buffer.concat(raw.chunks);
  switch (raw.headers['content-encoding']) {
    case 'gzip':
      return zlib.gunzipSync(bytes).toString('utf8');
    case 'deflate':
      return zlib.inflateSync(bytes).toString('utf8');
    case 'br':
      return zlib.brotliDecompressSync(bytes).toString('utf8');
    default:
      return bytes.toString('utf8');
  }
}

const big = 'x'.repeat(100_000);
const rows = Array.from({ length: 300 }, (_, id) => `${JSON.stringify({ id, name: `row ${id % 97}`, tags: ['a', 'b'] })}\n`);
const lines = [
  ...Array.from({ length: 50 }, (_, n) => `${JSON.stringify({ n, text: 'row '.repeat(n) })}\n`),
  `${JSON.stringify({ big })}\n`,
];

describe('CompressionMiddleware streams and exclude', () => {
  let client: TestClient;
  beforeAll(async () => {
    const app = new API({ logger: false });
    app.addMiddleware(
      new CompressionMiddleware({
        threshold: 10,
        encodings: ['br', 'gzip', 'deflate'],
        exclude: (request, response) => request.path === '/secret' || response.headers.has('x-secret'),
      }),
    );
    app.get(
      '/lines',
      () =>
        new StreamingResponse(
          (async function* () {
            yield* lines;
          })(),
          { mediaType: 'application/jsonl' },
        ),
    );
    app.get(
      '/rows',
      () =>
        new StreamingResponse(
          (async function* () {
            yield* rows;
          })(),
          { mediaType: 'application/jsonl' },
        ),
    );
    app.get('/secret', () => ({ token: 'a'.repeat(200) }));
    app.get('/marked', () => new JSONResponse({ token: 'b'.repeat(200) }, { headers: { 'x-secret': '1' } }));
    app.get('/plain', () => ({ token: 'c'.repeat(200) }));
    client = await TestClient.start(app);
  });
  afterAll(async () => client?.close());

  it.each(['gzip', 'deflate', 'br'])('sends a %s stream that decodes whole, item after item, a 100 kB item included', async (encoding) => {
    const raw = await fetchRaw(client.url, '/lines', encoding);
    expect(raw.headers['content-encoding']).toBe(encoding);
    expect(decodeAll(raw)).toBe(lines.join(''));
  });

  it.each(['gzip', 'deflate'])('compresses small rows against the rows before them (%s)', async (encoding) => {
    const raw = await fetchRaw(client.url, '/rows', encoding);
    expect(decodeAll(raw)).toBe(rows.join(''));
    const sent = Buffer.concat(raw.chunks).length;
    // Each row alone would not shrink at all; primed with what was sent before, they do.
    expect(sent / Buffer.byteLength(rows.join(''))).toBeLessThan(0.4);
  });

  it('delivers each item decodable as it arrives (gzip, sync-flushed)', async () => {
    const raw = await fetchRaw(client.url, '/lines', 'gzip');
    const inflate = zlib.createGunzip();
    let text = '';
    inflate.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    const first = raw.chunks[0]!;
    inflate.write(first);
    await new Promise<void>((resolve) => inflate.flush(() => resolve()));
    expect(text).toBe(lines[0]);
  });

  it('takes gzip for a stream when gzip and br are equally wanted, br when br is preferred', async () => {
    expect((await fetchRaw(client.url, '/lines', 'gzip, deflate, br')).headers['content-encoding']).toBe('gzip');
    expect((await fetchRaw(client.url, '/lines', 'br;q=1, gzip;q=0.5')).headers['content-encoding']).toBe('br');
    // Whole bodies keep the server's order.
    expect((await fetchRaw(client.url, '/plain', 'gzip, deflate, br')).headers['content-encoding']).toBe('br');
  });

  it('leaves alone what exclude names, by request or by response', async () => {
    for (const path of ['/secret', '/marked']) {
      const raw = await fetchRaw(client.url, path, 'gzip, br');
      expect(raw.headers['content-encoding'], path).toBeUndefined();
      expect(JSON.parse(decodeAll(raw)).token).toHaveLength(200);
    }
    expect(() => new CompressionMiddleware({ exclude: 'yes' as never })).toThrow(TypeError);
  });
});

describe('memory of an idle compressed event stream', () => {
  function measure(encoding: string): { rss: number; external: number } {
    const result = spawnSync(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', join(here, 'fixtures/stream-memory.ts'), encoding, '200'],
      { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '--conditions=@fnapi/source' }, timeout: 60_000 },
    );
    if (result.status !== 0) throw new Error(result.stderr);
    return JSON.parse(result.stdout.trim().split('\n').pop()!) as { rss: number; external: number };
  }

  // RSS moves by a few KiB per stream between identical runs (allocator pages, GC timing): each side
  // is the lower of two runs, so the bound holds the code, not one run's noise.
  const settled = (encoding: string) => {
    const [a, b] = [measure(encoding), measure(encoding)];
    return a.rss <= b.rss ? a : b;
  };

  it('stays under 64 KiB more than an uncompressed stream, for gzip and br', () => {
    const identity = settled('identity');
    for (const encoding of ['gzip', 'br']) {
      const compressed = settled(encoding);
      expect(compressed.rss - identity.rss, `${encoding}: ${JSON.stringify({ identity, compressed })}`).toBeLessThan(64);
      expect(compressed.external, encoding).toBeLessThan(16);
    }
  }, 90_000);
});
