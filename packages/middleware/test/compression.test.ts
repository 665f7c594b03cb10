/**
 * CompressionMiddleware over real HTTP (node:http client, no automatic decoding): negotiation with
 * q-values, node:zlib round trips, the cases left alone, and an event stream compressed as it flows.
 */
import { once } from 'node:events';
import { type IncomingMessage, request as httpRequest } from 'node:http';
import zlib from 'node:zlib';
import { API, Response, StreamingResponse } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompressionMiddleware, negotiateEncoding } from '../src/index.js';

interface Raw {
  status: number;
  headers: IncomingMessage['headers'];
  /** The bytes as sent. */
  bytes: Buffer;
}

function send(base: string, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, base), { method, headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (chunk: Buffer) => parts.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(parts) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function decode(raw: Raw): string {
  switch (raw.headers['content-encoding']) {
    case 'br':
      return zlib.brotliDecompressSync(raw.bytes).toString('utf8');
    case 'gzip':
      return zlib.gunzipSync(raw.bytes).toString('utf8');
    case 'deflate':
      return zlib.inflateSync(raw.bytes).toString('utf8');
    case undefined:
      return raw.bytes.toString('utf8');
    default:
      throw new Error(`unexpected encoding ${raw.headers['content-encoding']}`);
  }
}

const rows = Array.from({ length: 200 }, (_, id) => ({ id, name: `item ${id}`, tags: ['a', 'b', 'c'] }));
const released: (() => void)[] = [];
const streamState = { closed: false, clientLeft: false };

function buildApp(middleware = new CompressionMiddleware()): API {
  const app = new API({ logger: false });
  app.addMiddleware(middleware);
  app.get('/rows', () => rows);
  app.get('/small', () => ({ ok: true }));
  app.get('/text', () => new Response('plain text '.repeat(300), { mediaType: 'text/plain; charset=utf-8' }));
  app.get('/svg', () => new Response(`<svg>${'<g/>'.repeat(500)}</svg>`, { mediaType: 'image/svg+xml' }));
  app.get('/png', () => new Response(new Uint8Array(4096).fill(7), { mediaType: 'image/png' }));
  app.get('/encoded', () => {
    const body = zlib.gzipSync(JSON.stringify(rows));
    return new Response(body, { mediaType: 'application/json', headers: { 'content-encoding': 'gzip' } });
  });
  app.get(
    '/no-transform',
    () => new Response(JSON.stringify(rows), { mediaType: 'application/json', headers: { 'cache-control': 'no-transform' } }),
  );
  app.get('/tagged', () => new Response(JSON.stringify(rows), { mediaType: 'application/json', headers: { etag: '"v1"' } }));
  app.get('/empty', () => new Response(undefined, { statusCode: 204 }));
  // An event stream that waits for the test before each next event: buffering anywhere would hang it.
  app.get('/events', (_input, request) => {
    request.signal.addEventListener('abort', () => void (streamState.clientLeft = true), { once: true });
    return new StreamingResponse(
      (async function* () {
        try {
          for (let n = 1; n <= 3; n++) {
            yield `event: tick\ndata: {"n":${n}}\n\n`;
            await new Promise<void>((resolve) => released.push(resolve));
          }
        } finally {
          streamState.closed = true;
        }
      })(),
      { mediaType: 'text/event-stream', headers: { 'cache-control': 'no-cache' } },
    );
  });
  return app;
}

describe('negotiateEncoding', () => {
  const offered = ['br', 'gzip'] as const;
  it('honours q-values, the server order on ties, * and identity;q=0', () => {
    expect(negotiateEncoding('gzip, deflate, br', offered)).toEqual({ encoding: 'br', identityRefused: false });
    expect(negotiateEncoding('br;q=0.5, gzip;q=0.8', offered).encoding).toBe('gzip');
    expect(negotiateEncoding('br;q=0, *', offered).encoding).toBe('gzip');
    expect(negotiateEncoding('*;q=0.1', offered).encoding).toBe('br');
    expect(negotiateEncoding('identity', offered)).toEqual({ encoding: undefined, identityRefused: false });
    expect(negotiateEncoding('', offered).encoding).toBeUndefined();
    expect(negotiateEncoding(null, offered).encoding).toBeUndefined();
    expect(negotiateEncoding('deflate, identity;q=0', offered)).toEqual({ encoding: undefined, identityRefused: true });
    expect(negotiateEncoding('*;q=0', offered)).toEqual({ encoding: undefined, identityRefused: true });
    expect(negotiateEncoding('*;q=0, identity', offered).identityRefused).toBe(false);
    expect(negotiateEncoding('x-gzip', offered).encoding).toBe('gzip');
    expect(negotiateEncoding('GZIP;Q=1.0', offered).encoding).toBe('gzip');
  });
});

describe('CompressionMiddleware over HTTP', () => {
  let client: TestClient;
  let url: string;
  beforeAll(async () => {
    client = await TestClient.start(buildApp());
    url = client.url;
  });
  afterAll(async () => {
    await client.close();
  });

  it('compresses JSON with br or gzip as asked, with Vary and the length of the compressed bytes', async () => {
    const plain = JSON.stringify(rows);
    for (const [accept, expected] of [
      ['gzip, deflate, br', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0.2, gzip;q=0.9', 'gzip'],
    ] as const) {
      const raw = await send(url, '/rows', { 'accept-encoding': accept });
      expect(raw.status).toBe(200);
      expect(raw.headers['content-encoding']).toBe(expected);
      expect(raw.headers.vary).toBe('Accept-Encoding');
      expect(raw.headers['content-type']).toMatch(/^application\/json/);
      expect(Number(raw.headers['content-length'])).toBe(raw.bytes.byteLength);
      expect(raw.bytes.byteLength).toBeLessThan(plain.length / 3);
      expect(decode(raw)).toBe(plain);
    }
  });

  it('compresses text and SVG, never PNG', async () => {
    const text = await send(url, '/text', { 'accept-encoding': 'gzip' });
    expect(text.headers['content-encoding']).toBe('gzip');
    expect(decode(text)).toBe('plain text '.repeat(300));
    const svg = await send(url, '/svg', { 'accept-encoding': 'br' });
    expect(svg.headers['content-encoding']).toBe('br');
    const png = await send(url, '/png', { 'accept-encoding': 'gzip, br' });
    expect(png.headers['content-encoding']).toBeUndefined();
    expect(png.bytes.byteLength).toBe(4096);
  });

  it('sends the body as it is to a client that asks for identity, or names nothing it supports', async () => {
    const plain = JSON.stringify(rows);
    for (const headers of [{ 'accept-encoding': 'identity' }, { 'accept-encoding': 'deflate' }, {} as Record<string, string>]) {
      const raw = await send(url, '/rows', headers);
      expect(raw.status).toBe(200);
      expect(raw.headers['content-encoding']).toBeUndefined();
      expect(raw.headers.vary).toBe('Accept-Encoding');
      expect(raw.bytes.toString('utf8')).toBe(plain);
      expect(Number(raw.headers['content-length'])).toBe(Buffer.byteLength(plain));
    }
  });

  it('respects identity;q=0: compresses even a small body, and answers 406 when nothing else fits', async () => {
    const small = await send(url, '/small', { 'accept-encoding': 'gzip, identity;q=0' });
    expect(small.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(decode(small))).toEqual({ ok: true });
    const refused = await send(url, '/rows', { 'accept-encoding': 'deflate, identity;q=0' });
    expect(refused.status).toBe(406);
    expect(refused.headers['content-type']).toBe('application/problem+json');
  });

  it('leaves alone a body under the threshold, 204, an encoded body and no-transform', async () => {
    const small = await send(url, '/small', { 'accept-encoding': 'gzip, br' });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.bytes.toString())).toEqual({ ok: true });
    const empty = await send(url, '/empty', { 'accept-encoding': 'gzip' });
    expect(empty.status).toBe(204);
    expect(empty.headers['content-encoding']).toBeUndefined();
    const encoded = await send(url, '/encoded', { 'accept-encoding': 'gzip, br' });
    expect(encoded.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(decode(encoded))).toEqual(rows);
    const noTransform = await send(url, '/no-transform', { 'accept-encoding': 'gzip' });
    expect(noTransform.headers['content-encoding']).toBeUndefined();
  });

  it('HEAD gets the headers its GET would (RFC 9110 §8.6): encoding and Vary, no length it cannot know, no body', async () => {
    for (const [path, accept] of [
      ['/rows', 'gzip'],
      ['/rows', 'br'],
      ['/text', 'gzip, br'],
      ['/svg', 'gzip'],
      ['/small', 'gzip'],
      ['/png', 'gzip'],
      ['/rows', 'identity'],
      ['/no-transform', 'gzip'],
    ]) {
      const got = await send(url, path!, { 'accept-encoding': accept! });
      const head = await send(url, path!, { 'accept-encoding': accept! }, 'HEAD');
      const what = `HEAD ${path} (${accept})`;
      expect(head.status, what).toBe(got.status);
      expect(head.bytes.byteLength, what).toBe(0);
      expect(head.headers['content-encoding'], what).toBe(got.headers['content-encoding']);
      expect(head.headers.vary, what).toBe(got.headers.vary);
      expect(head.headers['content-type'], what).toBe(got.headers['content-type']);
      if (got.headers['content-encoding'] === undefined) expect(head.headers['content-length'], what).toBe(got.headers['content-length']);
      // The compressed length is known only by compressing; a HEAD never announces the uncompressed one.
      else expect(head.headers['content-length'], what).toBeUndefined();
    }
  });

  it('weakens a strong ETag on the compressed variant', async () => {
    const raw = await send(url, '/tagged', { 'accept-encoding': 'gzip' });
    expect(raw.headers.etag).toBe('W/"v1"');
    const plain = await send(url, '/tagged', { 'accept-encoding': 'identity' });
    expect(plain.headers.etag).toBe('"v1"');
  });

  it('compresses an event stream as it flows: each event decodes before the next is produced', async () => {
    for (const encoding of ['gzip', 'br'] as const) {
      released.length = 0;
      const req = httpRequest(new URL('/events', url), { headers: { 'accept-encoding': encoding } });
      req.end();
      const [res] = (await once(req, 'response')) as [IncomingMessage];
      expect(res.headers['content-encoding']).toBe(encoding);
      expect(res.headers['content-length']).toBeUndefined();
      expect(res.headers.vary).toBe('Accept-Encoding');
      const decoder = encoding === 'gzip' ? zlib.createGunzip() : zlib.createBrotliDecompress();
      res.pipe(decoder);
      let text = '';
      const seen: number[] = [];
      decoder.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        for (const match of text.matchAll(/data: \{"n":(\d)\}\n\n/g)) {
          const n = Number(match[1]);
          if (!seen.includes(n)) {
            seen.push(n);
            // Only now may the generator produce the next event.
            released.shift()?.();
          }
        }
      });
      await once(decoder, 'end');
      expect(seen).toEqual([1, 2, 3]);
      expect(text).toBe([1, 2, 3].map((n) => `event: tick\ndata: {"n":${n}}\n\n`).join(''));
    }
  });

  it('closes the stream’s generator when the client goes away mid-stream', async () => {
    released.length = 0;
    streamState.closed = false;
    streamState.clientLeft = false;
    const req = httpRequest(new URL('/events', url), { headers: { 'accept-encoding': 'gzip' } });
    req.end();
    const [res] = (await once(req, 'response')) as [IncomingMessage];
    await once(res, 'data');
    req.destroy();
    await expect.poll(() => released.length, { timeout: 5000 }).toBe(1);
    // The generator is waiting for the test: it can be closed at its next yield, once the server has
    // seen the client go (the next item is then never written).
    await expect.poll(() => streamState.clientLeft, { timeout: 5000 }).toBe(true);
    released.shift()!();
    await expect.poll(() => streamState.closed, { timeout: 5000 }).toBe(true);
  });

  it('refuses unknown encodings and levels when built', () => {
    expect(() => new CompressionMiddleware({ encodings: ['zstd' as never] })).toThrow(TypeError);
    expect(() => new CompressionMiddleware({ level: 12 })).toThrow(RangeError);
  });
});

describe('CompressionMiddleware options', () => {
  it('takes a threshold, an encoding list and a level', async () => {
    const client = await TestClient.start(buildApp(new CompressionMiddleware({ threshold: 1, encodings: ['deflate'], level: 9 })));
    try {
      const raw = await send(client.url, '/small', { 'accept-encoding': 'gzip, deflate, br' });
      expect(raw.headers['content-encoding']).toBe('deflate');
      expect(JSON.parse(decode(raw))).toEqual({ ok: true });
    } finally {
      await client.close();
    }
  });
});
