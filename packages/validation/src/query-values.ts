/** The last value of a query key (`?a=1&a=2` reads 2 as a scalar), or undefined when absent. */
export function lastOf(value: string | string[] | undefined): string | undefined {
  return value === undefined || typeof value === 'string' ? value : value[value.length - 1];
}

/** Every value of a query key, in order. */
export function allOf(value: string | string[]): string[] {
  return typeof value === 'string' ? [value] : value;
}

/**
 * A query record from `URLSearchParams`, in the shape `RawInput.query` takes (null prototype, so a
 * key such as `__proto__` is an ordinary key).
 */
export function queryValues(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null);
  for (const [key, value] of params) {
    const current = out[key];
    out[key] = current === undefined ? value : typeof current === 'string' ? [current, value] : [...current, value];
  }
  return out;
}
