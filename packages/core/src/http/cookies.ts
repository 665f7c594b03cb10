import { type SerializeOptions, serialize } from 'cookie';
import { type Duration, durationSeconds } from '@fnapi/validation';
import type { ResponseHeaders } from './headers.js';

/** Options of `setCookie` and `deleteCookie` (on a request or a response). */
export interface CookieOptions {
  /** Seconds (or a string with a unit, `'30d'`) until the cookie expires; any length. */
  maxAge?: Duration;
  expires?: Date;
  /** Default `/`. */
  path?: string;
  domain?: string;
  /** Default: true when the request's URL is https (on a response: false). */
  secure?: boolean;
  /** Default true. */
  httpOnly?: boolean;
  /** Default `lax`. */
  sameSite?: 'lax' | 'strict' | 'none' | boolean;
  partitioned?: boolean;
}

/**
 * One `Set-Cookie` value, checked and encoded by the `cookie` library: an invalid name, path or
 * domain throws (a server bug, so a 500); the value is percent-encoded.
 */
export function cookieLine(name: string, value: string, options: CookieOptions | undefined, secureDefault: boolean): string {
  const o = options ?? {};
  const serializeOptions: SerializeOptions = {
    path: o.path ?? '/',
    httpOnly: o.httpOnly ?? true,
    sameSite: o.sameSite ?? 'lax',
    secure: o.secure ?? secureDefault,
  };
  if (o.maxAge !== undefined)
    serializeOptions.maxAge = typeof o.maxAge === 'number' ? o.maxAge : Math.floor(durationSeconds('maxAge', o.maxAge));
  if (o.expires !== undefined) serializeOptions.expires = o.expires;
  if (o.domain !== undefined) serializeOptions.domain = o.domain;
  if (o.partitioned !== undefined) serializeOptions.partitioned = o.partitioned;
  return serialize(name, String(value), serializeOptions);
}

/** A `Set-Cookie` value that expires the cookie at once (same name, path and domain). */
export function expiredCookieLine(name: string, options: CookieOptions | undefined, secureDefault: boolean): string {
  return cookieLine(name, '', { ...options, maxAge: 0, expires: new Date(0) }, secureDefault);
}

/**
 * Merges what a handler set on its request (`request.responseHeaders`, `setCookie`) into its answer:
 * the headers the answer already has win, except `Set-Cookie`, which is appended.
 */
export function mergeResponseHeaders(target: ResponseHeaders, extra: Headers): void {
  extra.forEach((value, name) => {
    if (name === 'set-cookie') return;
    if (!target.has(name)) target.set(name, value);
  });
  for (const line of extra.getSetCookie()) target.append('set-cookie', line);
}
