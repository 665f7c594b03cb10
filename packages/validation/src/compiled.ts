import { z } from 'zod';

/**
 * The schema as the hot path runs it: zod's ahead-of-time compiled clone (`z.compile`), whose
 * generated parser answers valid input and hands anything else to zod's own parser, so results and
 * issues are zod's exactly. Compilation uses `new Function`: where the app set
 * `z.config({ jitless: true })` (a CSP environment) the schema is used as it is, and a schema zod
 * cannot compile comes back unchanged.
 */
export function compiledSchema<T extends z.ZodType>(schema: T): T {
  if (z.config().jitless === true) return schema;
  return z.compile(schema);
}
