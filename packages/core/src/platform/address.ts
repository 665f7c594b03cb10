/**
 * IP addresses as text, in one canonical form: what a rate limit counts by and what `request.ip`
 * reports from `X-Forwarded-For`. No Node module: it runs on every runtime.
 */

/** Dotted decimal, each part 0–255; leading zeros are read as decimal (`198.051.100.007` is 198.51.100.7). */
function ipv4(text: string): string | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const out: number[] = [];
  for (const part of parts) {
    if (!/^[0-9]{1,3}$/.test(part)) return undefined;
    const value = Number(part);
    if (value > 255) return undefined;
    out.push(value);
  }
  return out.join('.');
}

/** The 8 groups of an IPv6 address (an embedded IPv4 tail included), or undefined. */
function ipv6Groups(text: string): number[] | undefined {
  let body = text;
  const zone = body.indexOf('%');
  if (zone !== -1) body = body.slice(0, zone);
  if (!/^[0-9a-fA-F:.]+$/.test(body) || !body.includes(':')) return undefined;
  let tail: number[] = [];
  const lastColon = body.lastIndexOf(':');
  if (body.includes('.')) {
    const v4 = ipv4(body.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
    tail = [(a << 8) | b, (c << 8) | d];
    const prefix = body.slice(0, lastColon + 1);
    body = prefix.endsWith('::') ? prefix : prefix.slice(0, -1);
  }
  const halves = body.split('::');
  if (halves.length > 2) return undefined;
  const read = (half: string): number[] | undefined => {
    if (half === '') return [];
    const groups: number[] = [];
    for (const group of half.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return undefined;
      groups.push(Number.parseInt(group, 16));
    }
    return groups;
  };
  const head = read(halves[0]!);
  const rest = halves.length === 2 ? read(halves[1]!) : [];
  if (head === undefined || rest === undefined) return undefined;
  const known = head.length + rest.length + tail.length;
  if (halves.length === 1 ? known !== 8 : known > 7) return undefined;
  return [...head, ...new Array<number>(8 - known).fill(0), ...rest, ...tail];
}

/** RFC 5952 text: lower case, the longest run of two or more zero groups as `::`. */
function ipv6Text(groups: readonly number[]): string {
  let best = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      best = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best === -1) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLength).join(':')}`;
}

/**
 * An address in canonical form, or undefined when the text is not one: a port (`198.51.100.7:1234`,
 * `[2001:db8::1]:443`) and brackets are dropped, IPv4 parts are read as decimal, IPv6 is written as
 * RFC 5952 says, and an IPv4-mapped IPv6 address (`::ffff:198.51.100.7`) is its IPv4 address.
 */
export function normalizeAddress(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  let value = text.trim();
  if (value.startsWith('[')) {
    const close = value.indexOf(']');
    if (close === -1) return undefined;
    const after = value.slice(close + 1);
    if (after !== '' && !/^:[0-9]{1,5}$/.test(after)) return undefined;
    value = value.slice(1, close);
  } else if (/^[0-9.]+:[0-9]{1,5}$/.test(value)) {
    value = value.slice(0, value.indexOf(':'));
  }
  const v4 = ipv4(value);
  if (v4 !== undefined) return v4;
  const groups = ipv6Groups(value);
  if (groups === undefined) return undefined;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  }
  return ipv6Text(groups);
}

/**
 * The key a client is counted by: its canonical address, an IPv6 one by its network of `ipv6Subnet`
 * bits (`2001:db8:1:2::/64`: one host holds a whole /64), the text as it is when it is no address.
 */
export function addressKey(text: string | undefined, ipv6Subnet = 64): string | undefined {
  const address = normalizeAddress(text);
  if (address === undefined) return text;
  if (!address.includes(':') || ipv6Subnet >= 128) return address;
  const groups = ipv6Groups(address)!;
  const bits = Math.max(0, Math.min(128, Math.floor(ipv6Subnet)));
  const masked = groups.map((group, i) => {
    const keep = Math.max(0, Math.min(16, bits - i * 16));
    return keep === 0 ? 0 : group & (0xffff << (16 - keep)) & 0xffff;
  });
  return `${ipv6Text(masked)}/${bits}`;
}
