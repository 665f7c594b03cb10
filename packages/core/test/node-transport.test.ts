/**
 * The node:http transport's own rules: `Expect: 100-continue` over the limit is refused before the
 * upload, the status line's reason phrase agrees with the problem title, and `run()` takes its
 * address from HOST/PORT and logs the address really bound.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { jsonLines } from '@fnapi/test-support';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { API, z } from '../src/index.js';
import type { RunningServer } from '../src/server/node.js';

let running: RunningServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

/** Sends raw bytes and collects what the server answers until it closes or `ms` pass. */
function raw(port: number, text: string, ms = 1500): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
    socket.write(text);
    setTimeout(() => {
      socket.destroy();
      resolve(answer);
    }, ms).unref();
  });
}

describe('Expect: 100-continue', () => {
  it('refuses a declared body over bodyLimit with 413 before inviting the upload', async () => {
    const app = new API({ logger: false, bodyLimit: 1024 });
    app.post('/upload', { params: { data: z.string() } }, ({ data }) => ({ size: data.length }));
    running = await app.run({ port: 0, handleSignals: false });
    const answer = await raw(
      running.port,
      'POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1153434\r\nExpect: 100-continue\r\n\r\n',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 413 Content Too Large\r\n/);
    expect(answer).not.toContain('100 Continue');
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ status: 413, title: 'Content Too Large' });
  });

  it('invites a body within the limit and answers it', async () => {
    const app = new API({ logger: false, bodyLimit: 1024 });
    app.post('/upload', { params: { data: z.string() } }, ({ data }) => ({ size: data.length }));
    running = await app.run({ port: 0, handleSignals: false });
    const body = JSON.stringify({ data: 'abc' });
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port: running!.port });
      let text = '';
      socket.setEncoding('utf8');
      socket.on('error', reject);
      socket.on('data', (chunk) => {
        text += chunk;
        if (text.includes('100 Continue') && !text.includes('sent')) {
          text += 'sent';
          socket.write(body);
        }
        if (text.includes('"size"')) {
          socket.destroy();
          resolve(text);
        }
      });
      socket.write(
        `POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
      );
    });
    expect(answer).toMatch(/^HTTP\/1\.1 100 Continue\r\n/);
    expect(answer).toContain('HTTP/1.1 200 OK');
    expect(answer).toContain('{"size":3}');
  });
});

describe('status line', () => {
  it('names the same reason as the problem title', async () => {
    const app = new API({ logger: false });
    app.get('/items/{id}', { params: { id: z.int() } }, ({ id }) => ({ id }));
    running = await app.run({ port: 0, handleSignals: false });
    const { statusCode, statusMessage, body } = await new Promise<{ statusCode?: number; statusMessage?: string; body: string }>(
      (resolve, reject) => {
        httpRequest(`${running!.url}/items/abc`, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve({ statusCode: res.statusCode, statusMessage: res.statusMessage, body: text }));
        })
          .on('error', reject)
          .end();
      },
    );
    expect(statusCode).toBe(422);
    expect(statusMessage).toBe('Unprocessable Content');
    expect(JSON.parse(body).title).toBe(statusMessage);
  });

  it("uses node's reason where it is right, RFC 9110's where node's is older, and 'Error' where node has none", async () => {
    const app = new API({ logger: false });
    app.get('/status/{code}', { params: { code: z.int() } }, ({ code }) => [{ code }, code]);
    running = await app.run({ port: 0, handleSignals: false });
    const statusLine = (code: number) =>
      new Promise<string | undefined>((resolve, reject) => {
        httpRequest(`${running!.url}/status/${code}`, (res) => {
          res.resume();
          res.on('end', () => resolve(`${res.statusCode} ${res.statusMessage}`));
        })
          .on('error', reject)
          .end();
      });
    expect(await statusLine(201)).toBe('201 Created');
    expect(await statusLine(418)).toBe("418 I'm a Teapot");
    expect(await statusLine(413)).toBe('413 Content Too Large');
    expect(await statusLine(422)).toBe('422 Unprocessable Content');
    expect(await statusLine(299)).toBe('299 Error');
  });
});

describe('run() address', () => {
  it('defaults to HOST and PORT and logs the address really bound', async () => {
    const { stream: sink, lines } = jsonLines();
    const saved = { HOST: process.env.HOST, PORT: process.env.PORT };
    process.env.HOST = '127.0.0.1';
    process.env.PORT = '0';
    try {
      const app = new API({ logger: pino(sink) });
      running = await app.run({ handleSignals: false });
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
    expect(running.port).toBeGreaterThan(0);
    expect(running.url).toBe(`http://127.0.0.1:${running.port}`);
    const listening = lines.find((line) => String(line.msg).startsWith('fnapi listening'));
    expect(listening).toMatchObject({ address: '127.0.0.1', port: running.port });
    expect(listening!.msg).toContain(`127.0.0.1:${running.port}`);
  });

  it('refuses a PORT that is not a port number', async () => {
    const saved = process.env.PORT;
    process.env.PORT = 'eighty';
    try {
      await expect(new API({ logger: false }).run({ handleSignals: false })).rejects.toThrow('PORT must be a port number, got "eighty"');
    } finally {
      if (saved === undefined) delete process.env.PORT;
      else process.env.PORT = saved;
    }
  });
});
