/** One problem with a payload: where, what, and a machine-readable code. */
export interface PayloadIssue {
  path: (string | number)[];
  message: string;
  code: string;
}

/**
 * A payload that does not fit its job's `payload` schema (or is not JSON, or is too large): the
 * caller's bug, so an unhandled one is a 500.
 */
export class JobPayloadError extends Error {
  readonly issues: PayloadIssue[];
  constructor(job: string, issues: PayloadIssue[]) {
    const first = issues[0];
    super(`Payload of job "${job}" is invalid${first ? `: ${first.path.length ? `${first.path.join('.')}: ` : ''}${first.message}` : ''}`);
    this.name = 'JobPayloadError';
    this.issues = issues;
  }
}

/** Any schema a job's `payload` takes: zod, or anything implementing Standard Schema v1 (`~standard`). */
export interface PayloadSchema<Output = unknown> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    validate(value: unknown): StandardResult<Output> | Promise<StandardResult<Output>>;
  };
}

type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | {
      readonly issues: readonly {
        readonly message: string;
        readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[] | undefined;
      }[];
    };

/** The payload type a schema produces. */
export type PayloadOf<S> = S extends { readonly '~standard': { validate(value: unknown): infer R } }
  ? Extract<Awaited<R>, { value: unknown }> extends { value: infer O }
    ? O
    : never
  : unknown;

interface ZodLike {
  safeParse?(value: unknown): ZodResult;
  safeParseAsync(value: unknown): Promise<ZodResult>;
}
type ZodResult = { success: true; data: unknown } | { success: false; error: { issues: ZodIssue[] } };
interface ZodIssue {
  path: PropertyKey[];
  message: string;
  code: string;
}

function isZod(schema: unknown): schema is ZodLike {
  return typeof (schema as Partial<ZodLike>).safeParseAsync === 'function';
}

/** zod's "this schema is async, parse it with safeParseAsync" (zod 4's `$ZodAsyncError`, zod 3's messages). */
function isZodAsyncError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return error.constructor.name === '$ZodAsyncError' || /parseAsync|encountered promise/i.test(error.message);
}

function key(segment: PropertyKey | { readonly key: PropertyKey }): string | number {
  const value = typeof segment === 'object' && segment !== null ? segment.key : segment;
  return typeof value === 'number' ? value : String(value);
}

function zodValue(job: string, result: ZodResult): unknown {
  if (result.success) return result.data;
  throw new JobPayloadError(
    job,
    result.error.issues.map((issue) => ({ path: issue.path.map(key), message: issue.message, code: issue.code })),
  );
}

function standardValue(job: string, result: StandardResult<unknown>): unknown {
  if (result.issues === undefined) return result.value;
  throw new JobPayloadError(
    job,
    result.issues.map((issue) => ({ path: (issue.path ?? []).map(key), message: issue.message, code: 'invalid' })),
  );
}

/**
 * The one place a payload is checked against its schema: zod's own parse (which names each issue's
 * code), any other Standard Schema through `~standard.validate` (code `invalid`). The parsed value, or
 * a `JobPayloadError` thrown; a promise of them only when the schema is async (an async refinement,
 * a validator that answers with a promise), so that a plain schema costs no turn of the event loop.
 */
export function validatePayload(job: string, schema: PayloadSchema | undefined, value: unknown): unknown {
  if (schema === undefined) return value;
  if (isZod(schema)) {
    if (typeof schema.safeParse === 'function') {
      let result: ZodResult | undefined;
      try {
        result = schema.safeParse(value);
      } catch (error) {
        if (!isZodAsyncError(error)) throw error;
      }
      if (result !== undefined) return zodValue(job, result);
    }
    return schema.safeParseAsync(value).then((result) => zodValue(job, result));
  }
  const result = schema['~standard'].validate(value);
  if (result instanceof Promise) return result.then((settled) => standardValue(job, settled));
  return standardValue(job, result);
}

/** Largest payload or result, serialized: 512 KiB. */
export const MAX_JSON_BYTES = 512 * 1024;

/**
 * The size of a value's JSON in bytes, as far as `MAX_JSON_BYTES` is concerned: a text short enough to
 * be under the limit whatever its characters (one UTF-16 code unit is at most 3 bytes of UTF-8) gives its
 * length, not counted byte by byte. Throws when the value cannot be serialized.
 */
export function jsonSize(value: unknown): number {
  const text = JSON.stringify(value ?? null) as string | undefined;
  return typeof text === 'string' && text.length * 3 <= MAX_JSON_BYTES ? text.length : Buffer.byteLength(text as string);
}
