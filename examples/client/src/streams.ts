import { createClient, readEvents, readLines } from '@fnapi/client';
import type { paths, streams } from './events-api.js';

/** A client of the events example, typed by its document (`pnpm generate` rewrites `events-api.d.ts`). */
export function eventsClient(baseUrl: string) {
  return createClient<paths>({ baseUrl });
}

export type EventsClient = ReturnType<typeof eventsClient>;
type FeedItem = streams['/feed']['get'];
type Message = streams['/export']['get'];

/** Follows the feed until `count` events have come: each event's data typed, its name and id kept. */
export async function followFeed(api: EventsClient, count: number, signal?: AbortSignal) {
  const { response } = await api.GET('/feed', { parseAs: 'stream', ...(signal ? { signal } : {}) });
  const seen: { event: string | undefined; id: string | undefined; data: FeedItem }[] = [];
  for await (const { data, event, id } of readEvents<FeedItem>(response)) {
    seen.push({ event, id, data });
    if (seen.length === count) break; // leaving the loop stops the download
  }
  return seen;
}

/** The messages after `after`, read line by line from the JSON Lines export. */
export async function exportMessages(api: EventsClient, after = 0): Promise<Message[]> {
  const { response } = await api.GET('/export', { params: { query: { after } }, parseAs: 'stream' });
  const messages: Message[] = [];
  for await (const message of readLines<Message>(response)) messages.push(message);
  return messages;
}
