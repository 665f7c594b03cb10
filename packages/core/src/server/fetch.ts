import type { Runtime } from '../runtime-contract.js';
import { answerWeb } from '../wire/web.js';
import { asksForWebSocket } from '../ws/endpoint.js';
import { fetchUpgrade } from '../ws/fetch.js';

/**
 * `app.fetch`: a Web `Request` through the wire. `platform` is what the runtime hands beside the
 * request (Bun's server, for its WebSocket upgrade).
 */
export function handleFetch(app: Runtime, web: globalThis.Request, platform?: unknown): Promise<globalThis.Response> {
  // WebSocket upgrades through the runtime's own API (Bun's server, Deno, Workers' WebSocketPair).
  if (app.hasWebSockets && asksForWebSocket(web.headers.get('upgrade'))) return fetchUpgrade(app, web, platform);
  return answerWeb(app, web);
}
