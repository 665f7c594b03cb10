import type { RawHeaders } from '../headers.js';
import { detectRuntime, type Platform } from '../platform.js';
import type { ClientInfo } from '../request.js';
import type { Runtime } from '../runtime-contract.js';
import { answer } from '../wire/answer.js';
import { requestFrom } from '../wire/request-from.js';
import { toWebStream } from '../wire/serialize.js';

/** Bytes of an unread request body still read (and dropped) before answering. */
const SMALL_BODY = 64 * 1024;

/** What the runtimes pass beside the request: Workers' `ctx`, Bun's server, Deno's handler info. */
interface SecondArgument {
  waitUntil?: (promise: Promise<unknown>) => void;
  requestIP?: (request: globalThis.Request) => { address: string; port: number } | null;
  remoteAddr?: { hostname?: string; port?: number };
}

/**
 * `app.fetch(request, env?, ctx?)`. Workers call it with the bindings and the execution context
 * (`request.platform.env`/`.ctx`, and `request.waitUntil` goes to `ctx.waitUntil`); Bun with its
 * server and Deno with the handler info as the second argument, which give the client's address and
 * become `request.platform.ctx`.
 */
export async function handleFetch(
  app: Runtime,
  web: globalThis.Request,
  env?: unknown,
  ctx?: unknown,
  /** A serverless adapter's own platform and `waitUntil` (Netlify Functions v2), instead of the runtime's. */
  adapter?: { platform: Platform; waitUntil?: (promise: Promise<unknown>) => void },
): Promise<globalThis.Response> {
  const url = new URL(web.url);
  const headers: RawHeaders = {};
  web.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const runtime = detectRuntime();
  let platform: Platform;
  let client: ClientInfo | undefined;
  let waitUntil: ((promise: Promise<unknown>) => void) | undefined;
  if (runtime === 'bun' || runtime === 'deno') {
    // Bun.serve's and Deno.serve's second argument is theirs, not bindings.
    const second = env as SecondArgument | undefined;
    platform = second === undefined ? { runtime } : { runtime, ctx: second };
    const peer = typeof second?.requestIP === 'function' ? second.requestIP(web) : undefined;
    if (peer) client = { address: peer.address, port: peer.port };
    else if (second?.remoteAddr?.hostname !== undefined) client = { address: second.remoteAddr.hostname, port: second.remoteAddr.port };
  } else {
    platform = env === undefined && ctx === undefined ? { runtime } : { runtime, env: env as Record<string, unknown>, ctx };
    const context = ctx as SecondArgument | undefined;
    if (typeof context?.waitUntil === 'function') waitUntil = (promise) => context.waitUntil!(promise);
    const address = runtime === 'workerd' ? web.headers.get('cf-connecting-ip') : null;
    if (address) client = { address };
  }
  // Deno aborts a request's signal after a successful answer too: only an abort before the answer
  // is complete means the client went away.
  if (adapter !== undefined) {
    platform = adapter.platform;
    waitUntil = adapter.waitUntil;
  }
  let complete = false;
  const signal = web.signal;
  const body = web.body === null ? null : new BodyReader(web.body);
  const request = requestFrom({
    method: web.method,
    url,
    headers,
    body,
    hasBody: body !== null,
    client,
    platform,
    waitUntil,
    onDisconnect: (abort) => {
      if (signal.aborted) abort(signal.reason);
      else signal.addEventListener('abort', () => !complete && abort(signal.reason), { once: true });
    },
    bodyLimit: app.limits.bodyLimit,
  });
  const out = await answer(app, request);
  // A small body the answer never read (an early 413, a 404) is read and dropped first, as node:http
  // does: a runtime that closes the connection with request bytes unread resets it, and a client
  // still sending them sees the reset instead of the answer.
  if (body !== null && !body.done) await body.dropRest(!(Number(headers['content-length']) > SMALL_BODY));
  const webHeaders = new Headers();
  for (let i = 0; i < out.headers.length; i += 2) webHeaders.append(String(out.headers[i]), String(out.headers[i + 1]));
  let content: BodyInit | null;
  if (out.stream !== undefined) content = toWebStream(out.stream, () => (complete = true));
  else {
    complete = true;
    content = out.body as BodyInit | null;
  }
  return new globalThis.Response(content, { status: out.status, headers: webHeaders });
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
