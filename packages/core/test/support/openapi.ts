/** Helpers for reading and validating served OpenAPI documents. */
import { validate } from '@hyperjump/json-schema/openapi-3-1';

/** The official OpenAPI 3.1 schema with the `schema-base` dialect: Schema Objects are checked too. */
export const OPENAPI_31_SCHEMA_BASE = 'https://spec.openapis.org/oas/3.1/schema-base';

export interface Validity {
  valid: boolean;
  errors: unknown[];
}

/** Validates a document (as served: after a JSON round trip) against the OpenAPI 3.1 schema. */
export async function validateOpenAPI(document: unknown): Promise<Validity> {
  const output = await validate(OPENAPI_31_SCHEMA_BASE, JSON.parse(JSON.stringify(document)), 'BASIC');
  return { valid: output.valid, errors: output.valid ? [] : (output.errors ?? []) };
}

export type Doc = {
  openapi: string;
  info: Record<string, unknown>;
  tags?: { name: string }[];
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, any>; [key: string]: unknown };
};

export type Operation = {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  deprecated?: boolean;
  parameters?: { name: string; in: string; required?: boolean; schema?: any }[];
  requestBody?: { required?: boolean; content: Record<string, { schema: any }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: any }> }>;
};

/** `METHOD path` of every operation, sorted. */
export function operationKeys(doc: Doc): string[] {
  return Object.entries(doc.paths)
    .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
    .sort();
}

export function operation(doc: Doc, method: string, path: string): Operation {
  const op = doc.paths[path]?.[method.toLowerCase()];
  if (!op) throw new Error(`${method} ${path} is not in the document (has: ${operationKeys(doc).join(', ')})`);
  return op;
}

/** Parameters as `[in, name, required]`, in document order. */
export function parameterList(op: Operation): [string, string, boolean][] {
  return (op.parameters ?? []).map((p) => [p.in, p.name, p.required ?? false]);
}

export function parameter(op: Operation, location: string, name: string) {
  const found = (op.parameters ?? []).find((p) => p.in === location && p.name === name);
  if (!found) throw new Error(`no ${location} parameter ${name}`);
  return found;
}

export function statuses(op: Operation): string[] {
  return Object.keys(op.responses);
}

/** Every `$ref` anywhere in a value. */
export function refsIn(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refsIn(item, out);
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string') out.push(item);
      else refsIn(item, out);
    }
  }
  return out;
}
