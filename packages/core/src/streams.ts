import { compiledParser, type z } from '@fnapi/validation';
import { HTTPError, ServiceUnavailableError } from './errors.js';
import type { Request } from './request.js';
import { fromWebResponse, isWebResponse, Response, StreamingResponse } from './response.js';
import { errorResponse } from './runtime.js';
import { utf8Text } from './platform.js';

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
  /** Milliseconds the client waits before reconnecting. */
  retry?: number;
}

export interface SSEEvent<T = unknown> extends Readonly<SSEEventInit<T>> {
  readonly [SSE_EVENT]: true;
}

/** One server-sent event with its other fields set: yield it from an `events` endpoint. */
export function sseEvent<T>(init: SSEEventInit<T>): SSEEvent<T> {
  for (const field of ['event', 'id'] as const) {
    const value = init[field];
    if (value !== undefined && /[\r\n\0]/.test(String(value))) throw new TypeError(`sseEvent: ${field} may not contain CR, LF or NUL`);
  }
  if (init.retry !== undefined && !(Number.isInteger(init.retry) && init.retry >= 0)) {
    throw new TypeError('sseEvent: retry is a whole number of milliseconds');
  }
  return { ...init, [SSE_EVENT]: true };
}

function isSSEEvent(value: unknown): value is SSEEvent {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[SSE_EVENT] === true;
}

/** What an `events` endpoint may yield: its schema's input, plain or wrapped in `sseEvent`. */
export type EventItem<S extends z.ZodType> = z.input<S> | SSEEvent<z.input<S>>;

/** What a streaming handler may return: an (async) iterable of items, or a response sent as given. */
export type StreamResult<T> =
  | AsyncIterable<T>
  | Iterable<T>
  | Response
  | globalThis.Response
  | Promise<AsyncIterable<T> | Iterable<T> | Response | globalThis.Response>;

/** Thrown into the writer to cut a JSON Lines stream off without its final chunk (already logged). */
export class StreamInterrupted extends Error {
  constructor(cause: unknown) {
    super('stream interrupted', { cause });
    this.name = 'StreamInterrupted';
  }
}

/** The abort reason of streams ended by a draining server. */
export function drainingReason(): Error {
  return new ServiceUnavailableError('The server is shutting down');
}

export interface StreamSpec {
  kind: 'events' | 'lines';
  schema: z.ZodType;
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
  options: { events?: z.ZodType; lines?: z.ZodType; ping?: number; statusCode?: number },
  label: string,
): ((result: unknown, request: Request) => Promise<Response>) | undefined {
  checkStreamOptions(options, label);
  const schema = options.events ?? options.lines;
  if (schema === undefined) return undefined;
  const ping = options.ping ?? DEFAULT_PING;
  const toStream = compileStream({
    kind: options.events !== undefined ? 'events' : 'lines',
    schema,
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
  const ping = options.ping;
  if (ping !== undefined && !(typeof ping === 'number' && Number.isFinite(ping) && ping >= 0)) {
    throw new Error(`${label}: ping is a number of seconds (0 turns it off), got ${String(ping)}`);
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function';
}

/** How the document describes a streaming endpoint's body: its media type and item schema. */
export function streamOf(options: { events?: z.ZodType; lines?: z.ZodType }): { mediaType: string; item: z.ZodType } | undefined {
  if (options.events !== undefined) return { mediaType: EVENT_STREAM_TYPE, item: options.events };
  if (options.lines !== undefined) return { mediaType: JSON_LINES_TYPE, item: options.lines };
  return undefined;
}

/** Compiles how an `events`/`lines` endpoint's iterable becomes a streamed response. */
export function compileStream(spec: StreamSpec): (result: unknown, request: Request) => Promise<StreamingResponse> {
  const parser = compiledParser(spec.schema);
  const parse = (value: unknown): unknown => {
    const parsed = parser.safeParse(value);
    if (!parsed.success) throw new ItemValidationError(spec.label, parsed.error.issues);
    return parsed.data;
  };
  const encode =
    spec.kind === 'lines'
      ? (item: unknown) => `${JSON.stringify(parse(item))}\n`
      : (item: unknown) =>
          isSSEEvent(item) ? eventText(item, JSON.stringify(parse(item.data))) : `data: ${JSON.stringify(parse(item))}\n\n`;
  const pingMs = spec.kind === 'events' && spec.ping > 0 ? spec.ping * 1000 : undefined;
  const headers = { 'cache-control': 'no-cache', 'x-accel-buffering': 'no' };
  const mediaType = spec.kind === 'events' ? EVENT_STREAM_TYPE : JSON_LINES_TYPE;
  return async (result, request) => {
    const source = iteratorOf(result, spec.label);
    if (request.method === 'HEAD') {
      // No body will be read: close the producer before it starts rather than leave it suspended.
      await source.return?.();
      return new StreamingResponse(EMPTY, { mediaType, headers, statusCode: spec.statusCode });
    }
    const stream = new ItemStream(source, encode, request, spec.kind, pingMs);
    // An error before the first item is an ordinary error response, so wait for it (events: at
    // most until the first ping is due, then the stream starts with the ping).
    await stream.prime();
    return new StreamingResponse(stream, { mediaType, headers, statusCode: spec.statusCode });
  };
}

function eventText(event: SSEEvent, data: string): string {
  let text = '';
  if (event.event !== undefined) text += `event: ${event.event}\n`;
  if (event.id !== undefined) text += `id: ${event.id}\n`;
  if (event.retry !== undefined) text += `retry: ${event.retry}\n`;
  return `${text}data: ${data}\n\n`;
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

/** An item that did not fit the stream's schema: a server bug. */
export class ItemValidationError extends Error {
  constructor(
    readonly endpoint: string,
    readonly issues: readonly z.core.$ZodIssue[],
  ) {
    super(
      `${endpoint} yielded an item that does not match its schema: ` +
        issues.map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`).join('; '),
    );
    this.name = 'ItemValidationError';
  }
}

/**
 * The handler's items as body chunks, pulled one at a time by the writer (so a slow client pauses
 * the producer). Races each pull against the ping timer and `request.signal`: a client that goes
 * away or a draining server ends the stream at once and closes the producer.
 */
class ItemStream implements AsyncIterableIterator<string> {
  private pending: Promise<Encoded> | undefined;
  private first: string | undefined;
  private finished = false;
  private readonly aborted: Promise<void>;

  constructor(
    private readonly source: AsyncIterator<unknown> | Iterator<unknown>,
    private readonly encode: (item: unknown) => string,
    private readonly request: Request,
    private readonly kind: 'events' | 'lines',
    private readonly pingMs: number | undefined,
  ) {
    const signal = request.signal;
    this.aborted = new Promise((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Waits for the first item; its error (or a bad first item) rejects, after closing the producer. */
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
  private async race(): Promise<Encoded | 'done' | 'ping' | 'aborted'> {
    if (this.request.aborted) return 'aborted';
    this.pending ??= this.pull();
    const contenders: Promise<Encoded | 'done' | 'ping' | 'aborted'>[] = [
      this.pending.then((encoded) => (encoded.ok && encoded.chunk === '' ? 'done' : encoded)),
      this.aborted.then(() => 'aborted' as const),
    ];
    let timer: NodeJS.Timeout | undefined;
    if (this.pingMs !== undefined) {
      contenders.push(
        new Promise<'ping'>((resolve) => {
          timer = setTimeout(() => resolve('ping'), this.pingMs);
        }),
      );
    }
    try {
      return await Promise.race(contenders);
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
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
