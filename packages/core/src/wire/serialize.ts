import { refuse } from './refuse.js';
import type { Serialized, SerializeContext } from './written.js';

export type { Serialized, SerializeContext };
import { isInvalidHeaderName, isUnsafeHeaderValue, type ResponseHeaders } from '../http/headers.js';
import { statusHasBody } from '../http/facts.js';
import { utf8 } from '../platform/platform.js';
import type { BodyChunk, Response } from '../http/response.js';

/**
 * Renders a response. A body that cannot be serialised, or a header value that could split the
 * response (CR, LF), turns it into a 500 instead of ever being written.
 */
export function serialize(response: Response, context: SerializeContext): Serialized {
  try {
    return serializeUnchecked(response);
  } catch (error) {
    return refuse(error, context);
  }
}

function serializeUnchecked(response: Response): Serialized {
  const status = response.statusCode;
  if (!Number.isInteger(status) || status < 100 || status > 599) throw new RangeError(`Invalid status code ${status}`);
  // Headers set by the handler or middleware, checked; most answers have none.
  const set = response.headersIfAny;
  const id = response.requestId;
  // The runtime's id wins over one a middleware replayed (a cached response's).
  if (id !== undefined) set?.delete('x-request-id');
  const flat = set === undefined || set.size === 0 ? undefined : checkedHeaders(set);
  const hasContentType = flat !== undefined && set!.has('content-type');
  if (!statusHasBody(status)) return { status, headers: withId(flat ?? [], id), body: null, stream: undefined };
  const stream = response.stream();
  if (stream !== undefined) {
    const type = hasContentType ? undefined : response.contentType();
    const headers = withId(flat ?? [], id);
    if (type !== undefined) headers.push('content-type', type);
    const length = response.streamLength();
    if (length !== undefined) headers.push('content-length', `${length}`);
    return { status, headers, body: null, stream };
  }
  const body = response.render();
  // As text: node:http tests every header value with a regular expression, which takes V8's fast
  // path only when each value it ever sees is a string (a number also costs a conversion there).
  const length = `${body === null ? 0 : response.renderedLength(body)}`;
  const type = body === null || hasContentType ? undefined : (response.contentType() ?? 'application/octet-stream');
  if (flat === undefined) {
    // Built whole rather than grown: the common answer's list in one allocation.
    let headers: (string | number)[];
    if (id === undefined) headers = type === undefined ? ['content-length', length] : ['content-type', type, 'content-length', length];
    else
      headers =
        type === undefined
          ? ['content-length', length, 'x-request-id', id]
          : ['content-type', type, 'content-length', length, 'x-request-id', id];
    return { status, headers, body, stream: undefined };
  }
  if (type !== undefined) flat.push('content-type', type);
  flat.push('content-length', length);
  return { status, headers: withId(flat, id), body, stream: undefined };
}

/** Adds the request id (1–128 visible ASCII characters, checked where it is made). */
function withId(headers: (string | number)[], id: string | undefined): (string | number)[] {
  if (id !== undefined) headers.push('x-request-id', id);
  return headers;
}

/** The flat list of headers set on a response; a name or value that could split the response throws. */
function checkedHeaders(headers: ResponseHeaders): (string | number)[] {
  headers.delete('content-length');
  for (const [name, value] of headers) {
    if (isUnsafeHeaderValue(value) || isInvalidHeaderName(name)) {
      throw new TypeError(`Header ${JSON.stringify(name)} has an invalid name or a value with CR, LF or NUL; refusing to write it`);
    }
  }
  const flat: (string | number)[] = [];
  headers.appendFlat(flat);
  return flat;
}

export function toChunk(chunk: BodyChunk): Uint8Array {
  return typeof chunk === 'string' ? utf8(chunk) : chunk;
}

/**
 * A Web stream over a response body: pulled chunk by chunk (a slow reader holds the producer back),
 * and cancelling it (the client went away) stops the producer.
 */
export function toWebStream(
  source: AsyncIterable<BodyChunk> | ReadableStream<BodyChunk>,
  onEnd?: (completed: boolean) => void,
): ReadableStream<Uint8Array> {
  const iterator = (source as AsyncIterable<BodyChunk>)[Symbol.asyncIterator]();
  let ended = false;
  // Once: `completed` when the producer finished, false when it failed or the reader went away.
  const end = (completed: boolean) => {
    if (ended || onEnd === undefined) return;
    ended = true;
    onEnd(completed);
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let next: IteratorResult<BodyChunk>;
      try {
        next = await iterator.next();
      } catch (error) {
        end(false);
        throw error;
      }
      if (next.done) {
        end(true);
        controller.close();
      } else controller.enqueue(toChunk(next.value));
    },
    async cancel() {
      try {
        await iterator.return?.();
      } finally {
        end(false);
      }
    },
  });
}
