import { detectRuntime, type Platform } from '../platform/platform.js';
import type { ClientInfo } from '../http/request.js';
import type { Runtime } from '../serve/runtime-contract.js';
import { answerWeb } from '../wire/web.js';
import { asksForWebSocket } from '../ws/endpoint.js';
import { fetchUpgrade } from '../ws/fetch.js';

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
 * become `request.platform.ctx` (Bun's server also upgrades WebSockets).
 */
export function handleFetch(app: Runtime, web: globalThis.Request, env?: unknown, ctx?: unknown): Promise<globalThis.Response> {
  // WebSocket upgrades through the runtime's own API (Bun's server, Deno, Workers' WebSocketPair).
  if (app.hasWebSockets && asksForWebSocket(web.headers.get('upgrade'))) return fetchUpgrade(app, web, env);
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
  return answerWeb(app, web, { platform, client, waitUntil });
}
