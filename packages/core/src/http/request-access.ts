import type { Request } from './request.js';

// Core's own access to a request's private members (the binder, uploads, transports): not published,
// so apps see only the documented members. Element access is how TypeScript lets a module reach them.

/** One header's value by lower-case name (repeats joined), without building every header where the transport can. */
export function headerValueOf(request: Request, name: string): string | undefined {
  // biome-ignore lint/complexity/useLiteralKeys: a private member, reached by element access
  return request['headerValue'](name);
}

/**
 * The raw body handed to `done(error, bytes)` once read (`bytes` undefined when reading failed),
 * without a promise where the transport reads with a callback.
 */
export function readBytesOf(request: Request, done: (error: unknown, bytes: Uint8Array | undefined) => void): void {
  // biome-ignore lint/complexity/useLiteralKeys: a private member, reached by element access
  request['readBytes'](done);
}

/** Parses the body bytes as JSON once; later `json()` calls get the same value. */
export function parseJsonOf(request: Request, bytes: Uint8Array): unknown {
  // biome-ignore lint/complexity/useLiteralKeys: a private member, reached by element access
  return request['parseJson'](bytes);
}

/** The body as it arrives, unbuffered and without `bodyLimit` (uploads enforce limits of their own). */
export function bodyStreamOf(request: Request): AsyncIterable<Uint8Array | string> {
  // biome-ignore lint/complexity/useLiteralKeys: a private member, reached by element access
  return request['bodyStream']();
}

/** Stops reading a body refused part-way (413): the rest is discarded, the connection not reused. */
export function discardBodyOf(request: Request): void {
  // biome-ignore lint/complexity/useLiteralKeys: a private member, reached by element access
  request['discardBody']();
}

/** Runs `fn` once the answer has been sent or the client has gone; false when the transport cannot tell. */
export function onRequestFinished(request: Request, fn: () => void): boolean {
  // biome-ignore lint/complexity/useLiteralKeys: a private member, reached by element access
  return request['onFinished'](fn);
}

/** The host the request names (`Host`, or a trusted proxy's `X-Forwarded-Host`); undefined when it is not a valid host. */
export function authorityOf(request: Request): string | undefined {
  // biome-ignore lint/complexity/useLiteralKeys: a private member, reached by element access
  return request['authority']();
}
