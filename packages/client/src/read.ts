// Readers for the streamed answers of an fnapi app (or any server-sent events and JSON Lines), for
// browsers and servers alike: they take a fetch `Response` and use only Web standards.

/** The body of a fetch `Response`, as far as the readers need it (no DOM or Node types required). */
export interface StreamingBody {
  getReader(): {
    read(): Promise<{ done: boolean; value?: Uint8Array | undefined }>;
    cancel(reason?: unknown): Promise<void>;
    releaseLock(): void;
  };
}

/** What the readers take: a fetch `Response` (openapi-fetch's with `parseAs: 'stream'`), or its body. */
export type StreamSource =
  | {
      readonly ok?: boolean;
      readonly status?: number;
      readonly body: StreamingBody | null;
      readonly bodyUsed?: boolean;
      text?(): Promise<string>;
    }
  | StreamingBody;

/** One server-sent event: its parsed `data`, and `id` and `event` when the server set them. */
export interface StreamEvent<T> {
  data: T;
  id?: string;
  /** The event's name; undefined for an unnamed event. */
  event?: string;
  /** Milliseconds the server asks the client to wait before reconnecting. */
  retry?: number;
}

/**
 * The event `readEvents<T>` yields: with the types `fnapi client` writes for named events (each data
 * type marked with its name), one event per name, so `event === 'welcome'` narrows `data`; otherwise
 * a `StreamEvent<T>`.
 */
export type EventOf<T> = [EventNameOf<T>] extends [never] ? StreamEvent<T> : NamedEvent<T>;

/** The names a data type is marked with (`fnapi client`'s `{ readonly "~event"?: 'welcome' }`). */
type EventNameOf<T> = T extends { readonly '~event'?: infer N } ? Exclude<N, undefined> : never;

type NamedEvent<T> = T extends { readonly '~event'?: infer N }
  ? { data: T; event: Exclude<N, undefined>; id?: string; retry?: number }
  : never;

/**
 * The stream ended with an error: an `event: error` (its data is the problem body), or an answer that
 * was not a success (`problem` is its body, parsed as JSON where it is JSON; undefined when a client
 * call has already read it into its `error`).
 */
export class StreamError extends Error {
  readonly problem: unknown;
  readonly status: number | undefined;
  constructor(problem: unknown, status?: number) {
    const detail =
      typeof problem === 'object' && problem !== null
        ? ((problem as { detail?: unknown; title?: unknown }).detail ?? (problem as { title?: unknown }).title)
        : problem;
    super(typeof detail === 'string' && detail !== '' ? detail : 'The stream ended with an error');
    this.name = 'StreamError';
    this.problem = problem;
    this.status =
      status ?? (typeof problem === 'object' && problem !== null ? numberOr((problem as { status?: unknown }).status) : undefined);
  }
}

function numberOr(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

function parseData(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function isBody(source: StreamSource): source is StreamingBody {
  return typeof (source as StreamingBody).getReader === 'function';
}

/** The body's reader, after refusing an answer that is not a success. */
async function openBody(source: StreamSource): Promise<ReturnType<StreamingBody['getReader']>> {
  if (isBody(source)) return source.getReader();
  if (source.ok === false) {
    // A client call has already read an error answer's body into its `error`: only the status is left.
    if (source.bodyUsed === true) throw new StreamError(undefined, source.status);
    const text = typeof source.text === 'function' ? await source.text() : '';
    throw new StreamError(parseData(text), source.status);
  }
  if (source.body === null) throw new StreamError('The answer has no body', source.status);
  return source.body.getReader();
}

/** The body's text, chunk by chunk, decoded as UTF-8 (a character split across chunks is kept whole). */
async function* textChunks(source: StreamSource): AsyncGenerator<string> {
  const reader = await openBody(source);
  const decoder = new TextDecoder();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value !== undefined) yield decoder.decode(value, { stream: true });
    }
    finished = true;
    const rest = decoder.decode();
    if (rest !== '') yield rest;
  } finally {
    // Leaving early (a `break`, an error) stops the download.
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/** The body's lines, without their line ends (`\n`, `\r\n` or `\r`); the last one even without an end. */
async function* textLines(source: StreamSource): AsyncGenerator<string> {
  let buffer = '';
  for await (const chunk of textChunks(source)) {
    buffer += chunk;
    let start = 0;
    for (let i = 0; i < buffer.length; i++) {
      const c = buffer.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      // A CR at the very end may be the first half of CRLF: wait for the next chunk.
      if (c === 13 && i === buffer.length - 1) break;
      yield buffer.slice(start, i);
      if (c === 13 && buffer.charCodeAt(i + 1) === 10) i++;
      start = i + 1;
    }
    buffer = buffer.slice(start);
  }
  if (buffer !== '') yield buffer.endsWith('\r') ? buffer.slice(0, -1) : buffer;
}

/**
 * The server-sent events of a response, as the event-stream format defines them: each event's `data`
 * parsed as JSON (kept as text where it is not JSON), with its `id`, `event` and `retry`. Comments
 * and pings are skipped; an `event: error` ends the iteration by throwing a `StreamError` whose
 * `problem` is the problem body. Type `T` with the generated `streams[path][method]`.
 */
export async function* readEvents<T = unknown>(source: StreamSource): AsyncGenerator<EventOf<T>, void, undefined> {
  let data: string[] = [];
  let event: string | undefined;
  let id: string | undefined;
  let retry: number | undefined;
  for await (const line of textLines(source)) {
    if (line === '') {
      if (data.length > 0) {
        const parsed = parseData(data.join('\n'));
        if (event === 'error') throw new StreamError(parsed);
        const item: StreamEvent<T> = { data: parsed as T };
        if (id !== undefined) item.id = id;
        if (event !== undefined) item.event = event;
        if (retry !== undefined) item.retry = retry;
        yield item as EventOf<T>;
      }
      data = [];
      event = undefined;
      retry = undefined;
      // `id` is the stream's last event id: it stays until the server sets another.
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        data.push(value);
        break;
      case 'event':
        event = value;
        break;
      case 'id':
        if (!value.includes('\0')) id = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) retry = Number(value);
        break;
    }
  }
}

/**
 * The items of a JSON Lines response, one parsed JSON value per line (blank lines skipped). A line
 * that is not JSON throws a `SyntaxError`; a stream the server cut off rejects as its fetch does.
 */
export async function* readLines<T = unknown>(source: StreamSource): AsyncGenerator<T, void, undefined> {
  for await (const line of textLines(source)) {
    if (line.trim() === '') continue;
    yield JSON.parse(line) as T;
  }
}
