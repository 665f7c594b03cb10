// A platform event's pieces turned into the parts of a request.

/** Removes `prefix` from the front of `path` when the path is the prefix or continues it with `/`. */
export function stripPrefix(path: string, prefix: string | undefined): string {
  if (!prefix || prefix === '/') return path;
  const normalized = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
  if (path === normalized) return '/';
  if (path.startsWith(normalized) && path.charCodeAt(normalized.length) === 47 /* / */) return path.slice(normalized.length);
  return path;
}

/**
 * A path as it goes on the wire. Platforms hand over decoded paths (a space, `ü`); characters that
 * may not appear in a path are percent-encoded again, while `%XX` escapes already there are kept.
 */
export function toWirePath(path: string): string {
  if (path === '') return '/';
  if (!/[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]|%(?![0-9A-Fa-f]{2})/.test(path)) return path;
  return path.replace(/%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]+/g, (part) => encodeURIComponent(part));
}

/** A query string from decoded `name → value(s)` maps (API Gateway decodes the ones it delivers). */
export function encodeQuery(params: Record<string, string | string[] | undefined> | null | undefined): string {
  if (!params) return '';
  const parts: string[] = [];
  for (const name in params) {
    const value = params[name];
    if (value === undefined) continue;
    const key = encodeURIComponent(name);
    if (Array.isArray(value)) for (const item of value) parts.push(`${key}=${encodeURIComponent(item)}`);
    else parts.push(`${key}=${encodeURIComponent(value)}`);
  }
  return parts.join('&');
}

/** A query string from `name → value(s)` maps whose names and values are still percent-encoded (ALB). */
export function joinRawQuery(params: Record<string, string | string[] | undefined> | null | undefined): string {
  if (!params) return '';
  const parts: string[] = [];
  for (const name in params) {
    const value = params[name];
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) parts.push(`${name}=${item}`);
    else parts.push(`${name}=${value}`);
  }
  return parts.join('&');
}

/**
 * Request headers from a platform's single- and multi-value maps, with lower-case names. The
 * multi-value map wins where both are present (it holds every value).
 */
export function lowerCaseHeaders(
  single: Record<string, string | undefined> | null | undefined,
  multi?: Record<string, string[] | undefined> | null,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  if (multi) {
    for (const name in multi) {
      const values = multi[name];
      if (values === undefined || values.length === 0) continue;
      const key = name.toLowerCase();
      out[key] = joinRequestHeader(key, out[key], values);
    }
  }
  if (single) {
    for (const name in single) {
      const value = single[name];
      const key = name.toLowerCase();
      if (value === undefined || (multi && out[key] !== undefined)) continue;
      out[key] = joinRequestHeader(key, out[key], [value]);
    }
  }
  return out;
}

function joinRequestHeader(name: string, current: string | string[] | undefined, values: string[]): string | string[] {
  const all = current === undefined ? values : [...(Array.isArray(current) ? current : [current]), ...values];
  if (name === 'set-cookie') return all;
  if (all.length === 1) return all[0];
  return all.join(name === 'cookie' ? '; ' : ', ');
}

export function decodeBody(body: string | null | undefined, base64: boolean | undefined): Uint8Array | undefined {
  if (body === null || body === undefined || body === '') return undefined;
  return base64 ? Buffer.from(body, 'base64') : Buffer.from(body, 'utf8');
}

export function protocolOf(headers: Record<string, string | string[]>, fallback: 'http' | 'https'): 'http' | 'https' {
  const forwarded = headers['x-forwarded-proto'];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim().toLowerCase();
  return first === 'http' || first === 'https' ? first : fallback;
}
