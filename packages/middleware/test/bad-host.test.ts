/**
 * A malformed `Host` under the built-in middleware, over raw sockets (a client library would refuse
 * to send one): every route answers 400 with a problem body, logged by `LoggingMiddleware` as a 400,
 * and a middleware that reads `request.url` before routing never turns it into a 500.
 */
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { API, type CallNext, type Request } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompressionMiddleware, CORSMiddleware, LoggingMiddleware } from '../src/index.js';

function exchange(url: string, payload: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    const timer = setTimeout(() => socket.destroy(), 3000);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
    socket.on('error', () => {});
    socket.write(payload);
  });
}

describe('a malformed Host under middleware', () => {
  const lines: Record<string, any>[] = [];
  const seen: string[] = [];
  let client: TestClient;
  beforeAll(async () => {
    const stream = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
        done();
      },
    });
    const app = new API({ logger: false });
    app.addMiddleware(new LoggingMiddleware({ logger: pino(stream) }));
    // Reads the URL before routing, as an audit or tracing middleware would.
    app.addMiddleware(async (request: Request, callNext: CallNext) => {
      seen.push(request.url.pathname);
      return callNext(request);
    });
    app.addMiddleware(new CORSMiddleware());
    app.addMiddleware(new CompressionMiddleware());
    app.get('/session', (_input, request) => {
      request.setCookie('sid', 'abc');
      return { url: request.url.href };
    });
    client = await TestClient.start(app);
  });
  afterAll(async () => {
    await client.close();
  });

  for (const host of ['a b', '[::1', 'x:99999', '%', 'x?y', 'x/y']) {
    it(`Host: ${host} → 400, logged as 400, the URL's path the routed one`, async () => {
      lines.length = 0;
      seen.length = 0;
      const raw = await exchange(
        client.url,
        `GET /session HTTP/1.1\r\nHost: ${host}\r\nOrigin: https://app.example\r\nConnection: close\r\n\r\n`,
      );
      expect(raw.startsWith('HTTP/1.1 400 ')).toBe(true);
      expect(raw).toMatch(/content-type: application\/problem\+json/i);
      expect(raw).toMatch(/access-control-allow-origin: \*/i);
      expect(raw).not.toMatch(/set-cookie/i);
      expect(seen).toEqual(['/session']);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ method: 'GET', path: '/session', status: 400 });
    });
  }

  it('a valid Host is served, the cookie set', async () => {
    const raw = await exchange(client.url, 'GET /session HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n');
    expect(raw.startsWith('HTTP/1.1 200 ')).toBe(true);
    expect(raw).toMatch(/set-cookie: sid=abc/i);
    expect(raw).toContain('"url":"http://example.com/session"');
  });
});
