import { collectBody } from '../wire/collect-body.js';
import type { RawHeaders } from '../headers.js';
import { Request } from '../request.js';
import type { Runtime } from '../runtime-contract.js';
import { answer } from '../wire/answer.js';
import { toWebStream } from '../wire/serialize.js';

/** A Web `Request` seen as an fnapi request; its body is streamed in on first use. */
class FetchRequest extends Request {
  constructor(
    private readonly web: globalThis.Request,
    url: URL,
    headers: RawHeaders,
    bodyLimit: number,
  ) {
    super({
      method: web.method,
      path: url.pathname,
      query: url.search.length > 1 ? url.search.slice(1) : '',
      headers,
      protocol: url.protocol === 'https:' ? 'https' : 'http',
      bodyLimit,
    });
  }
  protected override async readBody(limit: number): Promise<Uint8Array> {
    if (this.web.body === null) return new Uint8Array(0);
    return collectBody(this.web.body as unknown as AsyncIterable<Uint8Array>, limit);
  }
  override get hasBody(): boolean {
    return this.web.body !== null;
  }
  protected override watchDisconnect(): void {
    const signal = this.web.signal;
    if (signal.aborted) this.abort(signal.reason);
    else signal.addEventListener('abort', () => this.abort(signal.reason), { once: true });
  }
}

export async function handleFetch(app: Runtime, web: globalThis.Request): Promise<globalThis.Response> {
  const url = new URL(web.url);
  const headers: RawHeaders = {};
  web.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (headers.host === undefined) headers.host = url.host;
  const request = new FetchRequest(web, url, headers, app.limits.bodyLimit);
  const out = await answer(app, request);
  const webHeaders = new Headers();
  for (let i = 0; i < out.headers.length; i += 2) webHeaders.append(String(out.headers[i]), String(out.headers[i + 1]));
  const body: BodyInit | null = out.stream !== undefined ? toWebStream(out.stream) : (out.body as BodyInit | null);
  return new globalThis.Response(body, { status: out.status, headers: webHeaders });
}
