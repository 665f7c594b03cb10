/**
 * The three ways of sending a request without deploying: TestClient (real HTTP), inject, fetch.
 */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { API, z } from '../src/index.js';
import { TestClient } from '../src/server/testing.js';

function build(): API {
  const app = new API({ logger: false });
  app.get('/search', { params: { q: z.string(), tag: z.array(z.string()).default([]) } }, (input, request) => ({
    ...input,
    raw: request.url.search,
  }));
  app.post('/echo', async (_input, request) => ({
    contentType: request.headers.get('content-type'),
    text: await request.text(),
  }));
  app.put('/method', (_input, request) => request.method);
  app.patch('/method', (_input, request) => request.method);
  app.delete('/method', (_input, request) => request.method);
  app.get('/method', (_input, request) => request.method);
  app.api({ route: '/method', method: 'OPTIONS' }, (_input, request) => request.method);
  app.get('/cookies', () => {
    const headers = new Headers();
    headers.append('set-cookie', 'a=1');
    headers.append('set-cookie', 'b=2');
    return new globalThis.Response('ok', { headers });
  });
  return app;
}

describe('TestClient', () => {
  it('sends every method, JSON, raw bodies and query strings over real HTTP', async () => {
    const client = await TestClient.start(build());
    try {
      expect(client.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      for (const method of ['get', 'put', 'patch', 'delete', 'options'] as const) {
        const res = await client[method]('/method');
        expect(res.status).toBe(200);
        expect(res.json()).toBe(method.toUpperCase());
      }
      const head = await client.head('/method');
      expect(head.status).toBe(200);
      expect(head.body).toBe('');

      const json = await client.post('/echo', { json: { a: [1] } });
      expect(json.json()).toEqual({ contentType: 'application/json', text: '{"a":[1]}' });
      const typed = await client.post('/echo', { json: { a: 1 }, headers: { 'Content-Type': 'application/merge-patch+json' } });
      expect(typed.json()).toEqual({ contentType: 'application/merge-patch+json', text: '{"a":1}' });
      const raw = await client.post('/echo', { body: new TextEncoder().encode('bytes'), headers: { 'content-type': 'text/plain' } });
      expect(raw.json()).toEqual({ contentType: 'text/plain', text: 'bytes' });

      const search = await client.get('/search', { query: { q: 'a b', tag: ['x', 'y'] } });
      expect(search.json()).toEqual({ q: 'a b', tag: ['x', 'y'], raw: '?q=a+b&tag=x&tag=y' });
      const appended = await client.get('/search?q=first', { query: { tag: 'z' } });
      expect(appended.json()).toEqual({ q: 'first', tag: ['z'], raw: '?q=first&tag=z' });

      const cookies = await client.get('/cookies');
      expect(cookies.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    } finally {
      await client.close();
    }
  });

  it('two clients get two ephemeral ports; close() stops the server', async () => {
    const app = build();
    const one = await TestClient.start(app);
    const two = await TestClient.start(build());
    expect(one.url).not.toBe(two.url);
    await two.close();
    const port = Number(new URL(one.url).port);
    await one.close();
    await expect(
      new Promise((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.destroy();
          resolve('connected');
        });
        socket.on('error', reject);
      }),
    ).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe('app.inject', () => {
  const app = build();

  it('takes a URL string', async () => {
    const res = await app.inject('/search?q=x');
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ q: 'x', tag: [], raw: '?q=x' });
  });

  it('adds a leading slash', async () => {
    const res = await app.inject({ url: 'method' });
    expect(res.json()).toBe('GET');
  });

  it('sends an object body as JSON, and strings and bytes as they are', async () => {
    expect((await app.inject({ method: 'POST', url: '/echo', body: { a: 1 } })).json()).toEqual({
      contentType: 'application/json',
      text: '{"a":1}',
    });
    expect((await app.inject({ method: 'post', url: '/echo', body: 'text', headers: { 'Content-Type': 'text/plain' } })).json()).toEqual({
      contentType: 'text/plain',
      text: 'text',
    });
    expect((await app.inject({ method: 'POST', url: '/echo', body: new Uint8Array([104, 105]) })).json()).toEqual({
      contentType: null,
      text: 'hi',
    });
  });

  it('answers repeated headers as lists and a synchronous json()', async () => {
    const res = await app.inject('/cookies');
    expect(res.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(res.body).toBe('ok');
    expect(() => res.json()).toThrow(SyntaxError);
  });
});

describe('app.fetch', () => {
  const app = build();

  it('is a Web-standard handler', async () => {
    const { fetch } = app;
    const res = await fetch(new Request('https://api.example/search?q=web&tag=t'));
    expect(res).toBeInstanceOf(globalThis.Response);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({ q: 'web', tag: ['t'], raw: '?q=web&tag=t' });
  });

  it('reads a Web Request body', async () => {
    const res = await app.fetch(
      new Request('http://localhost/echo', {
        method: 'POST',
        body: JSON.stringify({ a: 2 }),
        headers: { 'content-type': 'application/json' },
      }),
    );
    expect(await res.json()).toEqual({ contentType: 'application/json', text: '{"a":2}' });
  });

  it('keeps every Set-Cookie', async () => {
    const res = await app.fetch(new Request('http://localhost/cookies'));
    expect(res.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
  });
});

describe('request targets on a raw connection', () => {
  function exchange(url: string, payload: string): Promise<string> {
    const { hostname, port } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), hostname);
      let received = '';
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => {
        received += chunk;
        const end = received.indexOf('\r\n\r\n');
        const length = /content-length: (\d+)/i.exec(received);
        if (end !== -1 && length && received.length >= end + 4 + Number(length[1])) {
          socket.destroy();
          resolve(received);
        }
      });
      socket.on('error', reject);
      socket.on('close', () => resolve(received));
      socket.write(payload);
    });
  }

  it('serves an absolute-form target by its path and query', async () => {
    const client = await TestClient.start(build());
    try {
      const answer = await exchange(client.url, 'GET http://example.com/search?q=abs HTTP/1.1\r\nHost: example.com\r\n\r\n');
      expect(answer).toMatch(/^HTTP\/1\.1 200 /);
      expect(answer.slice(answer.indexOf('\r\n\r\n') + 4)).toBe('{"q":"abs","tag":[],"raw":"?q=abs"}');
    } finally {
      await client.close();
    }
  });

  it('answers 400 to an asterisk-form target', async () => {
    const client = await TestClient.start(build());
    try {
      const answer = await exchange(client.url, 'OPTIONS * HTTP/1.1\r\nHost: localhost\r\n\r\n');
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(answer).toMatch(/content-type: application\/problem\+json/i);
    } finally {
      await client.close();
    }
  });
});
