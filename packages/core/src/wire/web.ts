import { DEFERRED } from '../http/deferred.js';
import type { RawHeaders } from '../http/headers.js';
import type { Platform } from '../platform/platform.js';
import type { ClientInfo } from '../http/request.js';
import type { Runtime } from '../serve/runtime-contract.js';
import { afterAnswer, answer } from './answer.js';
import { type RequestParts, requestFrom } from './request-from.js';
import { type Serialized, toWebStream } from './serialize.js';

/** Bytes of an unread request body still read (and dropped) before answering. */
const SMALL_BODY = 64 * 1024;

/** The parts of a Web-standard `Request`: its body is read on first use. */
export function webParts(web: globalThis.Request, bodyLimit: number): RequestParts {
  const headers: RawHeaders = {};
  web.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { method: web.method, url: new URL(web.url), headers, body: web.body, hasBody: web.body !== null, signal: web.signal, bodyLimit };
}

/**
 * A written answer as a Web-standard `Response`; a stream is pulled as the reader reads, and `onEnd`
 * runs once it has ended (`completed` when the producer finished, false when the reader went away).
 */
export function toWebResponse(out: Serialized, onEnd?: (completed: boolean) => void): globalThis.Response {
  const headers = new Headers();
  for (let i = 0; i < out.headers.length; i += 2) headers.append(String(out.headers[i]), String(out.headers[i + 1]));
  const body: BodyInit | null = out.stream !== undefined ? toWebStream(out.stream, onEnd) : (out.body as BodyInit | null);
  return new globalThis.Response(body, { status: out.status, headers });
}

/** What a Web transport knows beside the request: the platform, the client, the platform's `waitUntil`. */
export interface WebContext {
  platform?: Platform;
  client?: ClientInfo;
  waitUntil?: ((promise: Promise<unknown>) => void) | undefined;
}

/**
 * Answers a Web `Request` through the runtime (`app.fetch`, Netlify Functions v2, Workers, Bun, Deno).
 * The request's deferred work starts once the answer is out (a stream: once it has ended), handed to
 * the platform's `waitUntil` where it has one.
 */
export async function answerWeb(runtime: Runtime, web: globalThis.Request, context: WebContext = {}): Promise<globalThis.Response> {
  const parts = webParts(web, runtime.limits.bodyLimit);
  const signal = web.signal;
  const body = web.body === null ? null : new BodyReader(web.body);
  // Deno aborts a request's signal after a successful answer too: only an abort before the answer is
  // complete means the client went away.
  let complete = false;
  parts.body = body;
  parts.signal = undefined;
  parts.onDisconnect = (abort) => {
    if (signal.aborted) abort(signal.reason);
    else signal.addEventListener('abort', () => !complete && abort(signal.reason), { once: true });
  };
  if (context.platform !== undefined) parts.platform = context.platform;
  if (context.client !== undefined) parts.client = context.client;
  if (context.waitUntil !== undefined) parts.waitUntil = context.waitUntil;
  const request = requestFrom(parts);
  const out = await answer(runtime, request);
  // A small body the answer never read (an early 413, a 404) is read and dropped first, as node:http
  // does: a runtime that closes the connection with request bytes unread resets it, and a client
  // still sending them sees the reset instead of the answer.
  if (body !== null && !body.done) await body.dropRest(!(Number(parts.headers['content-length']) > SMALL_BODY));
  if (out.stream === undefined) {
    complete = true;
    afterAnswer(request);
    return toWebResponse(out);
  }
  const deferred = request[DEFERRED] !== undefined;
  return toWebResponse(out, (completed) => {
    if (completed) complete = true;
    if (deferred) void afterAnswer(request);
  });
}

/**
 * The request body as fnapi reads it: chunk by chunk, where stopping early (a 413 past the limit)
 * does not cancel the platform's stream, so that the rest of a small body can still be read and
 * dropped before answering (see `dropRest`).
 */
class BodyReader implements AsyncIterable<Uint8Array> {
  done = false;
  private received = 0;
  private reader: ReadableStreamDefaultReader<Uint8Array> | undefined;

  constructor(private readonly stream: ReadableStream<Uint8Array>) {}

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    this.reader ??= this.stream.getReader();
    const reader = this.reader;
    return {
      next: async () => {
        const result = await reader.read();
        if (result.done) this.done = true;
        else this.received += result.value.byteLength;
        return result.done ? { done: true, value: undefined } : { done: false, value: result.value };
      },
      return: async () => ({ done: true, value: undefined }),
    };
  }

  /** Reads and drops what is left when the body is small (else, or past SMALL_BODY, cancels it). */
  async dropRest(small: boolean): Promise<void> {
    const reader = (this.reader ??= this.stream.getReader());
    try {
      while (small && this.received <= SMALL_BODY) {
        const { done, value } = await reader.read();
        if (done) return;
        this.received += value.byteLength;
      }
      await reader.cancel();
    } catch {
      // The client went away meanwhile: nothing to drop.
    } finally {
      this.done = true;
    }
  }
}
