import { z } from 'zod';

/** What the hot path calls of a schema: one synchronous parse. */
export interface SchemaParser<Output> {
  safeParse(value: unknown, params?: z.core.ParseContext<z.core.$ZodIssue>): z.ZodSafeParseResult<Output>;
}

/**
 * The schema as the hot path runs it: zod's ahead-of-time compiled clone (`z.compile`), whose
 * generated parser answers valid input and hands anything else to zod's own parser, so results and
 * issues are zod's exactly. The clone is built on the first parse, not when the route is compiled:
 * generating it takes milliseconds per schema, and a process that answers one request (a serverless
 * cold start) or never calls a route should not pay for every route of the app up front.
 * Compilation uses `new Function`: where the app set `z.config({ jitless: true })` before that first
 * parse (a CSP environment), the schema is used as it is; a schema zod cannot compile, too.
 */
export function compiledParser<T extends z.ZodType>(schema: T): SchemaParser<z.output<T>> {
  let compiled: T | undefined;
  return {
    safeParse(value, params) {
      compiled ??= z.config().jitless === true ? schema : z.compile(schema);
      return compiled.safeParse(value, params) as z.ZodSafeParseResult<z.output<T>>;
    },
  };
}
