// A chat: rooms over WebSockets, signed in with a JWT, carried by a hub — in process (`Hub`) for one
// instance, or Redis (`RedisHub`) so that a message sent to one instance reaches the clients of all.
import { createToken, jwtRequired } from '@fnapi/auth';
import {
  API,
  HTMLResponse,
  type Hub,
  type Logger,
  type Request,
  Router,
  ServiceUnavailableError,
  type ServerWebSocket,
  z,
} from '@fnapi/core';
import { chatPage } from './page.js';

export const Said = z.object({ text: z.string().min(1).max(500) });
export const Line = z.object({ from: z.string(), text: z.string(), at: z.string() });
type LineValue = z.infer<typeof Line>;
const Room = z.string().regex(/^[a-z0-9-]{1,40}$/, 'a room name is 1 to 40 of a-z, 0-9 and -');

export interface ChatOptions {
  hub: Hub;
  /** Secret that signs the tokens `/login` hands out (HS256). */
  secret: string;
  logger?: Logger | false;
  /** Shown in the welcome line, so a client can tell which instance it reached. */
  instance?: string;
}

export function createChat(options: ChatOptions): API {
  const { hub, secret } = options;
  const instance = options.instance ?? String(process.pid);
  const app = new API({
    title: 'Chat',
    version: '1.0.0',
    logger: options.logger,
    servers: [{ url: '/', description: 'The server serving this document' }],
    license: { name: 'MIT', identifier: 'MIT' },
  });
  // Browsers cannot set headers on a WebSocket, so the page sends its token as `?token=` (never logged).
  const guard = jwtRequired({ secret, algorithm: 'HS256', queryParam: 'token' });

  app.post(
    '/login',
    {
      summary: 'Take a token for a name',
      params: { name: z.string().regex(/^[\w .-]{1,30}$/) },
      response: z.object({ token: z.string() }),
    },
    async ({ name }) => ({
      token: await createToken({ sub: name }, { secret, algorithm: 'HS256', expiresIn: '12h' }),
    }),
  );

  const rooms = new Router({ prefix: '/rooms', tags: ['rooms'] });
  rooms.ws(
    '/{room}',
    { params: { room: Room }, receive: Said, send: Line, summary: 'Talk in a room' },
    guard(async ({ room }: { room: string }, socket: ServerWebSocket<z.infer<typeof Said>, LineValue>, request: Request) => {
      const topic = `room:${room}`;
      const from = request.auth!.subject!;
      // Ready before the welcome (for a RedisHub, once Redis has the subscription; while Redis is away,
      // once it is back), so nothing published after it is missed.
      const feed = hub.subscribe<LineValue>(topic, { signal: socket.signal });
      if (
        !(await feed.ready.then(
          () => true,
          () => false,
        ))
      )
        return; // the client left first
      await socket.send({ from: 'server', text: `joined ${room} on instance ${instance}`, at: now() });
      void socket.forward(feed);
      for await (const { text } of socket) {
        try {
          await hub.publish(topic, { from, text, at: now() });
        } catch (error) {
          if (!(error instanceof ServiceUnavailableError)) throw error;
          await socket.send({ from: 'server', text: 'not delivered: the chat is unavailable, try again', at: now() });
        }
      }
    }),
  );
  // The same room over HTTP, for bots and scripts: 503 while the hub is unreachable.
  rooms.post(
    '/{room}/messages',
    {
      summary: 'Say something in a room over HTTP',
      params: { room: Room, text: Said.shape.text },
      statusCode: 202,
      response: z.object({ sent: z.boolean() }),
    },
    guard(async ({ room, text }: { room: string; text: string }, request: Request) => {
      await hub.publish(`room:${room}`, { from: request.auth!.subject!, text, at: now() });
      return { sent: true };
    }),
  );
  app.includeRouter(rooms);
  app.get('/', { includeInSchema: false }, () => new HTMLResponse(chatPage()));
  app.onShutdown(() => hub.close());
  return app;
}

function now(): string {
  return new Date().toISOString();
}
