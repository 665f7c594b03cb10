import type { RawHeaders } from '../headers.js';
import { detectRuntime, type Platform } from '../platform.js';
import type { ClientInfo } from '../request.js';
import type { Runtime } from '../runtime-contract.js';
import { answer } from '../wire/answer.js';
import { requestFrom } from '../wire/request-from.js';
import { toWebStream } from '../wire/serialize.js';

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
  const request = requestFrom({
    method: web.method,
    url,
    headers,
    body: web.body,
    hasBody: web.body !== null,
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
  const webHeaders = new Headers();
  for (let i = 0; i < out.headers.length; i += 2) webHeaders.append(String(out.headers[i]), String(out.headers[i + 1]));
  let body: BodyInit | null;
  if (out.stream !== undefined) body = toWebStream(out.stream, () => (complete = true));
  else {
    complete = true;
    body = out.body as BodyInit | null;
  }
  return new globalThis.Response(body, { status: out.status, headers: webHeaders });
}
