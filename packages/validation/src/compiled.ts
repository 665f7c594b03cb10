import { z } from 'zod';
import { isZodSchema, type Schema, type SchemaIssue, validateSync } from './standard.js';

/** One issue of a failed parse: zod's own, or another library's as fnapi reports it. */
export type ParseIssue = z.core.$ZodIssue | SchemaIssue;

/** What the hot path calls of a schema: one synchronous parse. */
export interface SchemaParser<Output> {
  safeParse(
    value: unknown,
    params?: z.core.ParseContext<z.core.$ZodIssue>,
  ): { success: true; data: Output } | { success: false; error: { issues: readonly ParseIssue[] } };
}

/** Any other Standard Schema, through `~standard.validate` (synchronous schemas only). */
function standardParser<Output>(schema: Schema): SchemaParser<Output> {
  return {
    safeParse(value) {
      const result = validateSync(schema, value);
      return result.ok ? { success: true, data: result.value as Output } : { success: false, error: { issues: result.issues } };
    },
  };
}

/**
 * The schema as the hot path runs it: zod's ahead-of-time compiled clone (`z.compile`), whose
 * generated parser answers valid input and hands anything else to zod's own parser, so results and
 * issues are zod's exactly. The clone is built on the first parse, not when the route is compiled:
 * generating it takes milliseconds per schema, and a process that answers one request (a serverless
 * cold start) or never calls a route should not pay for every route of the app up front.
 * Compilation uses `new Function`: where the app set `z.config({ jitless: true })` before that first
 * parse (a CSP environment), the schema is used as it is; a schema zod cannot compile, too.
 * Another Standard Schema (valibot, arktype, …) is validated through `~standard.validate`.
 */
export function compiledParser<T extends z.ZodType>(schema: T): SchemaParser<z.output<T>>;
export function compiledParser(schema: Schema): SchemaParser<unknown>;
export function compiledParser(schema: Schema): SchemaParser<unknown> {
  if (!isZodSchema(schema)) return standardParser(schema);
  const zodSchema = schema as z.ZodType;
  let compiled: z.ZodType | undefined;
  return {
    safeParse(value, params) {
      compiled ??= z.config().jitless === true ? zodSchema : z.compile(zodSchema);
      return compiled.safeParse(value, params);
    },
  };
}
