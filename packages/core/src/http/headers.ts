/** Raw header values as node:http delivers them: lower-case names, `set-cookie` as an array. */
export type RawHeaders = Record<string, string | string[] | undefined>;

/** Case-insensitive, read-only view over a request's headers. */
export class RequestHeaders implements Iterable<[string, string]> {
  readonly raw: RawHeaders;
  constructor(raw: RawHeaders) {
    this.raw = raw;
  }
  get(name: string): string | null {
    const value = this.raw[name] ?? this.raw[name.toLowerCase()];
    if (value === undefined) return null;
    return typeof value === 'string' ? value : value.join(', ');
  }
  has(name: string): boolean {
    return (this.raw[name] ?? this.raw[name.toLowerCase()]) !== undefined;
  }
  *entries(): IterableIterator<[string, string]> {
    for (const name in this.raw) {
      const value = this.raw[name];
      if (value === undefined) continue;
      if (typeof value === 'string') yield [name, value];
      else for (const v of value) yield [name, v];
    }
  }
  keys(): IterableIterator<string> {
    return Object.keys(this.raw)
      .filter((k) => this.raw[k] !== undefined)
      [Symbol.iterator]();
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
  toJSON(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const name in this.raw) {
      const value = this.get(name);
      if (value !== null) out[name] = value;
    }
    return out;
  }
}

export type HeadersInit = Record<string, string | string[]> | Iterable<readonly [string, string]> | ResponseHeaders;

/** Mutable response headers. Names are case-insensitive; `set-cookie` keeps every value. */
export class ResponseHeaders implements Iterable<[string, string]> {
  /** lower-case name → value (an array only for repeated headers) */
  private map: Map<string, string | string[]> = new Map();

  constructor(init?: HeadersInit) {
    if (!init) return;
    if (init instanceof ResponseHeaders) {
      for (const [k, v] of init.map) this.map.set(k, Array.isArray(v) ? [...v] : v);
    } else if (Symbol.iterator in init) {
      for (const [k, v] of init as Iterable<readonly [string, string]>) this.append(k, v);
    } else {
      for (const k in init) {
        const v = (init as Record<string, string | string[]>)[k];
        if (Array.isArray(v)) for (const item of v) this.append(k, item);
        else if (v !== undefined) this.set(k, String(v));
      }
    }
  }
  get size(): number {
    return this.map.size;
  }
  get(name: string): string | null {
    const value = this.map.get(name.toLowerCase());
    if (value === undefined) return null;
    return typeof value === 'string' ? value : value.join(', ');
  }
  getSetCookie(): string[] {
    const value = this.map.get('set-cookie');
    return value === undefined ? [] : typeof value === 'string' ? [value] : [...value];
  }
  has(name: string): boolean {
    return this.map.has(name.toLowerCase());
  }
  set(name: string, value: string | number): this {
    this.map.set(name.toLowerCase(), String(value));
    return this;
  }
  append(name: string, value: string | number): this {
    const key = name.toLowerCase();
    const current = this.map.get(key);
    if (current === undefined) this.map.set(key, String(value));
    else if (typeof current === 'string') this.map.set(key, [current, String(value)]);
    else current.push(String(value));
    return this;
  }
  delete(name: string): boolean {
    return this.map.delete(name.toLowerCase());
  }
  *entries(): IterableIterator<[string, string]> {
    for (const [k, v] of this.map) {
      if (typeof v === 'string') yield [k, v];
      else for (const item of v) yield [k, item];
    }
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
  forEach(fn: (value: string, name: string) => void): void {
    for (const [k, v] of this.entries()) fn(v, k);
  }
  /** Flat `[name, value, name, value, …]` list, the form `writeHead` takes in one call. */
  appendFlat(target: (string | number)[]): void {
    for (const [k, v] of this.map) {
      if (typeof v === 'string') target.push(k, v);
      else for (const item of v) target.push(k, item);
    }
  }
  toJSON(): Record<string, string | string[]> {
    return Object.fromEntries(this.map);
  }
}

// Field values: tab, visible ASCII and obs-text (0x80–0xFF), what node:http and Web `Headers` accept.
const UNSAFE_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
// Field names: an RFC 9110 token.
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * True when a value could split the response (CR, LF, NUL) or is one no writer accepts (other
 * control characters, code points past 0xFF): such a header is never written.
 */
export function isUnsafeHeaderValue(value: string): boolean {
  return UNSAFE_HEADER_VALUE.test(value);
}

/** True when a header name is not an HTTP token (spaces, colons, CR/LF …): it is never written. */
export function isInvalidHeaderName(name: string): boolean {
  return !HEADER_NAME.test(name);
}
