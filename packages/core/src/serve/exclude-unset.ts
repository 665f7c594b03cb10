/**
 * `responseExcludeUnset`: the parsed answer without the fields the handler's own value did not set
 * (defaults the model filled in), at every depth, as FastAPI's `response_model_exclude_unset`.
 */
export function pruneUnset(parsed: unknown, original: unknown): unknown {
  if (Array.isArray(parsed)) {
    if (!Array.isArray(original)) return parsed;
    return parsed.map((item, i) => pruneUnset(item, original[i]));
  }
  if (!isPlainObject(parsed) || !isPlainObject(original)) return parsed;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(parsed)) {
    if (!Object.hasOwn(original, key) || original[key] === undefined) continue;
    out[key] = pruneUnset(parsed[key], original[key]);
  }
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
