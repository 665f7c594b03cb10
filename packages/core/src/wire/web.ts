import { DEFERRED } from '../deferred.js';
import type { RawHeaders } from '../headers.js';
import type { Runtime } from '../runtime-contract.js';
import { afterAnswer, answer } from './answer.js';
import { type RequestParts, requestFrom } from './request-from.js';
import { type Serialized, toWebStream } from './serialize.js';

/** The parts of a Web-standard `Request` (fetch, Netlify v2, Workers): its body is read on first use. */
export function webParts(web: globalThis.Request, bodyLimit: number): RequestParts {
  const headers: RawHeaders = {};
  web.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { method: web.method, url: new URL(web.url), headers, body: web.body, hasBody: web.body !== null, signal: web.signal, bodyLimit };
}

/**
 * A written answer as a Web-standard `Response`; a stream is pulled as the reader reads, and `onEnd`
 * runs once it has ended (or the reader went away).
 */
export function toWebResponse(out: Serialized, onEnd?: () => void): globalThis.Response {
  const headers = new Headers();
  for (let i = 0; i < out.headers.length; i += 2) headers.append(String(out.headers[i]), String(out.headers[i + 1]));
  const body: BodyInit | null = out.stream !== undefined ? toWebStream(out.stream, onEnd) : (out.body as BodyInit | null);
  return new globalThis.Response(body, { status: out.status, headers });
}

/**
 * Answers a Web `Request` through the runtime; the request's deferred work starts once the answer is
 * out (for a stream, once it has ended), handed to the platform's `waitUntil` where it has one.
 */
export async function answerWeb(
  runtime: Runtime,
  web: globalThis.Request,
  waitUntil?: (promise: Promise<unknown>) => void,
): Promise<globalThis.Response> {
  const parts = webParts(web, runtime.limits.bodyLimit);
  if (waitUntil !== undefined) parts.waitUntil = waitUntil;
  const request = requestFrom(parts);
  const out = await answer(runtime, request);
  if (out.stream === undefined) {
    afterAnswer(runtime, request);
    return toWebResponse(out);
  }
  return toWebResponse(out, request[DEFERRED] === undefined ? undefined : () => void afterAnswer(runtime, request));
}
