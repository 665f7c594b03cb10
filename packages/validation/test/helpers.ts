import { type BindResult, queryValues, type RawInput, type ValidationIssue } from '../src/index.js';

export interface RawOptions {
  path?: Record<string, string>;
  query?: string;
  headers?: Record<string, string>;
  cookies?: Record<string, string>;
  body?: unknown;
}

export function raw(opts: RawOptions = {}): RawInput & { cookieCalls: number } {
  const headers = new Map(Object.entries(opts.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  const input = {
    cookieCalls: 0,
    path: opts.path ?? {},
    query: queryValues(new URLSearchParams(opts.query ?? '')),
    headers: { get: (name: string) => headers.get(name) ?? null },
    cookies: () => {
      input.cookieCalls++;
      return opts.cookies ?? {};
    },
    body: opts.body,
  };
  return input;
}

export function value(result: BindResult): Record<string, unknown> {
  if (!result.ok) throw new Error(`expected success, got ${JSON.stringify(result.issues)}`);
  return result.value;
}

export function issues(result: BindResult): ValidationIssue[] {
  if (result.ok) throw new Error(`expected failure, got ${JSON.stringify(result.value)}`);
  return result.issues;
}
