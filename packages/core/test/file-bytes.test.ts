/**
 * A `FileResponse` sends exactly the bytes its headers announce, and `FileResponse.fromRoot` serves
 * only files under its root. Reproducers over a raw keep-alive connection with a second request
 * queued behind the first: a file that grows while it is sent never spills into the next answer, one
 * that shrinks closes the connection (logged at warn) instead of letting the next answer start inside
 * the announced body.
 */
import { appendFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, FileResponse, NotFoundError, z } from '../src/index.js';
import type { PluginLike } from '../src/extend.js';
import { TestClient } from '../src/server/testing.js';

const dir = mkdtempSync(join(tmpdir(), 'fnapi-file-bytes-'));
const root = join(dir, 'public');
const outside = join(dir, 'secret.txt');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SIZE = 200_000;
const ORIGINAL = 'a'.repeat(SIZE);
const SPILL = '\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nPWNED';

/**
 * Sends `payload` (several requests, pipelined) on one connection and resolves with every byte
 * received, once the server closes the connection, `done(text)` holds, or `quietMs` pass without a byte.
 */
function exchange(
  port: number,
  payload: string,
  done: (text: string) => boolean = () => false,
  quietMs = 2000,
): Promise<{ text: string; closedByServer: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let timer = setTimeout(() => finish(false), quietMs * 2);
    const finish = (closedByServer: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, closedByServer });
    };
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
      clearTimeout(timer);
      if (done(text)) finish(false);
      else timer = setTimeout(() => finish(false), quietMs);
    });
    socket.on('end', () => finish(true));
    socket.on('error', reject);
    socket.write(payload);
  });
}

/** The second answer has arrived whole. */
const secondAnswered = (text: string) => text.endsWith('{"second":true}');

const pipelined = (first: string) => `GET ${first} HTTP/1.1\r\nHost: localhost\r\n\r\nGET /second HTTP/1.1\r\nHost: localhost\r\n\r\n`;

/** The first answer of a raw exchange: its head, its declared length, and what followed its body. */
function firstAnswer(text: string): { head: string; length: number; body: string; rest: string } {
  const end = text.indexOf('\r\n\r\n');
  const head = text.slice(0, end);
  const length = Number(/content-length: (\d+)/i.exec(head)?.[1]);
  const after = text.slice(end + 4);
  return { head, length, body: after.slice(0, length), rest: after.slice(length) };
}

describe('a file that changes while it is sent', () => {
  const lines: Record<string, unknown>[] = [];
  let client: TestClient;
  let port: number;
  const growing = join(dir, 'growing.txt');
  const shrinking = join(dir, 'shrinking.txt');

  beforeAll(async () => {
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const app = new API({ logger });
    // After the endpoint's file answer is prepared (its size read) and before its body is read: the
    // moment a file written by another process changes under the server.
    app.addMiddleware(async (request, callNext) => {
      const response = await callNext(request);
      if (request.path === '/grow') appendFileSync(growing, SPILL);
      if (request.path === '/shrink') truncateSync(shrinking, 1000);
      if (request.path === '/grow-range') appendFileSync(growing, SPILL);
      return response;
    });
    app.get('/grow', () => new FileResponse(growing));
    app.get('/grow-range', () => new FileResponse(growing));
    app.get('/shrink', () => new FileResponse(shrinking));
    app.get('/second', () => ({ second: true }));
    client = await TestClient.start(app);
    port = Number(new URL(client.url).port);
  });
  afterAll(() => client.close());

  it('is cut at Content-Length when it grows: the queued request gets its own answer, nothing spills', async () => {
    writeFileSync(growing, ORIGINAL);
    const { text } = await exchange(port, pipelined('/grow'), secondAnswered);
    const first = firstAnswer(text);
    expect(first.head).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(first.length).toBe(SIZE);
    expect(first.body).toBe(ORIGINAL);
    expect(text).not.toContain('PWNED');
    // The next bytes on the connection are the second answer, whole.
    expect(first.rest).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(first.rest.endsWith('{"second":true}')).toBe(true);
  });

  it('sends a range of a growing file exactly', async () => {
    writeFileSync(growing, ORIGINAL);
    const { text } = await exchange(
      port,
      `GET /grow-range HTTP/1.1\r\nHost: localhost\r\nRange: bytes=${SIZE - 10}-\r\n\r\nGET /second HTTP/1.1\r\nHost: localhost\r\n\r\n`,
      secondAnswered,
    );
    const first = firstAnswer(text);
    expect(first.head).toMatch(/^HTTP\/1\.1 206/);
    expect(first.head).toContain(`content-range: bytes ${SIZE - 10}-${SIZE - 1}/${SIZE}`);
    expect(first.body).toBe('a'.repeat(10));
    expect(first.rest).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text).not.toContain('PWNED');
  });

  it('closes the connection when it shrinks, logged at warn; the next answer never starts inside the body', async () => {
    writeFileSync(shrinking, ORIGINAL);
    const before = lines.length;
    const { text, closedByServer } = await exchange(port, pipelined('/shrink'));
    const first = firstAnswer(text);
    expect(first.head).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(first.length).toBe(SIZE);
    expect(closedByServer).toBe(true);
    // What arrived is the file's 1000 bytes, and nothing of a second answer.
    expect(text.slice(text.indexOf('\r\n\r\n') + 4)).toBe('a'.repeat(1000));
    expect(text).not.toContain('second');
    const warned = lines.slice(before).filter((line) => line.level === 40);
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ path: shrinking, sent: 1000, announced: SIZE });
    expect(String(warned[0]!.msg)).toContain('shorter than announced');
  });

  it('cuts a stream source at its `size`, and closes the connection when it ends sooner', async () => {
    const app = new API({ logger: false });
    app.get('/long', () => new FileResponse(Readable(['0123456789', 'PWNED']), { size: 10, filename: 'long.txt' }));
    app.get('/short', () => new FileResponse(Readable(['01234']), { size: 10, filename: 'short.txt' }));
    app.get('/second', () => ({ second: true }));
    const server = await TestClient.start(app);
    try {
      const serverPort = Number(new URL(server.url).port);
      const long = await exchange(serverPort, pipelined('/long'), secondAnswered);
      const first = firstAnswer(long.text);
      expect(first.body).toBe('0123456789');
      expect(first.rest).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(long.text).not.toContain('PWNED');
      const short = await exchange(serverPort, pipelined('/short'));
      expect(short.closedByServer).toBe(true);
      expect(short.text).not.toContain('second');
    } finally {
      await server.close();
    }
  });
});

async function* Readable(chunks: string[]): AsyncIterable<string> {
  for (const chunk of chunks) yield chunk;
}

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

describe('FileResponse.fromRoot', () => {
  const seen = errorsSeen();
  let client: TestClient;
  let port: number;

  beforeAll(async () => {
    mkdirSync(join(root, 'docs'), { recursive: true });
    mkdirSync(join(root, '.well-known'), { recursive: true });
    writeFileSync(join(root, 'docs', 'guide.txt'), 'the guide');
    writeFileSync(join(root, 'readme.txt'), 'read me');
    writeFileSync(join(root, '.env'), 'SECRET=1');
    writeFileSync(join(root, '.well-known', 'security.txt'), 'contact');
    writeFileSync(outside, 'the secret');
    symlinkSync(outside, join(root, 'escape.txt'));
    symlinkSync(join(root, 'readme.txt'), join(root, 'inside-link.txt'));
    symlinkSync(dir, join(root, 'up'));
    symlinkSync(join(root, '.env'), join(root, 'env-link.txt'));
    const app = new API({ logger: false });
    app.pluginManager.register(seen.plugin);
    app.pluginManager.activate('errors-seen');
    app.get('/doc/{name}', { params: { name: z.string() } }, ({ name }) => FileResponse.fromRoot(root, name));
    app.get('/files/{rest:path}', { params: { rest: z.string() } }, ({ rest }) => FileResponse.fromRoot(root, rest));
    app.get('/dot/{rest:path}', { params: { rest: z.string() } }, ({ rest }) =>
      FileResponse.fromRoot(root, rest, { dotfiles: 'allow', inline: true }),
    );
    client = await TestClient.start(app);
    port = Number(new URL(client.url).port);
  });
  afterAll(() => client.close());

  it('serves a file under the root, with its name and validators', async () => {
    const reply = await client.get('/files/docs/guide.txt');
    expect(reply.status).toBe(200);
    expect(reply.body).toBe('the guide');
    expect(reply.headers['content-disposition']).toBe('attachment; filename="guide.txt"');
    expect(reply.headers['content-length']).toBe('9');
    expect(reply.headers.etag).toMatch(/^"/);
    expect((await client.get('/doc/readme.txt')).body).toBe('read me');
    // A symlink that stays inside the root is followed.
    expect((await client.get('/doc/inside-link.txt')).body).toBe('read me');
  });

  it('refuses `..%2fsecret.txt` on a {name} route: 404 through the funnel, seen by onError', async () => {
    const before = seen.errors.length;
    const reply = await client.get('/doc/..%2fsecret.txt');
    expect(reply.status).toBe(404);
    expect(reply.headers['content-type']).toBe('application/problem+json');
    expect(reply.body).not.toContain('the secret');
    expect(seen.errors.slice(before)).toHaveLength(1);
    expect(seen.errors.at(-1)).toBeInstanceOf(NotFoundError);
  });

  it('refuses raw `..` segments on a {rest:path} route, and /etc/passwd', async () => {
    // Sent raw, as an attacker does: no client normalises these segments away.
    for (const target of [
      '/files/../secret.txt',
      '/files/docs/../../secret.txt',
      '/files/..%2f..%2f..%2fetc%2fpasswd',
      '/files//etc/passwd',
    ]) {
      const answer = await rawGet(port, target);
      expect(answer, target).toMatch(/^HTTP\/1\.1 404 /);
      // Refused by fromRoot itself: the handler was reached with the raw segments.
      expect(answer, target).toContain('File not found');
      expect(answer, target).not.toContain('the secret');
      expect(answer, target).not.toContain('root:');
    }
  });

  it('refuses a symlink that resolves outside the root, checked on the file it opens', async () => {
    for (const path of ['/doc/escape.txt', '/files/up/secret.txt', '/files/up/public/readme.txt/..']) {
      const reply = await client.get(path);
      expect(reply.status, path).toBe(404);
      expect(reply.body, path).not.toContain('the secret');
    }
  });

  it('refuses a NUL, a backslash, dot segments, a directory and a missing file', async () => {
    const refused = [
      '/files/docs%00/guide.txt',
      '/files/docs%5cguide.txt',
      '/files/..%5csecret.txt',
      '/files/.env',
      '/files/./readme.txt',
      '/files/.well-known/security.txt',
      '/files/env-link.txt',
      '/files/docs',
      '/files/docs/',
      '/files/nothing.txt',
    ];
    for (const path of refused) {
      const reply = await client.get(path);
      expect(reply.status, path).toBe(404);
      expect(reply.json(), path).toMatchObject({ status: 404, detail: 'File not found' });
    }
  });

  it("serves dot segments with dotfiles: 'allow', never `..`", async () => {
    const reply = await client.get('/dot/.well-known/security.txt');
    expect(reply.status).toBe(200);
    expect(reply.body).toBe('contact');
    expect(reply.headers['content-disposition']).toBe('inline; filename="security.txt"');
    expect((await rawGet(port, '/dot/.well-known/../../secret.txt')).startsWith('HTTP/1.1 404 ')).toBe(true);
  });

  it('never reads a symlink swapped in after the check: 404 before the answer, a cut connection after it', async () => {
    const swapDir = join(root, 'swap');
    mkdirSync(swapDir, { recursive: true });
    const target = join(swapDir, 'report.txt');
    const swapIn = () => {
      // What an attacker with write access under the root does: the checked file replaced by a link out.
      renameSync(target, join(swapDir, 'old.txt'));
      symlinkSync(outside, target);
    };
    const app = new API({ logger: false });
    app.get('/before', async () => {
      const response = await FileResponse.fromRoot(root, 'swap/report.txt');
      swapIn();
      return response;
    });
    app.addMiddleware(async (request, callNext) => {
      const response = await callNext(request);
      if (request.path === '/after') swapIn();
      return response;
    });
    app.get('/after', () => FileResponse.fromRoot(root, 'swap/report.txt'));
    const server = await TestClient.start(app);
    try {
      const serverPort = Number(new URL(server.url).port);
      for (const path of ['/before', '/after']) {
        rmSync(target, { force: true });
        rmSync(join(swapDir, 'old.txt'), { force: true });
        writeFileSync(target, 'the report');
        const { text, closedByServer } = await exchange(serverPort, `GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`, (got) =>
          got.endsWith('"detail":"File not found"}'),
        );
        expect(text, path).not.toContain('the secret');
        if (path === '/before') expect(text).toMatch(/^HTTP\/1\.1 404 /);
        // After the head was sent: no byte of the body, and the connection closed.
        else {
          expect(text).toMatch(/^HTTP\/1\.1 200 /);
          expect(text.slice(text.indexOf('\r\n\r\n') + 4)).toBe('');
          expect(closedByServer).toBe(true);
        }
      }
    } finally {
      await server.close();
    }
  });

  it('refuses an absolute path when called directly', async () => {
    await expect(FileResponse.fromRoot(root, outside)).rejects.toBeInstanceOf(NotFoundError);
    await expect(FileResponse.fromRoot(root, '/etc/passwd')).rejects.toBeInstanceOf(NotFoundError);
    await expect(FileResponse.fromRoot(root, '')).rejects.toBeInstanceOf(NotFoundError);
    await expect(FileResponse.fromRoot(join(dir, 'no-root'), 'readme.txt')).rejects.toBeInstanceOf(NotFoundError);
    await expect(FileResponse.fromRoot(root, 'readme.txt')).resolves.toBeInstanceOf(FileResponse);
  });
});

/** One GET with its target sent exactly as written; resolves with the whole answer. */
function rawGet(port: number, target: string): Promise<string> {
  return exchange(port, `GET ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`).then(({ text }) => text);
}
