import { z } from '@fnapi/validation';
import type { Response } from './response.js';

const binaryTypes = new WeakMap<z.ZodType, readonly string[]>();

/** The schema `binary()` returns: what the handler answers with (a `FileResponse` or any `Response`). */
export type BinarySchema = z.ZodType<Response | globalThis.Response, Response | globalThis.Response>;

/**
 * The `response` of an endpoint that answers with a file of these types (a `FileResponse`, or a
 * `Response` of one of them): documented as a binary body (`format: binary`) per type, so a
 * generated client reads it as a `Blob`.
 */
export function binary(types: readonly string[] = ['application/octet-stream']): BinarySchema {
  if (!Array.isArray(types) || types.length === 0 || types.some((t) => typeof t !== 'string' || !t.includes('/'))) {
    throw new TypeError(`binary() takes a list of media types, like ['application/pdf'], got ${JSON.stringify(types)}`);
  }
  const schema = z
    .custom<Response | globalThis.Response>(() => true)
    .meta({ type: 'string', format: 'binary' } as Record<string, unknown>) as unknown as BinarySchema;
  binaryTypes.set(schema, [...types]);
  return schema;
}

/** The media types of a `binary()` schema, or undefined for any other schema. */
export function binaryTypesOf(schema: unknown): readonly string[] | undefined {
  return typeof schema === 'object' && schema !== null ? binaryTypes.get(schema as z.ZodType) : undefined;
}

export function isBinarySchema(schema: unknown): boolean {
  return binaryTypesOf(schema) !== undefined;
}
