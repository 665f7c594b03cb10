import type { RawHeaders } from '../headers.js';
import type { RequestParts } from './request-from.js';
import { type Serialized, toWebStream } from './serialize.js';

/** The parts of a Web-standard `Request` (fetch, Netlify v2, Workers): its body is read on first use. */
export function webParts(web: globalThis.Request, bodyLimit: number): RequestParts {
  const headers: RawHeaders = {};
  web.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { method: web.method, url: new URL(web.url), headers, body: web.body, hasBody: web.body !== null, signal: web.signal, bodyLimit };
}

/** A written answer as a Web-standard `Response`; a stream is pulled as the reader reads. */
export function toWebResponse(out: Serialized): globalThis.Response {
  const headers = new Headers();
  for (let i = 0; i < out.headers.length; i += 2) headers.append(String(out.headers[i]), String(out.headers[i + 1]));
  const body: BodyInit | null = out.stream !== undefined ? toWebStream(out.stream) : (out.body as BodyInit | null);
  return new globalThis.Response(body, { status: out.status, headers });
}
