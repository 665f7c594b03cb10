import type { RawHeaders } from '../headers.js';
import type { Platform } from '../platform.js';
import { type ClientInfo, Request } from '../request.js';

/** What any transport knows of a request; `requestFrom` builds the one fnapi `Request` from it. */
export interface RequestParts {
  method: string;
  /** The full URL (path, query and protocol are taken from it), or give `path` and `query`. */
  url?: string | URL;
  /** Path as sent (percent-encoded), without the query. */
  path?: string;
  /** Query string without the leading `?`. */
  query?: string;
  /** Lower-case names. A `host` is added from `url` when missing. */
  headers: RawHeaders;
  /**
   * The body: bytes or text already read, a stream of chunks (a Web `ReadableStream` or any async
   * iterable, read on first use with the limit), a reader given the limit, or null for none.
   */
  body?:
    | Uint8Array
    | string
    | null
    | AsyncIterable<Uint8Array | string>
    | ReadableStream<Uint8Array>
    | ((limit: number) => Promise<Uint8Array>);
  /** Whether a body comes, when the headers cannot say (a stream without Content-Length). */
  hasBody?: boolean;
  client?: ClientInfo;
  protocol?: 'http' | 'https';
  /** Aborts `request.signal` when the client goes away. */
  signal?: AbortSignal;
  /** Called once, on first use of `request.signal`, with the function that aborts it. */
  onDisconnect?: (abort: (reason: unknown) => void) => void;
  bodyLimit: number;
  /** The platform's id for the request (e.g. API Gateway's), used as `request.id` when none came in. */
  id?: string;
  /** `request.platform` (runtime, env, ctx); default: the runtime this process is. */
  platform?: Platform;
  /** The platform's `waitUntil`, which `request.waitUntil` hands work to; without it the work is kept for a drain. */
  waitUntil?: (promise: Promise<unknown>) => void;
}

/** The one way to build a request from a transport's parts: no subclass per platform. */
export function requestFrom(parts: RequestParts): Request {
  let path = parts.path ?? '/';
  let query = parts.query ?? '';
  let protocol = parts.protocol;
  const headers = parts.headers;
  if (parts.url !== undefined) {
    const url = typeof parts.url === 'string' ? new URL(parts.url) : parts.url;
    path = url.pathname;
    query = url.search.length > 1 ? url.search.slice(1) : '';
    protocol ??= url.protocol === 'https:' ? 'https' : 'http';
    if (headers.host === undefined) headers.host = url.host;
  }
  const body = parts.body;
  const buffered = body === null || body === undefined || typeof body === 'string' || body instanceof Uint8Array;
  const signal = parts.signal;
  return new Request({
    method: parts.method,
    path,
    query,
    headers,
    body: buffered ? body : undefined,
    bodySource: buffered ? undefined : (body as AsyncIterable<Uint8Array> | ((limit: number) => Promise<Uint8Array>)),
    hasBody: parts.hasBody,
    client: parts.client,
    protocol,
    bodyLimit: parts.bodyLimit,
    id: parts.id,
    platform: parts.platform,
    waitUntil: parts.waitUntil,
    onDisconnect:
      parts.onDisconnect ??
      (signal === undefined
        ? undefined
        : (abort) => {
            if (signal.aborted) abort(signal.reason);
            else signal.addEventListener('abort', () => abort(signal.reason), { once: true });
          }),
  });
}
