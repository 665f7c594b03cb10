/**
 * Observing middleware never changes framing: a file download keeps its `Content-Length` (200, 206,
 * HEAD) under `LoggingMiddleware`, over real HTTP and through `app.fetch`, and the line still has the
 * status and the bytes sent.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API, FileResponse, type Middleware } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LoggingMiddleware, ProfileMiddleware } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'fnapi-logging-framing-'));
const path = join(dir, 'report.csv');
const CONTENT = 'id,name\n'.repeat(5000);
writeFileSync(path, CONTENT);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The raw head of an answer as node:http received it: the framing headers undici would hide. */
function rawHead(
  url: string,
  method: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      let body = '';
      res.setEncoding('latin1');
      res.on('data', (chunk: string) => void (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function build(middleware: Middleware[]): API {
  const app = new API({ logger: false });
  for (const each of middleware) app.addMiddleware(each);
  app.get('/report', () => new FileResponse(path));
  app.get('/bytes', () => new FileResponse(new TextEncoder().encode('0123456789'), { filename: 'ten.txt' }));
  // A file answered by a middleware inside the logging one: settled before it is observed.
  app.addMiddleware(async (request, callNext) => (request.path === '/from-middleware' ? new FileResponse(path) : callNext(request)));
  return app;
}

const STACKS: { name: string; make: (lines: Record<string, unknown>[]) => Middleware[] }[] = [
  {
    name: 'LoggingMiddleware',
    make: (lines) => [new LoggingMiddleware({ logger: pino({}, { write: (line: string) => void lines.push(JSON.parse(line)) }) })],
  },
  {
    name: 'LoggingMiddleware and ProfileMiddleware',
    make: (lines) => [
      new ProfileMiddleware(),
      new LoggingMiddleware({ logger: pino({}, { write: (line: string) => void lines.push(JSON.parse(line)) }) }),
    ],
  },
];

describe.each(STACKS)('under $name', ({ make }) => {
  const lines: Record<string, unknown>[] = [];
  let app: API;
  let client: TestClient;
  beforeAll(async () => {
    app = build(make(lines));
    client = await TestClient.start(app);
  });
  afterAll(() => client.close());

  it('a file keeps its Content-Length over HTTP: 200, 206 and HEAD, never chunked', async () => {
    for (const route of ['/report', '/from-middleware']) {
      const whole = await rawHead(client.url + route, 'GET');
      expect(whole.status, route).toBe(200);
      expect(whole.headers['content-length'], route).toBe(String(CONTENT.length));
      expect(whole.headers['transfer-encoding'], route).toBeUndefined();
      expect(whole.body, route).toBe(CONTENT);

      const part = await rawHead(client.url + route, 'GET', { range: 'bytes=0-6' });
      expect(part.status, route).toBe(206);
      expect(part.headers['content-length'], route).toBe('7');
      expect(part.headers['transfer-encoding'], route).toBeUndefined();
      expect(part.body, route).toBe('id,name');

      const head = await rawHead(client.url + route, 'HEAD');
      expect(head.status, route).toBe(200);
      expect(head.headers['content-length'], route).toBe(String(CONTENT.length));
      expect(head.headers['transfer-encoding'], route).toBeUndefined();
      expect(head.body, route).toBe('');
    }
    const bytes = await rawHead(`${client.url}/bytes`, 'GET');
    expect(bytes.headers['content-length']).toBe('10');
    expect(bytes.headers['transfer-encoding']).toBeUndefined();
  });

  it('a file keeps its Content-Length through app.fetch: 200, 206 and HEAD', async () => {
    for (const route of ['/report', '/from-middleware']) {
      const whole = await app.fetch(new Request(`http://local${route}`));
      expect(whole.headers.get('content-length'), route).toBe(String(CONTENT.length));
      expect(await whole.text(), route).toBe(CONTENT);
      const part = await app.fetch(new Request(`http://local${route}`, { headers: { range: 'bytes=8-14' } }));
      expect(part.status, route).toBe(206);
      expect(part.headers.get('content-length'), route).toBe('7');
      expect(await part.text(), route).toBe('id,name');
      const head = await app.fetch(new Request(`http://local${route}`, { method: 'HEAD' }));
      expect(head.headers.get('content-length'), route).toBe(String(CONTENT.length));
      expect(await head.text(), route).toBe('');
    }
  });

  it('still logs each download with its status and the bytes sent, a 304 from a middleware too', async () => {
    lines.length = 0;
    await rawHead(`${client.url}/report`, 'GET', { range: 'bytes=0-6' });
    const etag = (await rawHead(`${client.url}/from-middleware`, 'HEAD')).headers.etag as string;
    expect((await rawHead(`${client.url}/from-middleware`, 'GET', { 'if-none-match': etag })).status).toBe(304);
    await expect.poll(() => lines.length).toBeGreaterThanOrEqual(3);
    expect(lines[0]).toMatchObject({ method: 'GET', path: '/report', status: 206, size: 7 });
    expect(lines[1]).toMatchObject({ method: 'HEAD', path: '/from-middleware', status: 200 });
    expect(lines[2]).toMatchObject({ method: 'GET', path: '/from-middleware', status: 304 });
  });
});
