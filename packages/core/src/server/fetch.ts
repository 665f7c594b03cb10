import type { RawHeaders } from '../headers.js';
import type { Runtime } from '../runtime-contract.js';
import { DEFERRED } from '../deferred.js';
import { afterAnswer, answer } from '../wire/answer.js';
import { requestFrom } from '../wire/request-from.js';
import { toWebStream } from '../wire/serialize.js';

/** What a platform adds to a Web request: its `waitUntil`, where it has one (Netlify's context). */
export interface FetchPlatform {
  waitUntil?: ((promise: Promise<unknown>) => void) | undefined;
}

export async function handleFetch(app: Runtime, web: globalThis.Request, platform?: FetchPlatform): Promise<globalThis.Response> {
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
    waitUntil: platform?.waitUntil,
  });
  const out = await answer(app, request);
  const webHeaders = new Headers();
  for (let i = 0; i < out.headers.length; i += 2) webHeaders.append(String(out.headers[i]), String(out.headers[i + 1]));
  let body: BodyInit | null;
  if (out.stream === undefined) {
    body = out.body as BodyInit | null;
    afterAnswer(app, request);
  } else {
    // Deferred work starts once the stream has ended (or the reader went away).
    body = toWebStream(out.stream, request[DEFERRED] === undefined ? undefined : () => afterAnswer(app, request));
  }
  return new globalThis.Response(body, { status: out.status, headers: webHeaders });
}
