/** `request.lastEventId` is decoded as UTF-8 over a real socket, and plain or latin1-only text stays as sent. */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { API } from '../src/index.js';

type Server = Awaited<ReturnType<API['run']>>;
let server: Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function rawGet(port: number, lastEventId: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(
        Buffer.concat([
          Buffer.from('GET /id HTTP/1.1\r\nHost: x\r\nConnection: close\r\nLast-Event-ID: '),
          lastEventId,
          Buffer.from('\r\n\r\n'),
        ]),
      );
    });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

describe('request.lastEventId', () => {
  it('is the UTF-8 text the client sent', async () => {
    const app = new API({ logger: false });
    app.get('/id', (_input, request) => ({ id: request.lastEventId ?? null }));
    server = await app.run({ port: 0, handleSignals: false });
    for (const id of ['évènement-42', 'ñ/🙂/東京', 'plain-7']) {
      const text = await rawGet(server.port, Buffer.from(id, 'utf8'));
      expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toEqual({ id });
    }
    // Bytes that are not UTF-8 are left as they came (one character per byte).
    const latin1 = await rawGet(server.port, Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    expect(JSON.parse(latin1.slice(latin1.indexOf('\r\n\r\n') + 4))).toEqual({ id: 'café' });
    expect((await app.inject({ url: '/id', headers: { 'last-event-id': 'x-1' } })).json()).toEqual({ id: 'x-1' });
  });
});
