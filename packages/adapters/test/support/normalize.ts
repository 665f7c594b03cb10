import { expect } from 'vitest';
import type { ALBResult, APIGatewayProxyResult, APIGatewayProxyResultV2 } from '../../src/lambda.js';
import type { NetlifyResult } from '../../src/netlify.js';

/** A response as a client sees it: status, every header value by lower-case name, body bytes. */
export interface Seen {
  status: number;
  headers: Map<string, string[]>;
  body: Buffer;
}

/** Headers each hop sets for itself (framing, connection, time): never part of the comparison. */
const PER_HOP = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

export function headerMap(entries: Iterable<readonly [string, string | string[] | undefined]>): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const [rawName, value] of entries) {
    if (value === undefined) continue;
    const name = rawName.toLowerCase();
    const list = map.get(name) ?? [];
    for (const v of Array.isArray(value) ? value : [value]) list.push(String(v));
    map.set(name, list);
  }
  return map;
}

function comparable(headers: Map<string, string[]>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, values] of [...headers].sort(([a], [b]) => a.localeCompare(b))) {
    if (PER_HOP.has(name)) continue;
    // Unique per request by design: compared for presence only.
    if (name === 'x-request-id') {
      out[name] = values.length === 1 && /^[\x21-\x7e]{1,128}$/.test(values[0]!) ? '<id>' : values;
      continue;
    }
    // Repeated fields mean the same as one comma-joined field (RFC 9110 §5.3), except Set-Cookie.
    out[name] = name === 'set-cookie' ? values : values.join(', ');
  }
  return out;
}

/** Asserts that `actual` matches the reference in status, headers and body. */
export function expectSame(actual: Seen, reference: Seen, options: { ignoreHeaders?: string[] } = {}): void {
  const ref = comparable(reference.headers);
  const got = comparable(actual.headers);
  for (const name of options.ignoreHeaders ?? []) {
    delete ref[name];
    delete got[name];
  }
  expect({ status: actual.status, headers: got, body: actual.body.toString('base64') }).toEqual({
    status: reference.status,
    headers: ref,
    body: reference.body.toString('base64'),
  });
}

function decoded(result: { body: string; isBase64Encoded: boolean }): Buffer {
  return result.isBase64Encoded ? Buffer.from(result.body, 'base64') : Buffer.from(result.body, 'utf8');
}

const V1_KEYS = ['body', 'headers', 'isBase64Encoded', 'multiValueHeaders', 'statusCode'];
const V2_KEYS = ['body', 'cookies', 'headers', 'isBase64Encoded', 'statusCode'];
const ALB_KEYS = ['body', 'headers', 'isBase64Encoded', 'multiValueHeaders', 'statusCode', 'statusDescription'];

function expectKeys(result: object, allowed: string[]): void {
  for (const key of Object.keys(result)) expect(allowed, `result key ${key}`).toContain(key);
}

/** A REST (v1) or Netlify v1 result, checked against the documented shape. */
export function seenV1(result: APIGatewayProxyResult | NetlifyResult): Seen {
  expectKeys(result, V1_KEYS);
  expect(result).not.toHaveProperty('cookies');
  expect(Number.isInteger(result.statusCode)).toBe(true);
  for (const name of Object.keys(result.headers)) expect(result.multiValueHeaders).not.toHaveProperty(name);
  return {
    status: result.statusCode,
    headers: headerMap([...Object.entries(result.headers), ...Object.entries(result.multiValueHeaders)]),
    body: decoded(result),
  };
}

/** An HTTP API (v2) or Function URL result: cookies travel apart from the headers. */
export function seenV2(result: APIGatewayProxyResultV2): Seen {
  expectKeys(result, V2_KEYS);
  for (const value of Object.values(result.headers)) expect(typeof value).toBe('string');
  expect(result.headers).not.toHaveProperty('set-cookie');
  const headers = headerMap(Object.entries(result.headers));
  if (result.cookies !== undefined) {
    expect(result.cookies.length).toBeGreaterThan(0);
    headers.set('set-cookie', result.cookies);
  }
  return { status: result.statusCode, headers, body: decoded(result) };
}

/** An ALB result: `multiValueHeaders` or `headers` (never both), and a status description. */
export function seenAlb(result: ALBResult, multiValue: boolean): Seen {
  expectKeys(result, ALB_KEYS);
  expect(result.statusDescription).toMatch(new RegExp(`^${result.statusCode} \\S`));
  if (multiValue) {
    expect(result).not.toHaveProperty('headers');
    return { status: result.statusCode, headers: headerMap(Object.entries(result.multiValueHeaders ?? {})), body: decoded(result) };
  }
  expect(result).not.toHaveProperty('multiValueHeaders');
  for (const value of Object.values(result.headers ?? {})) expect(typeof value).toBe('string');
  return { status: result.statusCode, headers: headerMap(Object.entries(result.headers ?? {})), body: decoded(result) };
}
