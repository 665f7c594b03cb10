import { isParamSource, isStandardSchema, isZodSchema, type Schema, standardJsonSchema } from '@fnapi/validation';
import type { RegisteredEndpoint } from '../serve/compile.js';

// A schema of another library that offers no JSON Schema (no `~standard.jsonSchema`, no converter)
// is documented as `{}`: named once, when the app is compiled, so the author knows why.

function undocumented(schema: unknown, io: 'input' | 'output'): schema is Schema {
  return !isZodSchema(schema) && isStandardSchema(schema) && standardJsonSchema(schema, io) === undefined;
}

/** `GET /items/{id}: params.id (vendor)` for every schema of the endpoint the document shows as `{}`. */
export function undocumentedSchemas(endpoint: RegisteredEndpoint): string[] {
  const { options } = endpoint.definition;
  if ((endpoint.terms?.includeInSchema ?? options.includeInSchema) === false) return [];
  const found: string[] = [];
  const note = (where: string, schema: unknown, io: 'input' | 'output') => {
    if (undocumented(schema, io)) found.push(`${endpoint.method} ${endpoint.path}: ${where} (${schema['~standard'].vendor})`);
  };
  for (const [name, spec] of Object.entries(options.params ?? {}))
    note(`params.${name}`, isParamSource(spec) ? spec.schema : spec, 'input');
  note('response', options.response, 'output');
  for (const [status, declared] of Object.entries(endpoint.terms?.responses ?? options.responses ?? {})) {
    if (typeof declared === 'object') note(`responses[${status}].schema`, declared.schema, 'output');
  }
  note('events', options.events, 'output');
  note('lines', options.lines, 'output');
  return found;
}
