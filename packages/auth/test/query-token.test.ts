/**
 * A JWT in a query parameter, for WebSocket upgrades from browsers (which cannot set headers): read
 * after the header and a cookie, off by default, and its value never written to a log line — the
 * request log redacts the parameter whatever its name, as it redacts an API key's `queryParam`.
 */
import { API, type Request } from '@fnapi/core';
import { TestClient, WebSocketRefusedError } from '@fnapi/core/testing';
import { LoggingPlugin } from '@fnapi/plugins';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyRequired, createToken, jwtRequired } from '../src/index.js';

const SECRET = 'a-long-test-secret-of-at-least-32-bytes!';
const jwt = { secret: SECRET, algorithm: 'HS256' } as const;

describe('a JWT in a query parameter', () => {
  let client: TestClient;
  const lines: string[] = [];
  const stream = { write: (line: string) => void lines.push(line) };
  beforeAll(async () => {
    // The app's own logger at its most talkative, and the request log: both see every line.
    const app = new API({ logger: pino({ level: 'trace' }, stream) });
    app.pluginManager.register(new LoggingPlugin({ logToConsole: false, stream }));
    // Names outside the usual credential list: the guards mark them.
    const socketGuard = jwtRequired({ ...jwt, queryParam: 'ticket' });
    app.ws(
      '/live',
      {},
      socketGuard(async (_input: unknown, socket: { send(message: unknown): Promise<void> }, request: Request) => {
        await socket.send({ user: request.auth!.subject });
      }),
    );
    app.get(
      '/me',
      socketGuard((_input, request) => ({ user: request.auth!.subject })),
    );
    app.get(
      '/header-only',
      jwtRequired(jwt)((_input, request) => ({ user: request.auth!.subject })),
    );
    app.get(
      '/key',
      apiKeyRequired({ queryParam: 'svc_credential', apiKeys: { 'key-value-1234567890': [] } })(() => ({ ok: true })),
    );
    client = await TestClient.start(app);
  });
  afterAll(() => client?.close());

  it('a browser-style WebSocket upgrade authenticates with the query parameter', async () => {
    const token = await createToken({ sub: 'ada' }, jwt);
    const socket = await client.ws('/live', { query: { ticket: token } });
    expect(await socket.next()).toEqual({ user: 'ada' });
    await socket.closed;
    const refused = await client.ws('/live', { query: { ticket: 'forged' } }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(WebSocketRefusedError);
    expect((refused as WebSocketRefusedError).status).toBe(401);
    const none = await client.ws('/live').catch((error: unknown) => error);
    expect((none as WebSocketRefusedError).status).toBe(401);
  });

  it('plain requests take it too, after the header; a guard without queryParam ignores it', async () => {
    const ada = await createToken({ sub: 'ada' }, jwt);
    const grace = await createToken({ sub: 'grace' }, jwt);
    expect((await client.get('/me', { query: { ticket: ada } })).json()).toEqual({ user: 'ada' });
    expect((await client.get('/me', { query: { ticket: ada }, headers: { authorization: `Bearer ${grace}` } })).json()).toEqual({
      user: 'grace',
    });
    expect((await client.get('/header-only', { query: { ticket: ada, access_token: ada } })).status).toBe(401);
  });

  it('the document lists it as an apiKey scheme in the query beside the bearer one', async () => {
    const doc = (await client.get('/openapi.json')).json<{ paths: Record<string, Record<string, { security: unknown }>> }>();
    expect(doc.paths['/me']!.get!.security).toEqual([{ bearerAuth: [] }, { apiKeyQuery_ticket: [] }]);
  });

  it('no log line carries a token or key given in the query', async () => {
    lines.length = 0;
    const token = await createToken({ sub: 'ada' }, jwt);
    const socket = await client.ws('/live', { query: { ticket: token, room: 'blue' } });
    await socket.next();
    await socket.closed;
    await client.get('/me', { query: { TICKET: token } });
    await client.get('/me', { query: { ticket: 'refused-token-value' } });
    await client.get('/key', { query: { svc_credential: 'key-value-1234567890' } });
    const logged = lines.join('');
    expect(logged).toContain('"query":"ticket=%5BREDACTED%5D&room=blue"');
    expect(logged).toContain('svc_credential=%5BREDACTED%5D');
    for (const secret of [token, token.split('.')[2]!, 'refused-token-value', 'key-value-1234567890']) expect(logged).not.toContain(secret);
  });
});
