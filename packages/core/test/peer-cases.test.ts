/**
 * Cases ported from Fastify's and Hono's test suites where fnapi answered differently, over real
 * HTTP (raw sockets where a client library would refuse to send the request): a malformed `Host` or
 * `X-Forwarded-Host` is 400, never a 500, and `request.url`'s path is always the routed one; a
 * malformed percent-escape in the path is 400; a returned 1xx is a 500, never a final answer; a
 * `StreamingResponse` whose source fails before its first chunk is an error answer.
 */
import { connect } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, NotFoundError, StreamingResponse } from '../src/index.js';
import { TestClient } from '../src/server/testing.js';

/** Sends raw request bytes on one connection and reads until the server closes it (or `ms` pass). */
function exchange(url: string, payload: string, ms = 3000): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    const timer = setTimeout(() => socket.destroy(), ms);
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

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The answers in a raw exchange, in order (bodies by Content-Length or chunked). */
function answers(text: string): RawAnswer[] {
  const out: RawAnswer[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/1.1 ')) {
    const end = rest.indexOf('\r\n\r\n');
    if (end === -1) break;
    const lines = rest.slice(0, end).split('\r\n');
    const status = Number(lines[0]!.split(' ')[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    rest = rest.slice(end + 4);
    let body = '';
    if (headers['content-length'] !== undefined) {
      const length = Number(headers['content-length']);
      body = rest.slice(0, length);
      rest = rest.slice(length);
    } else if (headers['transfer-encoding'] === 'chunked') {
      for (;;) {
        const lineEnd = rest.indexOf('\r\n');
        const size = Number.parseInt(rest.slice(0, lineEnd), 16);
        rest = rest.slice(lineEnd + 2);
        if (!(size > 0)) {
          rest = rest.slice(2);
          break;
        }
        body += rest.slice(0, size);
        rest = rest.slice(size + 2);
      }
    }
    out.push({ status, headers, body });
  }
  return out;
}

function get(path: string, headers: Record<string, string>): string {
  return `GET ${path} HTTP/1.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}Connection: close\r\n\r\n`;
}

/** A source that fails before its first chunk (a cursor that cannot open). */
function failing(error: Error): AsyncIterable<string> {
  return { [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(error) }) };
}

function build(trustProxy: boolean): API {
  const app = new API({ trustProxy, logger: pino({ level: 'silent' }) });
  app.get('/url', (_input, request) => ({ href: request.url.href, path: request.url.pathname }));
  app.get('/plain', () => ({ ok: true }));
  app.get('/cookie', (_input, request) => {
    request.setCookie('session', 'abc');
    return { ok: true };
  });
  app.get('/items/{id}', ({ id }) => ({ id }));
  app.get('/one-oh-one', () => [{ upgrade: 'no' }, 101]);
  app.get('/fails-first', () => new StreamingResponse(failing(new Error('the cursor could not open')), { mediaType: 'text/csv' }));
  app.get('/missing-first', () => new StreamingResponse(failing(new NotFoundError('No such export')), { mediaType: 'text/csv' }));
  app.get('/fails-later', () => {
    async function* chunks(): AsyncGenerator<string> {
      yield 'a,b\n';
      throw new Error('the cursor broke');
    }
    return new StreamingResponse(chunks(), { mediaType: 'text/csv' });
  });
  app.get('/streams', () => {
    async function* chunks(): AsyncGenerator<string> {
      yield 'a,b\n';
      yield '1,2\n';
    }
    return new StreamingResponse(chunks(), { mediaType: 'text/csv' });
  });
  app.get('/web-stream', () => {
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.error(new Error('nothing to read'));
      },
    });
    return new StreamingResponse(stream, { mediaType: 'text/csv' });
  });
  return app;
}

const MALFORMED_HOSTS = ['a b', '[::1', 'x:99999', '%', 'x?y', 'x/y', 'x#y', 'a@b', '999.1.1.1', '[zz::1]'];

describe('Host validated', () => {
  let client: TestClient;
  beforeAll(async () => {
    client = await TestClient.start(build(false));
  });
  afterAll(async () => {
    await client.close();
  });

  for (const host of MALFORMED_HOSTS) {
    it(`Host: ${host} → 400 problem on every route, never a 500`, async () => {
      for (const path of ['/url', '/plain', '/cookie', '/nowhere']) {
        const [answer] = answers(await exchange(client.url, get(path, { Host: host })));
        expect(answer?.status, `${host} ${path}`).toBe(400);
        expect(answer!.headers['content-type']).toBe('application/problem+json');
        expect(JSON.parse(answer!.body)).toMatchObject({ status: 400, detail: 'The request names an invalid host' });
      }
    });
  }

  it('valid hosts: names, ports, IPv4 and IPv6 literals; request.url keeps the routed path', async () => {
    for (const [host, href] of [
      ['example.com', 'http://example.com/url?q=1'],
      ['example.com:8080', 'http://example.com:8080/url?q=1'],
      ['127.0.0.1:3000', 'http://127.0.0.1:3000/url?q=1'],
      ['[::1]:3000', 'http://[::1]:3000/url?q=1'],
      ['my_host.internal', 'http://my_host.internal/url?q=1'],
    ]) {
      const [answer] = answers(await exchange(client.url, get('/url?q=1', { Host: host! })));
      expect(answer?.status, host).toBe(200);
      expect(JSON.parse(answer!.body)).toEqual({ href, path: '/url' });
    }
  });

  it('without trustProxy, X-Forwarded-Host is not read (a bad one is no matter)', async () => {
    const [answer] = answers(await exchange(client.url, get('/url', { Host: 'example.com', 'X-Forwarded-Host': 'x/y' })));
    expect(answer?.status).toBe(200);
    expect(JSON.parse(answer!.body).href).toBe('http://example.com/url');
  });
});

describe('X-Forwarded-Host validated with trustProxy', () => {
  let client: TestClient;
  beforeAll(async () => {
    client = await TestClient.start(build(true));
  });
  afterAll(async () => {
    await client.close();
  });

  for (const host of MALFORMED_HOSTS) {
    it(`X-Forwarded-Host: ${host} → 400, never a 500`, async () => {
      for (const path of ['/url', '/plain', '/cookie']) {
        const [answer] = answers(await exchange(client.url, get(path, { Host: 'example.com', 'X-Forwarded-Host': host })));
        expect(answer?.status, `${host} ${path}`).toBe(400);
      }
    });
  }

  it('a valid one names the URL; the path stays the routed one', async () => {
    const [answer] = answers(
      await exchange(
        client.url,
        get('/url', { Host: 'internal:8080', 'X-Forwarded-Host': 'api.example.com', 'X-Forwarded-Proto': 'https' }),
      ),
    );
    expect(JSON.parse(answer!.body)).toEqual({ href: 'https://api.example.com/url', path: '/url' });
  });
});

describe('the request target', () => {
  let client: TestClient;
  beforeAll(async () => {
    client = await TestClient.start(build(false));
  });
  afterAll(async () => {
    await client.close();
  });

  for (const path of ['/items/%zz', '/items/%', '/items/a%2', '/nowhere/%zz', '/items/%ff']) {
    it(`${path} → 400`, async () => {
      const [answer] = answers(await exchange(client.url, get(path, { Host: 'localhost' })));
      expect(answer?.status).toBe(400);
      expect(JSON.parse(answer!.body)).toMatchObject({ status: 400 });
    });
  }

  it('well-formed escapes are decoded for the handler', async () => {
    expect((await client.get('/items/a%20b%2Fc')).json()).toEqual({ id: 'a b/c' });
  });
});

describe('1xx is never a final answer', () => {
  let client: TestClient;
  beforeAll(async () => {
    client = await TestClient.start(build(false));
  });
  afterAll(async () => {
    await client.close();
  });

  it('[body, 101] is a 500, and the next answer on the connection is its own', async () => {
    const payload =
      'GET /one-oh-one HTTP/1.1\r\nHost: localhost\r\n\r\nGET /plain HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n';
    const [first, second] = answers(await exchange(client.url, payload));
    expect(first?.status).toBe(500);
    expect(JSON.parse(first!.body)).toMatchObject({ status: 500 });
    expect(second?.status).toBe(200);
    expect(JSON.parse(second!.body)).toEqual({ ok: true });
  });
});

describe('a StreamingResponse waits for its first chunk', () => {
  let client: TestClient;
  beforeAll(async () => {
    client = await TestClient.start(build(false));
  });
  afterAll(async () => {
    await client.close();
  });

  it('a source that fails before its first chunk is a 500 problem, not a 200 cut off', async () => {
    const res = await client.get('/fails-first');
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toBe('application/problem+json');
    const web = await client.get('/web-stream');
    expect(web.status).toBe(500);
  });

  it('an HTTPError before the first chunk answers with its own status', async () => {
    const res = await client.get('/missing-first');
    expect(res.status).toBe(404);
    expect(res.json()).toMatchObject({ status: 404, detail: 'No such export' });
  });

  it('a source that fails later is cut off after what it sent', async () => {
    const [answer] = answers(await exchange(client.url, get('/fails-later', { Host: 'localhost' })));
    expect(answer?.status).toBe(200);
    const raw = await exchange(client.url, get('/fails-later', { Host: 'localhost' }));
    expect(raw).toContain('a,b\n');
    expect(raw.endsWith('0\r\n\r\n')).toBe(false);
  });

  it('a stream that works sends every chunk, the first included', async () => {
    const res = await client.get('/streams');
    expect(res.status).toBe(200);
    expect(res.body).toBe('a,b\n1,2\n');
  });
});
