import { validate as validate31 } from '@hyperjump/json-schema/openapi-3-1';
import { validate as validate32 } from '@hyperjump/json-schema/openapi-3-2';
import { describe, expect, it } from 'vitest';
import { z } from '@fnapi/validation';
import { buildDocument, type OpenAPIVersion, type OperationDescription } from '../src/index.js';
import { http, operations } from './fixtures.js';

// The official OpenAPI schemas (spec.openapis.org/oas/3.1/schema-base and 3.2/schema-base, both with
// Schema Object validation), as published in @hyperjump/json-schema.
const Tick = z.object({ n: z.int(), at: z.iso.datetime() }).meta({ id: 'Tick' });
const Row = z.object({ id: z.int(), name: z.string() });

const streamed: OperationDescription[] = [
  {
    method: 'GET',
    path: '/ticks',
    operationId: 'ticks',
    plan: { method: 'GET', pathParams: [], params: { count: z.int().max(1000) } },
    statusCode: 200,
    stream: { mediaType: 'text/event-stream', item: Tick },
  },
  {
    method: 'GET',
    path: '/export',
    operationId: 'exportRows',
    plan: { method: 'GET', pathParams: [], params: {} },
    statusCode: 200,
    stream: { mediaType: 'application/jsonl', item: Row },
  },
];

function build(openapiVersion?: OpenAPIVersion) {
  return JSON.parse(
    JSON.stringify(buildDocument({ title: 'Streams', version: '1.0.0' }, [...operations, ...streamed], { http, openapiVersion })),
  ) as Record<string, any>;
}

describe('stream items in the document', () => {
  it('3.1: a string body with x-itemSchema beside it, valid against the official 3.1 schema', async () => {
    const doc = build();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths['/ticks'].get.responses['200'].content).toEqual({
      'text/event-stream': { schema: { type: 'string' }, 'x-itemSchema': { $ref: '#/components/schemas/Tick' } },
    });
    const rows = doc.paths['/export'].get.responses['200'].content['application/jsonl'];
    expect(rows.schema).toEqual({ type: 'string' });
    expect(rows['x-itemSchema']).toMatchObject({ type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } });
    expect(doc.components.schemas.Tick).toMatchObject({ type: 'object', required: ['n', 'at'] });
    const output = await validate31('https://spec.openapis.org/oas/3.1/schema-base', doc, 'BASIC');
    expect(output.valid ? [] : output.errors).toEqual([]);
  });

  it('3.2: itemSchema, openapi 3.2.0, valid against the official 3.2 schema', async () => {
    const doc = build('3.2.0');
    expect(doc.openapi).toBe('3.2.0');
    expect(doc.paths['/ticks'].get.responses['200'].content).toEqual({
      'text/event-stream': { itemSchema: { $ref: '#/components/schemas/Tick' } },
    });
    expect(doc.paths['/export'].get.responses['200'].content['application/jsonl'].itemSchema).toMatchObject({ type: 'object' });
    const output = await validate32('https://spec.openapis.org/oas/3.2/schema-base', doc, 'BASIC');
    expect(output.valid ? [] : output.errors).toEqual([]);
  });

  it('the 3.2 schema does refuse a malformed document (the check can fail)', async () => {
    const doc = build('3.2.0');
    doc.paths['/ticks'].get.responses['200'].content['text/event-stream'].itemSchema = 'not a schema';
    const output = await validate32('https://spec.openapis.org/oas/3.2/schema-base', doc, 'BASIC');
    expect(output.valid).toBe(false);
  });
});
