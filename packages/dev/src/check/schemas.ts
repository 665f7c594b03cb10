import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

export type JsonSchema = Record<string, unknown>;

// ajv-formats is CommonJS: its default export arrives wrapped under some loaders.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

const DOCUMENT_ID = 'urn:fnapi:document';

/**
 * The document's schemas for one run: validators (JSON Schema 2020-12, with the document's components
 * resolvable from any schema of it) and `$ref` resolution for the generators.
 */
export class SchemaBook {
  private readonly ajv: Ajv2020;
  private readonly cache = new Map<unknown, ValidateFunction>();

  constructor(private readonly document: JsonSchema) {
    // Not strict: the document carries OpenAPI keywords (`example`, `discriminator`) ajv does not know.
    this.ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: DOCUMENT_ID, components: rebase((document.components as JsonSchema) ?? {}) });
  }

  /** Follows `$ref`s into the document until a schema that is not a reference. */
  resolve(schema: unknown): JsonSchema {
    let current = (schema ?? {}) as JsonSchema;
    for (let hops = 0; typeof current.$ref === 'string' && hops < 32; hops++) {
      const ref = current.$ref;
      if (!ref.startsWith('#/')) return {};
      let target: unknown = this.document;
      for (const part of ref.slice(2).split('/')) {
        target = (target as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
      }
      current = (target ?? {}) as JsonSchema;
    }
    return current;
  }

  validator(schema: unknown): ValidateFunction {
    let validate = this.cache.get(schema);
    if (!validate) {
      validate = this.ajv.compile(rebase(schema === true || schema === undefined ? {} : schema) as JsonSchema);
      this.cache.set(schema, validate);
    }
    return validate;
  }

  valid(schema: unknown, value: unknown): boolean {
    return this.validator(schema)(value) as boolean;
  }

  /** ajv's first errors, one line. */
  explain(schema: unknown, value: unknown): string {
    const validate = this.validator(schema);
    if (validate(value)) return '';
    return (validate.errors ?? [])
      .slice(0, 3)
      .map(
        (e) =>
          `${e.instancePath || '(root)'} ${e.message}${e.params && 'allowedValue' in e.params ? ` ${JSON.stringify(e.params.allowedValue)}` : ''}`,
      )
      .join('; ');
  }
}

/** Copies a schema with its local `#/…` references pointed at the document registered with ajv. */
function rebase(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rebase);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    out[key] = key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `${DOCUMENT_ID}${value}` : rebase(value);
  }
  return out;
}

/** The JSON types a schema admits (`type` as a string or a list), or undefined when it does not say. */
export function typesOf(schema: JsonSchema): string[] | undefined {
  if (typeof schema.type === 'string') return [schema.type];
  if (Array.isArray(schema.type)) return schema.type as string[];
  if (schema.const !== undefined) return [jsonType(schema.const)];
  if (Array.isArray(schema.enum)) return [...new Set((schema.enum as unknown[]).map(jsonType))];
  return undefined;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/**
 * A path, query, header or cookie string read as the binder reads it (API.md, binding rule 5), so that
 * generated strings can be validated against the parameter's schema. `undefined`: not convertible.
 */
export function readParameter(book: SchemaBook, schema: JsonSchema, text: string): unknown {
  const resolved = book.resolve(schema);
  const types = typesOf(resolved) ?? [];
  const candidates: unknown[] = [];
  for (const type of types) {
    if (type === 'integer' && /^-?[0-9]+$/.test(text)) candidates.push(Number(text));
    if (type === 'number' && /^-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$/.test(text)) candidates.push(Number(text));
    if (type === 'boolean' && ['true', 'false', '1', '0'].includes(text)) candidates.push(text === 'true' || text === '1');
    if (type === 'string') candidates.push(text);
  }
  if (types.length === 0) candidates.push(text);
  return candidates.find((value) => book.valid(schema, value));
}
