import { API, type APIOptions, type Duration, HTMLResponse, sseEvent, z } from '@fnapi/core';
import { Feed } from './feed.js';
import { PAGE } from './page.js';

export const Message = z.object({ id: z.int().min(1), text: z.string(), at: z.iso.datetime() }).meta({ id: 'Message' });
const Welcome = z.object({ latest: z.int().min(0) }).meta({ id: 'Welcome' });
/** What the feed sends: a `welcome` event first, then one `message` event per message. */
export const FeedEvent = z.union([Message, Welcome]);

export interface ExampleOptions extends APIOptions {
  /** The feed (tests pass their own to watch it). */
  feed?: Feed;
  /** Seconds (or `'500ms'`) a disconnected browser waits before reconnecting (the `retry` field, sent in milliseconds). */
  retry?: Duration;
}

/** A live message feed: a page that follows it with `EventSource`, and a JSON Lines export. */
export function createApp(options: ExampleOptions = {}): API {
  const { feed = new Feed(), retry = 1, ...apiOptions } = options;
  const app = new API({
    title: 'fnapi events example',
    version: '1.0.0',
    servers: [{ url: '/', description: 'The server serving this document' }],
    ...apiOptions,
  });

  app.get('/', { includeInSchema: false }, () => new HTMLResponse(PAGE));

  app.get(
    '/feed',
    {
      summary: 'Follow the feed',
      description:
        'Server-sent events: a `welcome` event, then every message (as `message` events with the message id as event id). ' +
        'A client that reconnects with `Last-Event-ID` gets the messages it missed.',
      events: FeedEvent,
    },
    async function* feedEvents(_input, request) {
      const reconnecting = request.lastEventId;
      if (reconnecting !== undefined) feed.reconnects.push(reconnecting);
      let last = reconnecting !== undefined && /^\d+$/.test(reconnecting) ? Number(reconnecting) : 0;
      const generation = feed.generation;
      yield sseEvent({ event: 'welcome', data: { latest: feed.latest }, retry });
      while (!request.signal.aborted && feed.generation === generation) {
        for (const message of feed.since(last)) {
          yield sseEvent({ data: message, id: message.id });
          last = message.id;
        }
        await feed.wait(request.signal);
      }
    },
  );

  app.post(
    '/messages',
    { summary: 'Post a message', params: { text: z.string().min(1).max(500) }, response: Message, statusCode: 201 },
    ({ text }) => feed.publish(text),
  );

  app.get(
    '/export',
    {
      summary: 'Export the messages',
      description: 'JSON Lines, one message per line, oldest first.',
      params: { after: z.int().min(0).default(0) },
      lines: Message,
    },
    async function* exportMessages({ after }) {
      for (const message of feed.since(after)) yield message;
    },
  );
  return app;
}
