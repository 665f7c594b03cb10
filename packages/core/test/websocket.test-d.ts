import { jwtRequired } from '@fnapi/auth';
import { describe, expectTypeOf, it } from 'vitest';
import { API, Hub, Router, z } from '../src/index.js';

const Said = z.object({ text: z.string().min(1).max(500) });
const Line = z.object({ from: z.string(), text: z.string(), at: z.string() });

describe('app.ws types', () => {
  it('types the input, the received and the sent messages from the schemas', () => {
    const app = new API();
    app.ws(
      '/rooms/{room}',
      { params: { room: z.string().max(40), n: z.int().optional() }, receive: Said, send: Line },
      async (input, socket, request) => {
        expectTypeOf(input).toEqualTypeOf<{ room: string; n?: number | undefined }>();
        for await (const message of socket) {
          expectTypeOf(message).toEqualTypeOf<{ text: string }>();
          await socket.send({ from: request.auth?.subject ?? '', text: message.text, at: '' });
        }
        // @ts-expect-error: not a Line
        await socket.send({ text: 1 });
        expectTypeOf(socket.closed).resolves.toEqualTypeOf<{ code: number; reason: string }>();
        expectTypeOf(socket.signal).toEqualTypeOf<AbortSignal>();
      },
    );
  });

  it('without schemas, messages are strings or bytes', () => {
    new Router().ws('/raw', {}, async (_input, socket) => {
      for await (const message of socket) expectTypeOf(message).toEqualTypeOf<string | Uint8Array>();
    });
  });

  it('the reference example compiles: a guard wraps the handler, a hub subscription is forwarded', () => {
    const app = new API();
    const hub = new Hub();
    const secret = 'secret';
    app.ws(
      '/rooms/{room}',
      { params: { room: z.string().max(40) }, receive: Said, send: Line },
      jwtRequired({ secret, algorithm: 'HS256' })(async ({ room }, socket, request) => {
        const feed = hub.subscribe(`room:${room}`, { signal: socket.signal });
        socket.forward(feed);
        for await (const { text } of socket) {
          await hub.publish(`room:${room}`, { from: request.auth!.subject, text, at: new Date().toISOString() });
        }
      }),
    );
    expectTypeOf(app.websocket.open).toBeFunction();
  });
});
