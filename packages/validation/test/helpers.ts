import { type BindResult, queryValues, type RawInput, type ValidationIssue, z } from '../src/index.js';

/** The seed's user model, with an optional nullable field: the models the compiled paths are checked on. */
export const User = z.object({
  name: z.string().min(2).max(50),
  email: z.email(),
  age: z.int().min(18).max(120),
  role: z.enum(['admin', 'user', 'guest']).default('user'),
  tags: z.array(z.string()).default([]),
  nickname: z.string().nullable().optional(),
});

/** The benchmark's list item. */
export const Item = z.object({ id: z.int(), name: z.string(), price: z.number(), tags: z.array(z.string()), inStock: z.boolean() });

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
