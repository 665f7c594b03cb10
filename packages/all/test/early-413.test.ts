/**
 * The early 413: a request announcing `Expect: 100-continue` with a Content-Length over `bodyLimit`
 * is answered without the body ever being asked for, yet the answer passes through the app's
 * middleware and the endpoint's guards: CORS headers on it, metrics and the request log see it, and
 * an unauthenticated caller gets 401 first. A real node:http client over loopback sends it.
 */
import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import { jwtRequired, createToken } from '@fnapi/auth';
import { API, type RunningServer, z } from '@fnapi/core';
import { CORSMiddleware, LoggingMiddleware } from '@fnapi/middleware';
import { createLogger, MetricsMiddleware } from '@fnapi/monitoring';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SECRET = 'a-long-test-secret-of-at-least-32-bytes!';
const LIMIT = 1024;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The server sent `100 Continue` (it asked for the body). */
  continued: boolean;
  /** Bytes of the body the client wrote. */
  sent: number;
}

/** POSTs with `Expect: 100-continue`, writing the body only if the server asks for it. */
function expectContinue(url: string, length: number, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let continued = false;
    let sent = 0;
    const req = httpRequest(`${url}/upload`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(length), expect: '100-continue', ...headers },
    });
    req.on('continue', () => {
      continued = true;
      const body = Buffer.alloc(length, 0x20);
      sent = body.length;
      req.end(body);
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, continued, sent }));
    });
    req.on('error', reject);
    req.flushHeaders();
  });
}

describe('an early 413 passes through middleware and guards', () => {
  const logLines: Record<string, unknown>[] = [];
  const metrics = new MetricsMiddleware({ defaultMetrics: false });
  let server: RunningServer;
  let handled = 0;

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n')) if (line) logLines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const app = new API({ logger: false, bodyLimit: LIMIT });
    app.addMiddleware(new CORSMiddleware({ allowOrigins: ['https://app.example'] }));
    app.addMiddleware(metrics);
    app.addMiddleware(new LoggingMiddleware({ logger: createLogger({ level: 'info' }, sink) }));
    app.post(
      '/upload',
      { params: { data: z.string() } },
      jwtRequired({ secret: SECRET, algorithm: 'HS256' })(({ data }: { data: string }) => {
        handled++;
        return { size: data.length };
      }),
    );
    server = await app.run({ port: 0, handleSignals: false });
  });
  afterAll(() => server.close());

  const origin = { origin: 'https://app.example' };

  it('answers an unauthenticated caller 401 first, without asking for the body', async () => {
    const answer = await expectContinue(server.url, LIMIT * 100, origin);
    expect(answer.status).toBe(401);
    expect(answer.continued).toBe(false);
    expect(answer.sent).toBe(0);
    expect(answer.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(answer.headers['access-control-allow-origin']).toBe('https://app.example');
  });

  it('answers an authenticated caller 413 without reading the body, with CORS headers, metrics and a log line', async () => {
    const token = await createToken({ sub: 'ada' }, { secret: SECRET, algorithm: 'HS256' });
    const before = logLines.length;
    const answer = await expectContinue(server.url, LIMIT * 100, { ...origin, authorization: `Bearer ${token}` });
    expect(answer.status).toBe(413);
    expect(answer.continued).toBe(false);
    expect(answer.sent).toBe(0);
    expect(answer.headers.connection).toBe('close');
    expect(answer.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(answer.body)).toMatchObject({ status: 413, title: 'Content Too Large' });
    expect(answer.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(handled).toBe(0);

    const logged = logLines.slice(before).find((line) => line.msg === 'request completed');
    expect(logged).toMatchObject({ method: 'POST', path: '/upload', status: 413 });
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/status="413"/);
    expect(text).toMatch(/status="401"/);
  });

  it('still asks for a body within the limit and serves it', async () => {
    const token = await createToken({ sub: 'ada' }, { secret: SECRET, algorithm: 'HS256' });
    const length = JSON.stringify({ data: 'abc' }).length;
    const answer = await new Promise<Answer>((resolve, reject) => {
      let continued = false;
      const req = httpRequest(`${server.url}/upload`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': String(length),
          expect: '100-continue',
          authorization: `Bearer ${token}`,
        },
      });
      req.on('continue', () => {
        continued = true;
        req.end(JSON.stringify({ data: 'abc' }));
      });
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, continued, sent: length }));
      });
      req.on('error', reject);
      req.flushHeaders();
    });
    expect(answer.continued).toBe(true);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ size: 3 });
  });
});
