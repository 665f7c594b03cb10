/**
 * `uploadTimeout` over a real socket: an upload that keeps sending outlives `requestTimeout`; one that
 * stops sending is answered 408 after `headersTimeout`; one past `uploadTimeout` is answered 408; an
 * ordinary body is still held to `requestTimeout`. Uploaded file names come out cleaned.
 */
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { API, file, z } from '../src/index.js';

type Server = Awaited<ReturnType<API['run']>>;
let server: Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options: { uploadTimeout?: number } = {}): Promise<Server> {
  const app = new API({ logger: false, requestTimeout: 1, headersTimeout: 0.7, ...options });
  app.post('/upload', { params: { doc: file() } }, async ({ doc }) => ({ name: doc.name, size: doc.size }));
  app.post('/json', { params: { text: z.string() } }, ({ text }) => ({ length: text.length }));
  server = await app.run({ port: 0, handleSignals: false });
  return server;
}

const BOUNDARY = 'fnapiboundary';

/** Whether `text` holds a whole HTTP answer: its head and a body of its Content-Length. */
function wholeAnswer(text: string): boolean {
  const end = text.indexOf('\r\n\r\n');
  if (end === -1) return false;
  const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end));
  return length !== null && Buffer.byteLength(text.slice(end + 4), 'latin1') >= Number(length[1]);
}

/** Sends `head`, then `pieces` one every `every` ms, then `tail` (unless undefined); resolves with what came back. */
function slowRequest(
  port: number,
  head: string,
  pieces: string[],
  every: number,
  tail: string | undefined,
): Promise<{ text: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let stopped = false;
    let answered!: () => void;
    const answer = new Promise<void>((resolve) => {
      answered = resolve;
    });
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (wholeAnswer(text)) answered();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      stopped = true;
      answered();
      resolve({ text, ms: Date.now() - started });
    });
    socket.on('connect', async () => {
      try {
        socket.write(head);
        for (const piece of pieces) {
          // The slow client these tests are about.
          await sleep(every);
          if (stopped) return;
          socket.write(piece);
        }
        if (tail !== undefined && !stopped) socket.write(tail);
        else if (tail === undefined) return;
        await answer;
        socket.end();
      } catch (error) {
        reject(error);
      }
    });
  });
}

function multipart(size: number, filename = 'notes.txt'): { head: string; pieces: string[]; tail: string } {
  const preamble = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="doc"; filename="${filename}"\r\nContent-Type: text/plain\r\n\r\n`;
  const tail = `\r\n--${BOUNDARY}--\r\n`;
  const length = Buffer.byteLength(preamble, 'latin1') + size + tail.length;
  const head =
    `POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\n` +
    `Content-Length: ${length}\r\nConnection: close\r\n\r\n${preamble}`;
  return { head, pieces: Array.from({ length: size / 10 }, () => 'x'.repeat(10)), tail };
}

describe('uploadTimeout', () => {
  it('lets an upload that keeps sending outlive requestTimeout', async () => {
    const { port } = await start();
    const { head, pieces, tail } = multipart(120);
    // 12 pieces, one every 200 ms: 2.4 s, past the 1 s requestTimeout, never idle for 700 ms.
    const { text } = await slowRequest(port, head, pieces, 200, tail);
    expect(text).toMatch(/^HTTP\/1\.1 200/);
    expect(text).toContain('{"name":"notes.txt","size":120}');
  }, 15_000);

  it('answers 408 when no byte has arrived for headersTimeout', async () => {
    const { port } = await start();
    const { head } = multipart(100);
    const { text, ms } = await slowRequest(port, head, ['x'.repeat(10)], 50, undefined);
    expect(text).toMatch(/^HTTP\/1\.1 408/);
    expect(text).toContain('No byte of the upload arrived');
    expect(ms).toBeGreaterThanOrEqual(650);
    expect(ms).toBeLessThan(5000);
  }, 15_000);

  it('answers 408 past uploadTimeout however steadily it sends', async () => {
    const { port } = await start({ uploadTimeout: 1.5 });
    const { head, pieces, tail } = multipart(200);
    const { text, ms } = await slowRequest(port, head, pieces, 150, tail);
    expect(text).toMatch(/^HTTP\/1\.1 408/);
    expect(text).toContain('did not complete within 1.5 s');
    expect(ms).toBeLessThan(3500);
  }, 15_000);

  it('still holds an ordinary body to requestTimeout', async () => {
    const { port } = await start();
    const body = JSON.stringify({ text: 'x'.repeat(100) });
    const head = `POST /json HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const pieces = body.match(/.{1,10}/g)!;
    const { text } = await slowRequest(port, head, pieces, 200, '');
    expect(text).toMatch(/^HTTP\/1\.1 408/);
  }, 15_000);

  it('refuses an uploadTimeout that is not a number of seconds > 0', () => {
    expect(() => new API({ uploadTimeout: 0 })).toThrow(/uploadTimeout/);
  });
});

describe('uploaded file names', () => {
  it('keep the last path segment, without control characters', async () => {
    const { port } = await start();
    for (const [sent, seen] of [
      ['../../etc/pass\u0001wd', 'passwd'],
      ['C:\\\\Users\\\\ada\\\\report.pdf', 'report.pdf'],
      ['evil\u001b[31m.txt', 'evil[31m.txt'],
      ['..', ''],
      ['a\u0000b.txt', 'ab.txt'],
    ] as const) {
      const { head, pieces, tail } = multipart(10, sent);
      const { text } = await slowRequest(port, head, pieces, 0, tail);
      expect(text, sent).toContain(`{"name":${JSON.stringify(seen)},"size":10}`);
    }
  });
});
