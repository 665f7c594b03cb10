import { problemDetails } from '../http/errors.js';
import { DEFERRED, RUN_DEFERRED } from '../http/deferred.js';
import type { Request } from '../http/request.js';
import { type BodyChunk, problemResponse, type Response } from '../http/response.js';
import type { MaybePromise } from '../serve/pipeline.js';
import type { Runtime } from '../serve/runtime-contract.js';
import { type Serialized, serialize } from './serialize.js';

const reported = new WeakSet<object>();

/**
 * Before a request is handled: runs the app's startup once (concurrent requests share it). Resolves
 * to undefined once started, or to a 503 answer when startup failed; the next request tries again.
 * Call it only when `runtime.ready` is false, so a started app pays nothing.
 */
export async function startOrRefuse(runtime: Runtime): Promise<Response | undefined> {
  try {
    await runtime.startup();
    return undefined;
  } catch (error) {
    // Requests waiting on the same failed run share one log line.
    if (typeof error !== 'object' || error === null || !reported.has(error)) {
      if (typeof error === 'object' && error !== null) reported.add(error);
      runtime.logger.error({ err: error }, 'startup failed; answering 503 until a later request starts the app');
    }
    return problemResponse(problemDetails(503, 'The service is starting and could not get ready; try again'), { 'retry-after': '1' });
  }
}

/**
 * One request answered: startup once, the app's handling, serialization, and the one decision that
 * a HEAD answer carries no body (statuses without one are decided by `serialize`).
 */
export function answer(runtime: Runtime, request: Request): Promise<Serialized> {
  const out = answerNow(runtime, request);
  return out instanceof Promise ? out : Promise.resolve(out);
}

/**
 * `answer` for servers that write a synchronous answer at once: no promise when the app is started
 * and nothing on the request's path is asynchronous.
 */
export function answerNow(runtime: Runtime, request: Request): MaybePromise<Serialized> {
  if (!runtime.ready) return answerAfterStartup(runtime, request);
  const response = runtime.serve(request);
  return response instanceof Promise ? response.then((done) => finish(runtime, request, done)) : finish(runtime, request, response);
}

/**
 * `answerNow` for servers that hand the answer on: `deliver(out, context)` is called once with the
 * written answer, at once when it is synchronous, else from the one continuation of the app's promise
 * (no second promise hop per request).
 */
export function answerThen<C>(runtime: Runtime, request: Request, deliver: (out: Serialized, context: C) => void, context: C): void {
  if (!runtime.ready) {
    void answerAfterStartup(runtime, request).then((out) => deliver(out, context));
    return;
  }
  const response = runtime.serve(request);
  if (response instanceof Promise) response.then((done) => deliver(finish(runtime, request, done), context));
  else deliver(finish(runtime, request, response), context);
}

async function answerAfterStartup(runtime: Runtime, request: Request): Promise<Serialized> {
  if (runtime.servesWhileStarting?.(request)) {
    // A probe answers at once (`/readyz`: 503 starting); startup runs, or goes on, meanwhile.
    void startOrRefuse(runtime);
    return finish(runtime, request, await runtime.handle(request));
  }
  const refused = await startOrRefuse(runtime);
  return finish(runtime, request, refused ?? (await runtime.handle(request)));
}

/** A response as written: serialized, and without a body for a HEAD request. */
export function finish(runtime: Runtime, request: Request, response: Response): Serialized {
  // The runtime itself is the context: its logger (and pino with it) is made only if a line is written.
  const out = serialize(response, runtime);
  return request.method === 'HEAD' ? withoutBody(out) : out;
}

/** The answer to a HEAD request: headers only; a stream is closed unread (a generator's `finally` runs). */
export function withoutBody(out: Serialized): Serialized {
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
 * Once the answer has been delivered: starts the request's deferred tasks (`request.defer`), tracked
 * under the app for its drain. Costs one property read when nothing was deferred.
 */
export function afterAnswer(runtime: object, request: Request): Promise<void> | undefined {
  return request[DEFERRED] === undefined ? undefined : request[RUN_DEFERRED](runtime);
}
