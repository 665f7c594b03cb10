import type { Response } from '@fnapi/core';

/** Adds names to a response's `Vary` header, keeping the ones already there and never repeating one. */
export function appendVary(response: Response, ...names: string[]): void {
  const current = response.headers.get('vary');
  if (current === null) {
    response.headers.set('vary', names.join(', '));
    return;
  }
  const present = splitList(current).map((n) => n.toLowerCase());
  if (present.includes('*')) return;
  const missing = names.filter((n) => !present.includes(n.toLowerCase()));
  if (missing.length > 0) response.headers.set('vary', [current, ...missing].join(', '));
}

/** Splits a comma-separated header value into its trimmed, non-empty items. */
export function splitList(value: string | null | undefined): string[] {
  if (!value) return [];
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}
