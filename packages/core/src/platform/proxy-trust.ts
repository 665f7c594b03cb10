import type ProxyAddr from 'proxy-addr';
import { normalizeAddress } from './address.js';
import { builtin } from './platform.js';

/**
 * Which proxies are believed: `false` none (default), `true` every hop, a number that many hops
 * nearest the server, or addresses and CIDR ranges (also proxy-addr's `loopback`, `linklocal`,
 * `uniquelocal`), as an array or a comma-separated string.
 */
export type TrustProxy = boolean | number | string | readonly string[];

/** Decides whether the hop at `index` (0 = the peer) with address `address` is a trusted proxy. */
export type TrustFunction = (address: string | undefined, index: number) => boolean;

/** The app's request-edge settings, handed to each request by the runtime. Internal. */
export interface EdgeSettings {
  /** Lower-case header the incoming request id is read from; undefined never trusts one. */
  readonly requestIdHeader: string | undefined;
  /** undefined when no proxy is trusted. */
  readonly trust: TrustFunction | undefined;
}

/** Builds the trust function once, when the app is built (a bad address throws there, not per request). */
export function compileTrust(option: TrustProxy | undefined): TrustFunction | undefined {
  if (option === undefined || option === false) return undefined;
  if (option === true) return () => true;
  if (typeof option === 'number') {
    if (!Number.isInteger(option) || option < 0) throw new RangeError(`trustProxy must be a whole number of hops, got ${option}`);
    return (_address, index) => index < option;
  }
  const list = typeof option === 'string' ? option.split(',').map((item) => item.trim()) : [...option];
  // proxy-addr (and its IP parser) is loaded only by an app that trusts addresses: required here,
  // synchronously, when the app is built; `require` is the bundler's, or unbundled one of our own.
  const proxyaddr = (
    typeof require === 'function' ? require('proxy-addr') : builtin('node:module').createRequire(import.meta.url)('proxy-addr')
  ) as typeof ProxyAddr;
  const compiled = proxyaddr.compile(list.filter((item) => item !== ''));
  return (address, index) => address !== undefined && compiled(address, index);
}

export function edgeSettings(requestIdHeader: string | false | undefined, trustProxy: TrustProxy | undefined): EdgeSettings {
  return {
    requestIdHeader: requestIdHeader === false ? undefined : (requestIdHeader ?? 'x-request-id').toLowerCase(),
    trust: compileTrust(trustProxy),
  };
}

export const DEFAULT_EDGE: EdgeSettings = { requestIdHeader: 'x-request-id', trust: undefined };

// One random prefix per process and a counter: unique across instances and workers (36 random bits:
// Fastify's genReqId is a bare counter; a UUID costs more). The prefix only has to differ between
// processes, not be secret: Math.random (seeded per isolate from the OS) spares loading node:crypto
// with core. An id is the prefix and the counter in base 36: its last two digits come from a table
// and the rest is joined once per 1,296 ids, so an id costs one concatenation and no number
// formatting. Fixed-length prefix and suffix keep the ids of a process distinct.
const PREFIX = Math.floor(Math.random() * 36 ** 7)
  .toString(36)
  .padStart(7, '0');
/** 36 ** 2: the two last digits' values. */
const LOW_VALUES = 1296;
/** The last two digits as text, made with the first id (not when core is loaded). */
let lastDigits: string[] = [];
let high = -1;
let low = LOW_VALUES - 1;
let head = '';
/** V8 keeps a concatenation of 13 or more characters as a rope (see `generateRequestId`). */
let rope = false;

export function generateRequestId(): string {
  if (++low === LOW_VALUES) {
    low = 0;
    if (lastDigits.length === 0) lastDigits = Array.from({ length: LOW_VALUES }, (_, n) => n.toString(36).padStart(2, '0'));
    high = (high + 1) % Number.MAX_SAFE_INTEGER;
    head = `${PREFIX}${high.toString(36)}`;
    rope = head.length + 2 >= 13;
  }
  // Up to 12 characters (the first 60 million ids) the joined text is one flat string. Past that it
  // is flattened here: node:http tests every header value with a regular expression, which on a rope
  // takes V8's slow path (about a thousand instructions more); `trim()` (there is nothing to trim)
  // hands back the text flat.
  const id = head + lastDigits[low]!;
  return rope ? id.trim() : id;
}

/** 1–128 visible ASCII characters: anything else (empty, too long, spaces, control bytes) is replaced. */
export function isValidRequestId(value: string): boolean {
  const length = value.length;
  if (length === 0 || length > 128) return false;
  for (let i = 0; i < length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x21 || code > 0x7e) return false;
  }
  return true;
}

/**
 * The client address as proxy-addr finds it: walking `X-Forwarded-For` from the peer outwards, the
 * first address not trusted (or the furthest one when all are). Entries are split on commas, with
 * spaces around them dropped, and empty ones skipped, as the `forwarded` package parses them; each is
 * read in canonical form (`normalizeAddress`), and one that is no address ends the walk.
 */
export function forwardedAddress(peer: string | undefined, forwardedFor: string | undefined, trust: TrustFunction): string | undefined {
  if (forwardedFor === undefined || forwardedFor === '') return peer;
  let address = peer;
  let index = 0;
  let end = forwardedFor.length;
  while (end > 0) {
    const comma = forwardedFor.lastIndexOf(',', end - 1);
    let from = comma + 1;
    let to = end;
    end = comma === -1 ? 0 : comma;
    while (from < to && forwardedFor.charCodeAt(from) === 0x20) from++;
    while (to > from && forwardedFor.charCodeAt(to - 1) === 0x20) to--;
    if (from === to) continue;
    // Only an address with a further hop behind it is asked about; the furthest one is the answer.
    if (!trust(address, index)) return address;
    // An entry that is no address (`not-an-ip`) is skipped for the nearest one that is; a port or
    // another spelling of the same address (`::ffff:…`, leading zeros) is the address itself.
    const entry = normalizeAddress(forwardedFor.slice(from, to));
    if (entry === undefined) return address;
    address = entry;
    index++;
  }
  return address;
}

/** The last entry of a comma-separated forwarded header: the one the trusted proxy nearest us wrote. */
export function lastEntry(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const comma = value.lastIndexOf(',');
  const entry = (comma === -1 ? value : value.slice(comma + 1)).trim();
  return entry === '' ? undefined : entry;
}
