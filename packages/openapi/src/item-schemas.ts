import type { OpenAPIVersion } from './description.js';

/** Where a streamed success body sits in the generated document. */
export interface ItemStream {
  path: string;
  method: string;
  mediaType: string;
  status: string;
}

/**
 * A stream's item schema (generated in place of the body's schema) moved to OpenAPI 3.2's
 * `itemSchema`; in 3.1, which has no such field, the body is a string and the item schema sits
 * beside it as `x-itemSchema`, so both documents stay valid.
 */
export function placeItemSchemas(document: Record<string, unknown>, streams: readonly ItemStream[], version: OpenAPIVersion): void {
  const paths = document.paths as Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>>;
  for (const { path, method, mediaType, status } of streams) {
    const content = paths[path]?.[method]?.responses[status]?.content;
    const media = content?.[mediaType] as { schema?: unknown } | undefined;
    if (!content || !media) continue;
    content[mediaType] = version === '3.2.0' ? { itemSchema: media.schema } : { schema: { type: 'string' }, 'x-itemSchema': media.schema };
  }
}
