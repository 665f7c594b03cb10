import type { ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { type Schema, z } from '@fnapi/validation';
import type { HttpFacts, OperationDescription, OperationResponse } from './description.js';
import { sortByStatus } from './document-shape.js';
import type { SchemaObject } from './schema-fallback.js';

/** How the builder turns a body or header schema into one the generator takes (safe mode may open it up). */
export interface SchemaConverters {
  body(schema: Schema, parameter: string): z.ZodType | SchemaObject;
  header(schema: z.ZodType, parameter: string): z.ZodType;
}

/**
 * The operation's answers, rendered as the server listed them and sorted by status; without a
 * list, only the success status from `response` and `statusCode`. Nothing is decided here.
 */
export function renderResponses(op: OperationDescription, http: HttpFacts, convert: SchemaConverters): Record<string, ResponseConfig> {
  const answers: OperationResponse[] = op.responses ?? [
    {
      status: op.statusCode,
      description: http.reasonPhrase(op.statusCode),
      ...(http.statusHasBody(op.statusCode)
        ? {
            content: op.stream
              ? { mediaType: op.stream.mediaType, schema: op.stream.item }
              : { mediaType: http.jsonMediaType, schema: op.response },
          }
        : {}),
    },
  ];
  const responses: Record<string, ResponseConfig> = {};
  for (const answer of answers) {
    const config: ResponseConfig = { description: answer.description };
    if (answer.content) {
      const { schema } = answer.content;
      const converted = schema ? convert.body(schema, schema === op.response ? 'response' : `response ${answer.status}`) : {};
      config.content = { [answer.content.mediaType]: { schema: converted as never } };
      for (const type of answer.content.alsoMediaTypes ?? []) config.content[type] = { schema: converted as never };
    }
    if (answer.headers && Object.keys(answer.headers).length > 0) {
      const shape: Record<string, z.ZodType> = {};
      for (const [name, header] of Object.entries(answer.headers)) {
        let schema = header.schema ? convert.header(header.schema, `header ${name}`) : z.string();
        if (header.description !== undefined) schema = schema.describe(header.description);
        shape[name] = header.required ? schema : schema.optional();
      }
      config.headers = z.object(shape);
    }
    responses[String(answer.status)] = config;
  }
  return sortByStatus(responses);
}

/** The schemas an operation answers with: a named model among them gets its own input component. */
export function outputSchemas(op: OperationDescription): Schema[] {
  const schemas = (op.responses ?? []).flatMap((answer) => (answer.content?.schema ? [answer.content.schema] : []));
  return op.response ? [op.response, ...schemas] : schemas;
}
