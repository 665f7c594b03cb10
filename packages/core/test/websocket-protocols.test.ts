/**
 * WebSocket subprotocols (`protocols`): the first of the endpoint's list that the client offers is
 * chosen and is `socket.protocol`; a protocol it does not list is never echoed; an offer of only
 * unlisted ones is refused with 400 before the upgrade (a problem naming the accepted list); no offer is
 * accepted without the header; an endpoint without `protocols` refuses any offer. Reproducer: `ws`'s
 * default echoed `chat` from an offer of `chat, superchat` to an endpoint that declared none.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API } from '../src/index.js';
import { TestClient, WebSocketRefusedError } from '../src/server/testing.js';

/** A raw handshake: the head of whatever the server answers (101 or a refusal). */
function handshake(
  url: string,
  path: string,
  protocols?: string,
): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = '';
    const finish = () => {
      socket.destroy();
      const end = text.indexOf('\r\n\r\n');
      const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(end + 4) });
    };
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      if (text.startsWith('HTTP/1.1 101')) return finish();
      const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? 0);
      if (text.length >= end + 4 + length) finish();
    });
    socket.on('end', finish);
    socket.on('error', reject);
    socket.write(
      `GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n' +
        (protocols === undefined ? '' : `Sec-WebSocket-Protocol: ${protocols}\r\n`) +
        '\r\n',
    );
  });
}

describe('WebSocket subprotocols', () => {
  let client: TestClient;
  beforeAll(async () => {
    const app = new API({ logger: false });
    app.ws('/chat', { protocols: ['chat.v2', 'chat.v1'] }, async (_input, socket) => {
      await socket.send({ protocol: socket.protocol });
    });
    app.ws('/plain', {}, async (_input, socket) => {
      await socket.send({ protocol: socket.protocol });
    });
    client = await TestClient.start(app);
  });
  afterAll(() => client.close());

  it("chooses the first of the endpoint's list that the client offers, whatever the client's order", async () => {
    const both = await client.ws('/chat', { protocols: ['chat.v1', 'chat.v2'] });
    expect(both.protocol).toBe('chat.v2');
    expect(await both.next()).toEqual({ protocol: 'chat.v2' });
    const one = await client.ws('/chat', { protocols: ['superchat', 'chat.v1'] });
    expect(one.protocol).toBe('chat.v1');
    expect(await one.next()).toEqual({ protocol: 'chat.v1' });
    const raw = await handshake(client.url, '/chat', 'superchat, chat.v1');
    expect(raw.status).toBe(101);
    expect(raw.headers['sec-websocket-protocol']).toBe('chat.v1');
  });

  it('accepts a client that offers none, without the header; socket.protocol is empty', async () => {
    const socket = await client.ws('/chat');
    expect(socket.protocol).toBe('');
    expect(await socket.next()).toEqual({ protocol: '' });
    const raw = await handshake(client.url, '/chat');
    expect(raw.status).toBe(101);
    expect(raw.headers['sec-websocket-protocol']).toBeUndefined();
  });

  it('refuses an offer of only unlisted protocols with 400 before the upgrade, naming the accepted list', async () => {
    const refused = await client.ws('/chat', { protocols: ['chat', 'superchat'] }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(WebSocketRefusedError);
    const error = refused as WebSocketRefusedError;
    expect(error.status).toBe(400);
    expect(error.headers['content-type']).toBe('application/problem+json');
    expect(error.json()).toMatchObject({
      status: 400,
      detail: 'None of the offered WebSocket subprotocols (chat, superchat) is spoken here; accepted: chat.v2, chat.v1',
      details: { accepted: ['chat.v2', 'chat.v1'], offered: ['chat', 'superchat'] },
    });
  });

  it('an endpoint without protocols never echoes an offer: chat, superchat is refused (was: chat echoed)', async () => {
    const raw = await handshake(client.url, '/plain', 'chat, superchat');
    expect(raw.status).toBe(400);
    expect(raw.headers['sec-websocket-protocol']).toBeUndefined();
    expect(JSON.parse(raw.body)).toMatchObject({ status: 400, details: { accepted: [], offered: ['chat', 'superchat'] } });
    const plain = await client.ws('/plain');
    expect(plain.protocol).toBe('');
    expect(await plain.next()).toEqual({ protocol: '' });
  });

  it('refuses at registration a protocol that is not a token, or one listed twice', () => {
    const app = new API({ logger: false });
    expect(() => app.ws('/a', { protocols: ['chat v2'] }, () => {})).toThrow(/not a token/);
    expect(() => app.ws('/b', { protocols: ['x', 'x'] }, () => {})).toThrow(/listed twice/);
  });
});
