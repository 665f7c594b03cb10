import { DEFERRED, RUN_DEFERRED } from '../http/deferred.js';
import type { Request } from '../http/request.js';
import type { BodyChunk, Response } from '../http/response.js';
import type { Runtime } from '../serve/runtime-contract.js';
import { type Serialized, serialize } from './serialize.js';

/**
 * One request answered, for transports that await their answer (fetch, inject, the adapters): the
 * runtime's `serve` with its answer written by `finish`.
 */
export function answer(runtime: Runtime, request: Request): Promise<Serialized> {
  return new Promise((resolve) => runtime.serve(request, (response, done) => done(finish(runtime, request, response)), resolve));
}

/** A response as written: serialized, and without a body for a HEAD request (statuses without one are decided by `serialize`). */
export function finish(runtime: Runtime, request: Request, response: Response): Serialized {
  // The runtime itself is the context: its logger (and pino with it) is made only if a line is written.
  const out = serialize(response, runtime);
  return request.method === 'HEAD' ? withoutBody(out) : out;
}

/** The answer to a HEAD request: headers only; a stream is closed unread (a generator's `finally` runs). */
function withoutBody(out: Serialized): Serialized {
  if (out.stream !== undefined) void closeStream(out.stream);
  if (out.body === null && out.stream === undefined) return out;
  return { status: out.status, headers: out.headers, body: null, stream: undefined };
}

/** Stops a body stream without reading it. */
export async function closeStream(stream: AsyncIterable<BodyChunk> | ReadableStream<BodyChunk>): Promise<void> {
  try {
    if ('cancel' in stream && typeof stream.cancel === 'function') await stream.cancel();
    else await (stream as AsyncIterable<BodyChunk>)[Symbol.asyncIterator]().return?.();
  } catch {
    // A producer that fails while stopping has nothing left to say to anyone.
  }
}

/**
 * Once the answer has been delivered: starts the request's deferred tasks (`request.defer`), counted
 * under the app for its drain. Costs one property read when nothing was deferred.
 */
export function afterAnswer(request: Request): Promise<void> | undefined {
  return request[DEFERRED] === undefined ? undefined : request[RUN_DEFERRED]();
}
