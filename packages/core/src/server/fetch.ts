import type { RawHeaders } from '../headers.js';
import type { Runtime } from '../runtime-contract.js';
import { answer } from '../wire/answer.js';
import { requestFrom } from '../wire/request-from.js';
import { toWebStream } from '../wire/serialize.js';
import { asksForWebSocket } from '../ws/endpoint.js';
import { fetchUpgrade } from '../ws/fetch.js';

export async function handleFetch(app: Runtime, web: globalThis.Request, platform?: unknown): Promise<globalThis.Response> {
  // WebSocket upgrades through the runtime's own API (Bun's server, Deno, Workers' WebSocketPair).
  if (app.hasWebSockets && asksForWebSocket(web.headers.get('upgrade'))) return fetchUpgrade(app, web, platform);
  const url = new URL(web.url);
  const headers: RawHeaders = {};
  web.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const request = requestFrom({
    method: web.method,
    url,
    headers,
    body: web.body,
    hasBody: web.body !== null,
    signal: web.signal,
    bodyLimit: app.limits.bodyLimit,
  });
  const out = await answer(app, request);
  const webHeaders = new Headers();
  for (let i = 0; i < out.headers.length; i += 2) webHeaders.append(String(out.headers[i]), String(out.headers[i + 1]));
  const body: BodyInit | null = out.stream !== undefined ? toWebStream(out.stream) : (out.body as BodyInit | null);
  return new globalThis.Response(body, { status: out.status, headers: webHeaders });
}
