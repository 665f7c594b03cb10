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
  safeParseAsync(value: unknown): Promise<{ success: true; data: unknown } | { success: false; error: { issues: ZodIssue[] } }>;
}
interface ZodIssue {
  path: PropertyKey[];
  message: string;
  code: string;
}

function isZod(schema: unknown): schema is ZodLike {
  return typeof (schema as Partial<ZodLike>).safeParseAsync === 'function';
}

function key(segment: PropertyKey | { readonly key: PropertyKey }): string | number {
  const value = typeof segment === 'object' && segment !== null ? segment.key : segment;
  return typeof value === 'number' ? value : String(value);
}

/**
 * The one place a payload is checked against its schema: zod's own parse (which names each issue's
 * code), any other Standard Schema through `~standard.validate` (code `invalid`). Resolves to the
 * parsed value, or rejects with `JobPayloadError`.
 */
export async function validatePayload(job: string, schema: PayloadSchema | undefined, value: unknown): Promise<unknown> {
  if (schema === undefined) return value;
  if (isZod(schema)) {
    const result = await schema.safeParseAsync(value);
    if (result.success) return result.data;
    throw new JobPayloadError(
      job,
      result.error.issues.map((issue) => ({ path: issue.path.map(key), message: issue.message, code: issue.code })),
    );
  }
  const result = await schema['~standard'].validate(value);
  if (result.issues === undefined) return result.value;
  throw new JobPayloadError(
    job,
    result.issues.map((issue) => ({ path: (issue.path ?? []).map(key), message: issue.message, code: 'invalid' })),
  );
}

/** Largest payload or result, serialized: 512 KiB. */
export const MAX_JSON_BYTES = 512 * 1024;

/** The JSON of a value, or undefined when it is past `MAX_JSON_BYTES` (or cannot be serialized). */
export function jsonSize(value: unknown): number {
  const text = JSON.stringify(value ?? null);
  return Buffer.byteLength(text);
}
