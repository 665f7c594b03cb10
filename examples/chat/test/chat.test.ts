/**
 * The chat in process: two members of a room see each other's messages in order, a missing token is
 * 401 before any upgrade, a bad room name 422, a message that does not fit 1007, and the rooms are
 * described at /asyncapi.json and stay out of /openapi.json.
 */
import { Hub } from '@fnapi/core';
import { TestClient, WebSocketRefusedError } from '@fnapi/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChat } from '../src/app.js';

const secret = 'a-test-secret-long-enough-for-hs256-signing';
let client: TestClient;

async function login(name: string): Promise<string> {
  return (await client.post('/login', { json: { name } })).json<{ token: string }>().token;
}

beforeAll(async () => {
  client = await TestClient.start(createChat({ hub: new Hub({ logger: false }), secret, logger: false, instance: 'one' }));
});
afterAll(async () => {
  await client.close();
});

describe('examples/chat', () => {
  it('carries messages between the members of a room, and no further', async () => {
    const ada = await client.ws('/rooms/lobby', { headers: { authorization: `Bearer ${await login('ada')}` } });
    const bob = await client.ws(`/rooms/lobby?token=${await login('bob')}`);
    const eve = await client.ws(`/rooms/other?token=${await login('eve')}`);
    for (const socket of [ada, bob, eve])
      expect(await socket.next()).toMatchObject({ from: 'server', text: expect.stringContaining('instance one') });
    await ada.send({ text: 'hello' });
    await bob.send({ text: 'hi ada' });
    for (const socket of [ada, bob]) {
      expect(await socket.next()).toMatchObject({ from: 'ada', text: 'hello' });
      expect(await socket.next()).toMatchObject({ from: 'bob', text: 'hi ada' });
    }
    await eve.send({ text: 'anyone?' });
    expect(await eve.next()).toMatchObject({ from: 'eve', text: 'anyone?' });
    const posted = await client.post('/rooms/lobby/messages', {
      json: { text: 'from a bot' },
      headers: { authorization: `Bearer ${await login('bot')}` },
    });
    expect(posted.status).toBe(202);
    expect(await ada.next()).toMatchObject({ from: 'bot', text: 'from a bot' });
    await Promise.all([ada.close(), bob.close(), eve.close()]);
  });

  it('refuses before the upgrade: 401 without a token, 422 for a bad room; 1007 for a bad message', async () => {
    const anonymous = (await client.ws('/rooms/lobby').catch((e: unknown) => e)) as WebSocketRefusedError;
    expect(anonymous).toBeInstanceOf(WebSocketRefusedError);
    expect(anonymous.status).toBe(401);
    const token = await login('ada');
    const badRoom = (await client.ws(`/rooms/No%20Way?token=${token}`).catch((e: unknown) => e)) as WebSocketRefusedError;
    expect(badRoom.status).toBe(422);
    const socket = await client.ws(`/rooms/lobby?token=${token}`);
    await socket.next();
    await socket.send({ text: '' });
    expect((await socket.closed).code).toBe(1007);
  });

  it('documents the room in AsyncAPI, not in OpenAPI', async () => {
    const asyncapi = (await client.get('/asyncapi.json')).json<{ channels: Record<string, { address: string }> }>();
    expect(Object.values(asyncapi.channels).map((c) => c.address)).toEqual(['/rooms/{room}']);
    const openapi = (await client.get('/openapi.json')).json<{ paths: Record<string, unknown> }>();
    expect(Object.keys(openapi.paths).sort()).toEqual(['/login', '/rooms/{room}/messages']);
  });
});
