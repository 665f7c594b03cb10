import type { OpenAPIVersion } from './description.js';

/** Where a streamed success body sits in the generated document. */
export interface ItemStream {
  path: string;
  method: string;
  mediaType: string;
  status: string;
  /** `events`: the item schema describes each event's data; `lines`: the item itself. */
  kind?: 'events' | 'lines';
  /** Named events: the generated schema is an object with one property per name. */
  names?: readonly string[];
}

type Schema = Record<string, unknown>;

/**
 * One server-sent event as OpenAPI 3.2 describes it: `data` a string holding the item's JSON
 * (`contentMediaType`/`contentSchema`), `event`, `id` and `retry`; with a name, `event` is that name.
 */
function eventSchema(data: unknown, name?: string): Schema {
  const properties: Schema = {
    data: { type: 'string', contentMediaType: 'application/json', contentSchema: data },
    event: name === undefined ? { type: 'string' } : { type: 'string', const: name },
    id: { type: 'string' },
    retry: { type: 'integer', minimum: 0 },
  };
  return { type: 'object', properties, required: name === undefined ? ['data'] : ['data', 'event'] };
}

/** The schema of one item of the stream, from the schema generated in its place. */
function itemSchema(generated: unknown, stream: ItemStream): unknown {
  if (stream.kind !== 'events') return generated;
  if (stream.names === undefined) return eventSchema(generated);
  const properties = ((generated as Schema | undefined)?.properties ?? {}) as Schema;
  const branches = stream.names.map((name) => eventSchema(properties[name] ?? {}, name));
  return branches.length === 1 ? branches[0] : { oneOf: branches };
}

/**
 * A stream's item schema (generated in place of the body's schema) moved to OpenAPI 3.2's
 * `itemSchema`; in 3.1, which has no such field, the body is a string and the item schema sits
 * beside it as `x-itemSchema`, so both documents stay valid.
 */
export function placeItemSchemas(document: Record<string, unknown>, streams: readonly ItemStream[], version: OpenAPIVersion): void {
  const paths = document.paths as Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>>;
  for (const stream of streams) {
    const { path, method, mediaType, status } = stream;
    const content = paths[path]?.[method]?.responses[status]?.content;
    const media = content?.[mediaType] as { schema?: unknown } | undefined;
    if (!content || !media) continue;
    const item = itemSchema(media.schema, stream);
    content[mediaType] = version === '3.2.0' ? { itemSchema: item } : { schema: { type: 'string' }, 'x-itemSchema': item };
  }
}
