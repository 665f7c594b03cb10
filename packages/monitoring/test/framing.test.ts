/**
 * Monitoring observes without changing framing: under `MetricsMiddleware` and `TracingMiddleware`
 * (with `LoggingMiddleware` beside them) a file download keeps its `Content-Length` for 200, 206 and
 * HEAD answers, over real HTTP and through `app.fetch`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API, FileResponse } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { LoggingMiddleware } from '@fnapi/middleware';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetricsMiddleware, TracingMiddleware } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'fnapi-monitoring-framing-'));
const path = join(dir, 'export.csv');
const CONTENT = 'a,b,c\n'.repeat(4000);
writeFileSync(path, CONTENT);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function raw(
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

describe('a file download under metrics, tracing and logging', () => {
  const lines: unknown[] = [];
  let app: API;
  let client: TestClient;
  beforeAll(async () => {
    app = new API({ logger: false });
    app.addMiddleware(new MetricsMiddleware({ registry: new Registry(), defaultMetrics: false }));
    app.addMiddleware(new TracingMiddleware());
    app.addMiddleware(new LoggingMiddleware({ logger: pino({}, { write: (line: string) => void lines.push(line) }) }));
    app.get('/export', () => new FileResponse(path));
    client = await TestClient.start(app);
  });
  afterAll(() => client.close());

  it('keeps Content-Length over HTTP for 200, 206 and HEAD', async () => {
    const whole = await raw(`${client.url}/export`, 'GET');
    expect(whole.headers['content-length']).toBe(String(CONTENT.length));
    expect(whole.headers['transfer-encoding']).toBeUndefined();
    expect(whole.body).toBe(CONTENT);
    const part = await raw(`${client.url}/export`, 'GET', { range: 'bytes=-6' });
    expect(part.status).toBe(206);
    expect(part.headers['content-length']).toBe('6');
    expect(part.headers['transfer-encoding']).toBeUndefined();
    expect(part.body).toBe('a,b,c\n');
    const head = await raw(`${client.url}/export`, 'HEAD');
    expect(head.headers['content-length']).toBe(String(CONTENT.length));
    expect(head.headers['transfer-encoding']).toBeUndefined();
    await expect.poll(() => lines.length).toBe(3);
  });

  it('keeps Content-Length through app.fetch for 200, 206 and HEAD', async () => {
    const whole = await app.fetch(new Request('http://local/export'));
    expect(whole.headers.get('content-length')).toBe(String(CONTENT.length));
    expect((await whole.text()).length).toBe(CONTENT.length);
    const part = await app.fetch(new Request('http://local/export', { headers: { range: 'bytes=0-4' } }));
    expect(part.status).toBe(206);
    expect(part.headers.get('content-length')).toBe('5');
    expect(await part.text()).toBe('a,b,c');
    const head = await app.fetch(new Request('http://local/export', { method: 'HEAD' }));
    expect(head.headers.get('content-length')).toBe(String(CONTENT.length));
  });
});
