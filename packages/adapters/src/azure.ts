import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { parseString as parseSetCookie } from 'set-cookie-parser';
import { headerPairs, singleValueHeaders } from './platform-result.js';
import { afterAnswer, answer, requestFrom, type Runtime, toChunk, toWebStream, runtimeOf, type Servable } from '@fnapi/core/transport';

// The shapes of `@azure/functions` v4 the adapter reads and writes (structural, so that the package
// is not a dependency of apps that deploy elsewhere).

/** `HttpRequest` of `@azure/functions` v4, as far as the adapter reads it. */
export interface AzureHttpRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: { forEach(callback: (value: string, name: string) => void): void };
  readonly body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | null;
}

/** `Cookie` of `@azure/functions` v4. */
export interface AzureCookie {
  name: string;
  value: string;
  domain?: string;
  path?: string;
  expires?: Date | number;
  secure?: boolean;
  httpOnly?: boolean;
  sameSite?: 'Strict' | 'Lax' | 'None';
  maxAge?: number;
}

/** `HttpResponseInit` of `@azure/functions` v4. */
export interface AzureHttpResponseInit {
  status: number;
  headers: Record<string, string>;
  cookies?: AzureCookie[];
  body?: Uint8Array | NodeReadableStream<Uint8Array>;
}

/** What a handler finds in `request.state.platform` when it is served through Azure Functions. */
export interface AzurePlatform {
  name: 'azure';
  request: AzureHttpRequest;
  context: unknown;
}

/** The parts of an Azure request; the host's `routePrefix` (`/api` by default) stays in the path. */
function azureRequest(source: AzureHttpRequest, bodyLimit: number, context: unknown) {
  const headers: Record<string, string> = {};
  source.headers.forEach((value, name) => {
    headers[name.toLowerCase()] = value;
  });
  return requestFrom({
    method: source.method,
    url: source.url,
    headers,
    body: source.body,
    hasBody: source.body !== null,
    client: { address: headers['x-forwarded-for']?.split(',')[0]?.trim() || undefined },
    platform: { runtime: 'azure', ctx: context },
    bodyLimit,
  });
}

/**
 * Serves an app as an Azure Function (programming model v4):
 * `app.http('api', { route: '{*path}', methods: [...], handler: adapter.handle })`. Cookies travel in
 * `cookies` (the host writes each as its own Set-Cookie); a streamed body is handed on as a stream.
 */
export class AzureFunctionAdapter {
  private readonly app: Runtime;

  constructor(app: Servable) {
    this.app = runtimeOf(app);
  }

  /** The HTTP handler (bound: it can be passed on as it is). */
  handle = async (request: AzureHttpRequest, context?: unknown): Promise<AzureHttpResponseInit> => {
    const fnapiRequest = azureRequest(request, this.app.limits.bodyLimit, context);
    fnapiRequest.state.platform = { name: 'azure', request, context } satisfies AzurePlatform;
    const out = await answer(this.app, fnapiRequest);
    const pairs = headerPairs(out);
    const init: AzureHttpResponseInit = { status: out.status, headers: singleValueHeaders(pairs) };
    const cookies: AzureCookie[] = [];
    for (const [name, value] of pairs) {
      if (name !== 'set-cookie') continue;
      const cookie = toAzureCookie(value);
      if (cookie !== undefined) cookies.push(cookie);
      else this.app.logger.warn({ header: value }, 'Set-Cookie header without a name=value pair was dropped');
    }
    if (cookies.length > 0) init.cookies = cookies;
    if (out.stream !== undefined) {
      // The host reads the stream after the handler returns; deferred work starts at its end.
      init.body = toWebStream(out.stream, () => afterAnswer(fnapiRequest)) as unknown as NodeReadableStream<Uint8Array>;
    } else {
      if (out.body !== null) init.body = toChunk(out.body);
      // The host may freeze the worker once the handler returns: deferred work runs before that.
      await afterAnswer(fnapiRequest);
    }
    return init;
  };
}

/** A Set-Cookie header as the host's cookie object (attributes it has no field for are dropped). */
export function toAzureCookie(header: string): AzureCookie | undefined {
  const parsed = parseSetCookie(header, { decodeValues: false });
  if (parsed === null) return undefined;
  const cookie: AzureCookie = { name: parsed.name, value: parsed.value };
  if (parsed.domain !== undefined) cookie.domain = parsed.domain;
  if (parsed.path !== undefined) cookie.path = parsed.path;
  if (parsed.expires !== undefined) cookie.expires = parsed.expires;
  if (parsed.maxAge !== undefined) cookie.maxAge = parsed.maxAge;
  if (parsed.secure) cookie.secure = true;
  if (parsed.httpOnly) cookie.httpOnly = true;
  const sameSite = parsed.sameSite?.toLowerCase();
  if (sameSite === 'strict') cookie.sameSite = 'Strict';
  else if (sameSite === 'lax') cookie.sameSite = 'Lax';
  else if (sameSite === 'none') cookie.sameSite = 'None';
  return cookie;
}
