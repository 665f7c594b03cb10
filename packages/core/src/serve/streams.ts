import {
  compiledParser,
  compileJsonWriter,
  type Duration,
  durationMs,
  durationSeconds,
  isZodSchema,
  type JsonWriter,
  type Schema,
  type SchemaInput,
  z,
} from '@fnapi/validation';
import { HTTPError, ResponseValidationError, ServiceUnavailableError } from '../http/errors.js';
import { isPromiseLike } from './pipeline.js';
import type { Request } from '../http/request.js';
import { fromWebResponse, isWebResponse, Response, StreamingResponse } from '../http/response.js';
import { errorResponse } from './funnel.js';
import { StreamInterrupted } from '../http/interrupted.js';

export { StreamInterrupted };
import { utf8Text } from '../platform/platform.js';

export const EVENT_STREAM_TYPE = 'text/event-stream';
export const JSON_LINES_TYPE = 'application/jsonl';
/** Seconds without an event before an event stream sends `: ping`. */
export const DEFAULT_PING = 15;

const SSE_EVENT: unique symbol = Symbol.for('fnapi.sseEvent') as never;

/** The fields of one server-sent event; `data` is parsed through the endpoint's `events` schema. */
export interface SSEEventInit<T = unknown> {
  data: T;
  event?: string;
  id?: string | number;
  /** Seconds (or `'500ms'`) the client waits before reconnecting; written to the wire in milliseconds. */
  retry?: Duration;
}

export interface SSEEvent<T = unknown> extends Readonly<SSEEventInit<T>> {
  readonly [SSE_EVENT]: true;
  /** `data` is a string sent as it is (each line a `data:` line), not JSON and not parsed. */
  readonly raw?: boolean;
  /** A comment line (`: text`) and no event. */
  readonly comment?: string;
}

/** A raw event: `data` sent as it is, without the schema. */
export interface RawSSEEventInit extends Omit<SSEEventInit<string>, 'data'> {
  data: string;
  raw: true;
}

/**
 * One server-sent event with its other fields set: yield it from an `events` endpoint.
 * `sseEvent({ comment: 'text' })` sends a comment line and no event; `sseEvent({ data: 'text', raw:
 * true })` sends a string as it is, not as JSON, without the schema.
 */
export function sseEvent(init: { comment: string }): SSEEvent<never>;
export function sseEvent(init: RawSSEEventInit): SSEEvent<never>;
export function sseEvent<T>(init: SSEEventInit<T>): SSEEvent<T>;
export function sseEvent<T>(init: SSEEventInit<T> | RawSSEEventInit | { comment: string }): SSEEvent<T> {
  if ('comment' in init && typeof init.comment === 'string' && !('data' in init)) {
    return { comment: init.comment, [SSE_EVENT]: true } as SSEEvent<T>;
  }
  if ('raw' in init && init.raw === true && typeof init.data !== 'string') throw new TypeError('sseEvent: raw data is a string');
  return checkedEvent(init as SSEEventInit<T>);
}

function checkedEvent<T>(init: SSEEventInit<T>): SSEEvent<T> {
  for (const field of ['event', 'id'] as const) {
    const value = init[field];
    if (value !== undefined && /[\r\n\0]/.test(String(value))) throw new TypeError(`sseEvent: ${field} may not contain CR, LF or NUL`);
  }
  if (init.retry === undefined) return { ...init, [SSE_EVENT]: true } as SSEEvent<T>;
  // The wire's `retry` field is whole milliseconds; the option is seconds like every other duration.
  return { ...init, retry: durationMs('sseEvent: retry', init.retry), [SSE_EVENT]: true } as SSEEvent<T>;
}

function isSSEEvent(value: unknown): value is SSEEvent {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[SSE_EVENT] === true;
}

/** What an `events` endpoint may yield: its schema's input, plain or wrapped in `sseEvent`. */
export type EventItem<S> = SchemaInput<S> | SSEEvent<SchemaInput<S>>;

/** What an endpoint with named `events` yields: an `sseEvent` whose name picks the data's schema. */
export type NamedEventItem<M extends Record<string, Schema>> = { [K in keyof M & string]: SSEEvent<SchemaInput<M[K]>> }[keyof M & string];

/** What a streaming handler may return: an (async) iterable of items, or a response sent as given. */
export type StreamResult<T> =
  | AsyncIterable<T>
  | Iterable<T>
  | Response
  | globalThis.Response
  | Promise<AsyncIterable<T> | Iterable<T> | Response | globalThis.Response>;

export interface StreamSpec {
  kind: 'events' | 'lines';
  schema: Schema;
  /** `events: { name: schema, … }`: each event's name picks the schema of its data. */
  named?: Record<string, Schema>;
  /** Seconds; events only. */
  ping: number;
  label: string;
  statusCode: number;
}

const EMPTY: AsyncIterable<string> = { [Symbol.asyncIterator]: () => ({ next: async () => ({ done: true, value: undefined }) }) };

type Encoded = { ok: true; chunk: string } | { ok: false; error: unknown };
const PING = ': ping\n\n';

/**
 * How an endpoint with `events` or `lines` turns its handler's result into a response (undefined for
 * other endpoints): a returned `Response` is sent as given, anything else streamed item by item.
 */
export function compileStreamResult(
  options: { events?: EventsOption; lines?: Schema; ping?: Duration; statusCode?: number },
  label: string,
): ((result: unknown, request: Request) => Promise<Response>) | undefined {
  checkStreamOptions(options, label);
  const events = options.events;
  const named = isNamedEvents(events) ? events : undefined;
  const schema = named !== undefined ? Object.values(named)[0] : ((events as Schema | undefined) ?? options.lines);
  if (schema === undefined) return undefined;
  const ping = options.ping === undefined ? DEFAULT_PING : durationSeconds(`${label}: ping`, options.ping);
  const toStream = compileStream({
    kind: options.events !== undefined ? 'events' : 'lines',
    schema,
    ...(named !== undefined ? { named } : {}),
    ping,
    label,
    statusCode: options.statusCode ?? 200,
  });
  return async (result, request) => {
    const value = isPromiseLike(result) ? await result : result;
    if (value instanceof Response) return value;
    if (isWebResponse(value)) return fromWebResponse(value);
    return toStream(value, request);
  };
}

/** Refuses, at registration, stream options that cannot work together. */
export function checkStreamOptions(
  options: { events?: unknown; lines?: unknown; ping?: unknown; response?: unknown },
  label: string,
): void {
  if (options.events !== undefined && options.lines !== undefined) throw new Error(`${label}: give either events or lines, not both`);
  if ((options.events ?? options.lines) !== undefined && options.response !== undefined) {
    throw new Error(`${label}: a streaming endpoint describes its items with events or lines; drop response`);
  }
  if (options.ping !== undefined) durationSeconds(`${label}: ping`, options.ping as Duration);
}

const namedItems = new WeakMap<Record<string, Schema>, z.ZodType>();

/** An endpoint's `events`: one schema, or a schema per event name. */
export type EventsOption = Schema | Record<string, Schema>;

/** `events: { welcome: Welcome, message: Message }` rather than one schema. */
export function isNamedEvents(events: EventsOption | undefined): events is Record<string, Schema> {
  return typeof events === 'object' && events !== null && !('_zod' in events) && !('~standard' in events);
}

/**
 * How the document describes a streaming endpoint's body: its media type and item schema. Named
 * events are described by an object of their schemas, one property per name (`events`), which the
 * document turns into one branch per name.
 */
export function streamOf(options: {
  events?: EventsOption;
  lines?: Schema;
}): { mediaType: string; item: Schema; kind: 'events' | 'lines'; names?: string[] } | undefined {
  const events = options.events;
  if (isNamedEvents(events)) {
    let item = namedItems.get(events);
    // Another library's schema among named events is documented as `{}` here.
    if (item === undefined) {
      const shape = Object.fromEntries(Object.entries(events).map(([name, s]) => [name, isZodSchema(s) ? (s as z.ZodType) : z.unknown()]));
      namedItems.set(events, (item = z.object(shape)));
    }
    return { mediaType: EVENT_STREAM_TYPE, item, kind: 'events', names: Object.keys(events) };
  }
  if (events !== undefined) return { mediaType: EVENT_STREAM_TYPE, item: events, kind: 'events' };
  if (options.lines !== undefined) return { mediaType: JSON_LINES_TYPE, item: options.lines, kind: 'lines' };
  return undefined;
}

/** Compiles how an `events`/`lines` endpoint's iterable becomes a streamed response. */
export function compileStream(spec: StreamSpec): (result: unknown, request: Request) => Promise<StreamingResponse> {
  const parser = compiledParser(spec.schema);
  const parse = (value: unknown): unknown => {
    const parsed = parser.safeParse(value);
    if (!parsed.success) throw new ResponseValidationError(spec.label, parsed.error.issues, 'yielded an item');
    return parsed.data;
  };
  // Items the model's JSON writer vouches for are written in one pass (made on the first item).
  let writer: JsonWriter | null | undefined;
  const text = (item: unknown): string => {
    if (writer === undefined) writer = compileJsonWriter(spec.schema) ?? null;
    return (writer === null ? undefined : writer(item)) ?? JSON.stringify(parse(item));
  };
  // Named events (`events: { welcome: Welcome, … }`): each item is an `sseEvent` whose name picks its schema.
  const named = spec.named === undefined ? undefined : new Map(Object.entries(spec.named).map(([name, s]) => [name, compiledParser(s)]));
  const parseEvent = (event: SSEEvent): unknown => {
    if (named === undefined) return parse(event.data);
    const parser = event.event === undefined ? undefined : named.get(event.event);
    if (parser === undefined) {
      throw new ResponseValidationError(spec.label, [
        { code: 'custom', path: ['event'], message: `unknown event name ${JSON.stringify(event.event)}`, input: event.event } as never,
      ]);
    }
    const parsed = parser.safeParse(event.data);
    if (!parsed.success) throw new ResponseValidationError(spec.label, parsed.error.issues, 'yielded an item');
    return parsed.data;
  };
  const encode =
    spec.kind === 'lines'
      ? (item: unknown) => `${text(item)}\n`
      : (item: unknown) => {
          if (!isSSEEvent(item)) {
            // Named events need a name: a plain item has none, so it is refused like an unknown one.
            if (named !== undefined) parseEvent({ data: item } as SSEEvent);
            return `data: ${text(item)}\n\n`;
          }
          if (item.comment !== undefined) return `${lines(item.comment, ': ')}\n`;
          if (item.raw === true) return eventText(item, String(item.data));
          return eventText(item, JSON.stringify(parseEvent(item)));
        };
  const pingMs = spec.kind === 'events' && spec.ping > 0 ? spec.ping * 1000 : undefined;
  const headers = { 'cache-control': 'no-cache', 'x-accel-buffering': 'no' };
  const mediaType = spec.kind === 'events' ? EVENT_STREAM_TYPE : JSON_LINES_TYPE;
  return async (result, request) => {
    const source = iteratorOf(result, spec.label);
    if (request.method === 'HEAD') {
      // No body will be read: close the producer before it starts rather than leave it suspended.
      await source.return?.();
      return primed(new StreamingResponse(EMPTY, { mediaType, headers, statusCode: spec.statusCode }));
    }
    const stream = new ItemStream(source, encode, request, spec.kind, pingMs);
    // An event stream starts at once: its headers go out before the first event (a live feed may be
    // idle for long, and a browser's EventSource opens at once), so an error before that event is an
    // `event: error` like a later one. A JSON Lines stream waits for its first item, so an error
    // before it is an ordinary error response.
    if (spec.kind === 'lines') await stream.prime();
    return primed(new StreamingResponse(stream, { mediaType, headers, statusCode: spec.statusCode }));
  };
}

/** A stream whose start is decided here (an event stream at once, JSON Lines after its first item), not by the runtime. */
function primed(response: StreamingResponse): StreamingResponse {
  response.primed = true;
  return response;
}

function eventText(event: SSEEvent, data: string): string {
  let text = '';
  if (event.event !== undefined) text += `event: ${event.event}\n`;
  if (event.id !== undefined) text += `id: ${event.id}\n`;
  if (event.retry !== undefined) text += `retry: ${event.retry}\n`;
  return `${text}${lines(data, 'data: ')}\n`;
}

/** Each line of a text behind a field prefix (`data: `, `: `), as the event-stream format wants. */
function lines(text: string, prefix: string): string {
  let out = '';
  for (const line of text.split(/\r\n|\r|\n/)) out += `${prefix}${line}\n`;
  return out;
}

function iteratorOf(result: unknown, label: string): AsyncIterator<unknown> | Iterator<unknown> {
  if (result !== null && typeof result === 'object') {
    const asyncIterator = (result as AsyncIterable<unknown>)[Symbol.asyncIterator];
    if (typeof asyncIterator === 'function') return asyncIterator.call(result);
    const iterator = (result as Iterable<unknown>)[Symbol.iterator];
    if (typeof iterator === 'function') return iterator.call(result);
  }
  throw new TypeError(`${label} is a streaming endpoint: its handler must return an AsyncIterable, got ${typeof result}`);
}

/** An item that did not fit the stream's schema: a server bug (the same error as a bad return value). */
export const ItemValidationError = ResponseValidationError;
export type ItemValidationError = ResponseValidationError;

type Outcome = Encoded | 'done' | 'ping' | 'aborted';

/**
 * The handler's items as body chunks, pulled one at a time by the writer (so a slow client pauses
 * the producer). Each pull races the ping timer and `request.signal`: a client that goes away or a
 * draining server ends the stream at once and closes the producer. Nothing of an item outlives its
 * race: the abort listener is one for the stream's life and settles only the race under way, so a
 * stream that runs for days holds no more than the item being written.
 */
class ItemStream implements AsyncIterableIterator<string> {
  private pending: Promise<Encoded> | undefined;
  private first: string | undefined;
  private finished = false;
  /** Settles the race under way, if any. */
  private settle: ((outcome: Outcome) => void) | undefined = undefined;

  constructor(
    private readonly source: AsyncIterator<unknown> | Iterator<unknown>,
    private readonly encode: (item: unknown) => string,
    private readonly request: Request,
    private readonly kind: 'events' | 'lines',
    private readonly pingMs: number | undefined,
  ) {
    const signal = request.signal;
    if (!signal.aborted) signal.addEventListener('abort', () => this.settle?.('aborted'), { once: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Waits for the first item (JSON Lines); its error (or a bad first item) rejects, after closing the producer. */
  async prime(): Promise<void> {
    const outcome = await this.race();
    if (outcome === 'aborted') return this.close();
    if (outcome === 'ping') {
      this.first = PING;
      return;
    }
    this.pending = undefined;
    if (outcome === 'done') return this.close();
    if (!outcome.ok) {
      this.close();
      throw outcome.error;
    }
    this.first = outcome.chunk;
  }

  async next(): Promise<IteratorResult<string>> {
    if (this.first !== undefined) {
      const chunk = this.first;
      this.first = undefined;
      return { done: false, value: chunk };
    }
    if (this.finished) return { done: true, value: undefined };
    const outcome = await this.race();
    if (outcome === 'ping') return { done: false, value: PING };
    if (outcome === 'aborted') {
      this.close();
      if (this.kind === 'lines' && this.request.signal.reason instanceof ServiceUnavailableError) {
        // A JSON Lines export cut short by a drain must not look complete to its client.
        throw new StreamInterrupted(this.request.signal.reason);
      }
      return { done: true, value: undefined };
    }
    this.pending = undefined;
    if (outcome === 'done') {
      this.finished = true;
      return { done: true, value: undefined };
    }
    if (outcome.ok) return { done: false, value: outcome.chunk };
    return this.failed(outcome.error);
  }

  async return(): Promise<IteratorResult<string>> {
    this.close();
    return { done: true, value: undefined };
  }

  /** The next item, encoded; or a ping due, or the request aborted, whichever comes first. */
  private race(): Promise<Outcome> {
    if (this.request.aborted) return Promise.resolve('aborted');
    const pending = (this.pending ??= this.pull());
    return new Promise<Outcome>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const settle = (outcome: Outcome) => {
        if (this.settle !== settle) return;
        this.settle = undefined;
        if (timer !== undefined) clearTimeout(timer);
        resolve(outcome);
      };
      this.settle = settle;
      if (this.pingMs !== undefined) timer = setTimeout(settle, this.pingMs, 'ping');
      pending.then((encoded) => settle(encoded.ok && encoded.chunk === '' ? 'done' : encoded));
    });
  }

  /** Pulls and encodes one item; `''` marks the end (no item encodes to an empty chunk). */
  private async pull(): Promise<Encoded> {
    try {
      const next = await this.source.next();
      if (next.done) return { ok: true, chunk: '' };
      return { ok: true, chunk: this.encode(next.value) };
    } catch (error) {
      return { ok: false, error };
    }
  }

  /** An error after the first item: logged and offered to plugins, then the stream's defined ending. */
  private async failed(error: unknown): Promise<IteratorResult<string>> {
    this.close();
    const request = this.request;
    if (error instanceof HTTPError && error.statusCode < 500) {
      request.logger.warn({ err: error, method: request.method, path: request.path, route: request.route }, 'stream ended by an error');
    }
    // Logs unexpected errors and builds the problem body under the app's error policy.
    const problem = await errorResponse(error, request);
    if (this.kind === 'lines') throw new StreamInterrupted(error);
    this.finished = true;
    // A plugin's own error answer may span lines: each becomes a data line, as the format wants.
    const rendered = problem.render() ?? 'null';
    const data = (typeof rendered === 'string' ? rendered : utf8Text(rendered)).split(/\r\n|\r|\n/);
    return { done: false, value: `event: error\n${data.map((line) => `data: ${line}`).join('\n')}\n\n` };
  }

  /** Ends the stream and closes the producer (its `finally` blocks run once it is suspended). */
  private close(): void {
    if (this.finished && this.pending === undefined) return;
    this.finished = true;
    this.first = undefined;
    this.pending = undefined;
    const source = this.source;
    try {
      const closing = source.return?.();
      if (closing instanceof Promise)
        closing.catch((error: unknown) => this.request.logger.error({ err: error }, 'closing a stream failed'));
    } catch (error) {
      this.request.logger.error({ err: error }, 'closing a stream failed');
    }
  }
}
