/**
 * Every error becomes an answer in one of two places: the funnel (errors of a request, offered to
 * plugins once) or the wire's refusal (what comes before a request exists). A file answer is prepared
 * wherever it is returned, and its 404/416 go through the funnel like any other error.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { API, FileResponse, type HTTPError, NotFoundError } from '../src/index.js';
import type { PluginLike } from '../src/extend.js';
import { problem, rawExchange, serve, TRANSPORTS } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'fnapi-funnel-'));
const file = join(dir, 'ten.txt');
writeFileSync(file, '0123456789');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A plugin that records every error offered to it. */
function errorsSeen(): { plugin: PluginLike; errors: unknown[] } {
  const errors: unknown[] = [];
  return {
    errors,
    plugin: {
      getMetadata: () => ({ name: 'errors-seen', version: '1.0.0' }),
      onError(error) {
        errors.push(error);
        return undefined;
      },
    },
  };
}

describe('a FileResponse returned by middleware', () => {
  const seen = errorsSeen();
  const served = serve(() => {
    const app = new API({ logger: false });
    app.pluginManager.register(seen.plugin);
    app.pluginManager.activate('errors-seen');
    app.addMiddleware((request, callNext) => {
      if (request.path === '/missing') return new FileResponse(join(dir, 'no-such-file'));
      if (request.path === '/file') return new FileResponse(file);
      return callNext(request);
    });
    app.get('/range', () => new FileResponse(file));
    return app;
  });

  it('for a missing file is the funnel’s 404, seen by onError once per request, on every transport', async () => {
    for (const transport of TRANSPORTS) {
      const before = seen.errors.length;
      const reply = await served.send(transport, { path: '/missing' });
      expect(reply.status).toBe(404);
      expect(reply.json()).toEqual(problem(404, 'Not Found', 'File not found'));
      expect(seen.errors.slice(before)).toHaveLength(1);
      expect(seen.errors.at(-1)).toBeInstanceOf(NotFoundError);
    }
  });

  it('is prepared: its ETag is set and a matching If-None-Match is answered 304', async () => {
    const first = await served.send('http', { path: '/file' });
    expect(first.status).toBe(200);
    expect(first.body).toBe('0123456789');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"/);
    const again = await served.send('http', { path: '/file', headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.body).toBe('');
  });

  it('answers an unsatisfiable range 416 through the funnel, with the file’s size in Content-Range', async () => {
    const before = seen.errors.length;
    const reply = await served.send('http', { path: '/range', headers: { range: 'bytes=50-60' } });
    expect(reply.status).toBe(416);
    expect(reply.headers['content-range']).toBe('bytes */10');
    expect(reply.json()).toMatchObject({ status: 416, detail: 'Range not satisfiable: the file has 10 bytes' });
    expect(seen.errors.slice(before)).toHaveLength(1);
    expect((seen.errors.at(-1) as HTTPError).statusCode).toBe(416);
  });
});

describe('the wire’s refusal, before any request exists', () => {
  const served = serve(() => {
    const app = new API({ logger: false });
    app.get('/ok', () => ({ ok: true }));
    return app;
  });

  const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;

  it('answers headers past the 16 KiB cap with a 431 problem body', async () => {
    const answer = await rawExchange(served.client.url, `GET /ok HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(answer).toMatch(/\r\ncontent-type: application\/problem\+json\r\n/i);
    expect(bodyOf(answer)).toMatchObject({ status: 431, title: 'Request Header Fields Too Large' });
  });

  it('answers a malformed request target with a 400 problem body', async () => {
    const answer = await rawExchange(served.client.url, 'GET ftp://example.com/ok HTTP/1.1\r\nHost: localhost\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(answer)).toEqual(problem(400, 'Bad Request', 'Malformed request target'));
  });

  it('answers bytes that are not HTTP with a 400 problem body', async () => {
    const answer = await rawExchange(served.client.url, 'HELLO\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(answer)).toMatchObject({ status: 400, detail: 'The request could not be parsed' });
  });
});
