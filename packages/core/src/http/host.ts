// The request's host (`Host`, or with `trustProxy` the last `X-Forwarded-Host` entry), checked before
// anything builds a URL from it: a value that is not a host (`a b`, `[::1`, `x:99999`, `%`, `x?y`,
// `x/y`) is refused with 400 by routing, and `request.url` never takes its path from a header.

/** A registered name (RFC 3986 unreserved and sub-delims, no percent-escapes) or an IP literal, then an optional port. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=]+)(?::([0-9]{1,5}))?$/;

/** A name whose last label is a number is an IPv4 address to a URL parser, which refuses a bad one (`999.1.1.1`). */
const PARSED_AS_ADDRESS = /(?:^|\.)(?:[0-9]+|0[xX][0-9A-Fa-f]*)\.?$/;

/** The last host found valid: most requests on a server carry the same one. */
let lastValid = '';

/** True when `value` is a valid host, with an optional port of at most 65535. */
export function isValidHost(value: string): boolean {
  if (value === lastValid) return true;
  const m = HOST.exec(value);
  if (m === null) return false;
  if (m[1] !== undefined && Number(m[1]) > 65535) return false;
  const name = m[1] === undefined ? value : value.slice(0, value.length - m[1].length - 1);
  if (name.charCodeAt(0) === 91 /* [ */ || PARSED_AS_ADDRESS.test(name)) {
    try {
      new URL(`http://${name}`);
    } catch {
      return false;
    }
  }
  lastValid = value;
  return true;
}
