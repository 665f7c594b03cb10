import { Request, type RequestInit } from '../http/request.js';

/**
 * What any transport knows of a request; `requestFrom` builds the one fnapi `Request` from it. The
 * hooks (`body` as a reader, `headerValue`, `onDisconnect`, …) may be methods of a transport's own
 * parts object: they are called on it, and only when first needed.
 */
export interface RequestParts extends RequestInit {
  /** The full URL (path, query and protocol are taken from it), or give `path` and `query`. */
  url?: string | URL;
  /** Lower-case names. A `host` is added from `url` when missing. */
  headers: RequestInit['headers'] & {};
  /** Aborts `request.signal` when the client goes away. */
  signal?: AbortSignal;
  bodyLimit: number;
}

/**
 * The one way to build a request from a transport's parts: no subclass per platform. Parts that give
 * `path` and no `signal` (node:http's) are used as they are, without a copy.
 */
export function requestFrom(parts: RequestParts): Request {
  if (parts.url === undefined && parts.signal === undefined) return new Request(parts);
  const init: RequestInit = { ...parts };
  if (parts.url !== undefined) {
    const url = typeof parts.url === 'string' ? new URL(parts.url) : parts.url;
    init.path = url.pathname;
    init.query = url.search.length > 1 ? url.search.slice(1) : '';
    init.protocol ??= url.protocol === 'https:' ? 'https' : 'http';
    if (parts.headers.host === undefined) parts.headers.host = url.host;
  }
  const signal = parts.signal;
  if (signal !== undefined && init.onDisconnect === undefined) {
    init.onDisconnect = (abort) => {
      if (signal.aborted) abort(signal.reason);
      else signal.addEventListener('abort', () => abort(signal.reason), { once: true });
    };
  }
  return new Request(init);
}
