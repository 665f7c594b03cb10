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

/**
 * The values of the named keys of a query string, read without parsing the rest: `out[i]` is set to
 * what the request's parsed query (`request.queryValues`) holds for `names[i]` (undefined, a string,
 * or every value in order when the key repeats). False (and `out` unspecified) when the string holds
 * a percent-escape or a `+`: those are decoded the parsed query's way. Found with `indexOf` rather
 * than a loop over characters: the query is usually a slice of the request target, whose characters
 * V8 reads one at a time only slowly.
 */
export function pickQuery(query: string, names: readonly string[], out: (string | string[] | undefined)[]): boolean {
  const count = names.length;
  for (let n = 0; n < count; n++) out[n] = undefined;
  if (query.indexOf('%') !== -1 || query.indexOf('+') !== -1) return false;
  const length = query.length;
  let start = 0;
  while (start <= length) {
    let end = query.indexOf('&', start);
    if (end === -1) end = length;
    // An empty pair ("&&") is no pair; "=1" is the key "".
    if (end > start) {
      let equals = query.indexOf('=', start);
      if (equals > end || equals === -1) equals = end;
      const keyLength = equals - start;
      for (let n = 0; n < count; n++) {
        const name = names[n]!;
        if (name.length !== keyLength || !query.startsWith(name, start)) continue;
        const value = equals === end ? '' : query.slice(equals + 1, end);
        const current = out[n];
        if (current === undefined) out[n] = value;
        else if (typeof current === 'string') out[n] = [current, value];
        else current.push(value);
      }
    }
    start = end + 1;
  }
  return true;
}
