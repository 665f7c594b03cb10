import { type StandardSchemaV1, type ValidateResult, validate } from '@fnapi/validation';
import { JobPayloadError } from './errors.js';

/** Any schema a job's `payload` takes: zod, or anything implementing Standard Schema v1 (`~standard`). */
export type PayloadSchema<Output = unknown> = StandardSchemaV1<unknown, Output>;

/** The payload type a schema produces. */
export type PayloadOf<S> = S extends { readonly '~standard': { validate(value: unknown): infer R } }
  ? Extract<Awaited<R>, { value: unknown }> extends { value: infer O }
    ? O
    : never
  : unknown;

/** The type a schema accepts (what `enqueue` takes). */
export type InputOf<S> = S extends { readonly '~standard': { readonly types?: infer T } }
  ? NonNullable<T> extends { readonly input: infer I }
    ? I
    : PayloadOf<S>
  : PayloadOf<S>;

function payloadValue(job: string, result: ValidateResult): unknown {
  if (result.ok) return result.value;
  // The issues without the input found at their path: a payload's values stay out of errors and logs.
  throw new JobPayloadError(
    job,
    result.issues.map(({ path, message, code }) => ({ path, message, code })),
  );
}

/**
 * A payload checked against its schema with `@fnapi/validation` (zod's issues keep zod's codes,
 * another library's its own where it names one): the parsed value, or a `JobPayloadError` thrown; a
 * promise of them only when the schema is async, so that a plain schema costs no turn of the event loop.
 */
export function validatePayload(job: string, schema: PayloadSchema | undefined, value: unknown): unknown {
  if (schema === undefined) return value;
  const result = validate(schema, value);
  return result instanceof Promise ? result.then((settled) => payloadValue(job, settled)) : payloadValue(job, result);
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

/** Refuses, with a `JobPayloadError`, a parsed payload that is not JSON or is over `MAX_JSON_BYTES` as JSON. */
export function assertStorable(job: string, value: unknown): void {
  let size: number;
  try {
    size = jsonSize(value);
  } catch (error) {
    throw new JobPayloadError(job, [{ path: [], message: `Payload is not JSON: ${(error as Error).message}`, code: 'invalid_type' }]);
  }
  if (size > MAX_JSON_BYTES) {
    throw new JobPayloadError(job, [
      { path: [], message: `Payload is ${size} bytes as JSON, over the limit of ${MAX_JSON_BYTES}`, code: 'too_big' },
    ]);
  }
}
