import { randomBytes } from 'node:crypto';
import proxyaddr from 'proxy-addr';

/**
 * Which proxies are believed: `false` none (default), `true` every hop, a number that many hops
 * nearest the server, or addresses and CIDR ranges (also proxy-addr's `loopback`, `linklocal`,
 * `uniquelocal`), as an array or a comma-separated string.
 */
export type TrustProxy = boolean | number | string | readonly string[];

/** Decides whether the hop at `index` (0 = the peer) with address `address` is a trusted proxy. */
export type TrustFunction = (address: string | undefined, index: number) => boolean;

/** Where the runtime puts a request's edge settings: a symbol, so apps neither see nor set them. */
export const REQUEST_EDGE: unique symbol = Symbol('fnapi.requestEdge');

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

// One random prefix per process and a counter: unique across instances and workers, and costs a
// string concatenation per request (Fastify's genReqId is a bare counter; a UUID costs more).
const PREFIX = randomBytes(6).toString('base64url');
let counter = 0;

export function generateRequestId(): string {
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
  return `${PREFIX}-${counter.toString(36)}`;
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
 * The client address by proxy-addr: walking `X-Forwarded-For` from the peer outwards, the first
 * address not trusted (or the furthest one when all are).
 */
export function forwardedAddress(peer: string | undefined, forwardedFor: string | undefined, trust: TrustFunction): string | undefined {
  if (forwardedFor === undefined || forwardedFor === '') return peer;
  const req = { headers: { 'x-forwarded-for': forwardedFor }, socket: { remoteAddress: peer } };
  return proxyaddr(req as never, trust as (address: string, index: number) => boolean);
}

/** The last entry of a comma-separated forwarded header: the one the trusted proxy nearest us wrote. */
export function lastEntry(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const comma = value.lastIndexOf(',');
  const entry = (comma === -1 ? value : value.slice(comma + 1)).trim();
  return entry === '' ? undefined : entry;
}
