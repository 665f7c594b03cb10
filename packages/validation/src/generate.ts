import { z } from 'zod';

/**
 * A function made from source text (`new Function(...names, source)` called with `values`), for code
 * generated once per route where V8 then sees one shape at each property access. Undefined where no
 * code is generated: the app set `z.config({ jitless: true })` (as for zod's compiled parsers, the
 * sign of an environment that forbids it), or the runtime refuses (Workers, a strict CSP). Callers keep
 * a generic path for that case.
 */
export function generateFunction<F>(names: readonly string[], values: readonly unknown[], source: string): F | undefined {
  if (z.config().jitless === true) return undefined;
  try {
    return new Function(...names, source)(...values) as F;
  } catch {
    return undefined;
  }
}
