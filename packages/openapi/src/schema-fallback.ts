import { z } from '@fnapi/validation';

// What to do with a schema zod-to-openapi cannot express.

export type SchemaObject = Record<string, unknown>;

export function isUnknownTypeError(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    ((error as { constructor?: { name?: string } }).constructor?.name === 'UnknownZodTypeError' ||
      /Unknown zod object type/i.test(String((error as { message?: unknown }).message)))
  );
}

export function isOptionalSchema(schema: z.ZodType): boolean {
  try {
    return schema.safeParse(undefined).success;
  } catch {
    return false;
  }
}

/** zod's own JSON Schema for a schema, or `{}` when it has cycles or cannot be converted. */
export function fallbackJsonSchema(schema: z.ZodType): SchemaObject {
  try {
    const json = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      unrepresentable: 'any',
      io: 'input',
      cycles: 'throw',
      reused: 'inline',
      metadata: z.registry<Record<string, unknown>>(),
    }) as SchemaObject;
    delete json.$schema;
    if ('$defs' in json) return {};
    return json;
  } catch {
    return {};
  }
}
