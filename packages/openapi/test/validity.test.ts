import { validate } from '@hyperjump/json-schema/openapi-3-1';
import { describe, expect, it } from 'vitest';
import { z } from '@fnapi/validation';
import { buildDocument, type OperationDescription } from '../src/index.js';
import { operations, http, problem } from './fixtures.js';

const SCHEMA_BASE = 'https://spec.openapis.org/oas/3.1/schema-base';

async function check(document: Record<string, unknown>) {
  // Round-trip through JSON: what is served is the serialized document.
  const output = await validate(SCHEMA_BASE, JSON.parse(JSON.stringify(document)), 'BASIC');
  return output;
}

describe('OpenAPI 3.1 validity (schema-base dialect, offline)', () => {
  it('accepts the full example document', async () => {
    const output = await check(buildDocument({ title: 'Demo', version: '1.2.3', description: 'An example' }, operations, { http }));
    expect(output.valid ? [] : output.errors).toEqual([]);
    expect(output.valid).toBe(true);
  });

  it('accepts an empty document', async () => {
    expect((await check(buildDocument({ title: 'Empty', version: '0.1.0' }, [], { http }))).valid).toBe(true);
  });

  it('accepts a document with a replaced 422 schema, unions, nullables, records and tuples', async () => {
    const Pet = z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('cat'), lives: z.int().min(0).max(9) }),
      z.object({ kind: z.literal('dog'), good: z.boolean() }),
    ]);
    const ops: OperationDescription[] = [
      {
        method: 'POST',
        path: '/pets',
        operationId: 'createPet',
        plan: {
          method: 'POST',
          pathParams: [],
          params: {
            pet: z.object({
              pet: Pet,
              note: z.string().nullable(),
              tags: z.record(z.string(), z.number()),
              pair: z.tuple([z.string(), z.int()]),
            }),
          },
        },
        response: z.object({ id: z.uuid(), created: z.iso.datetime() }),
        statusCode: 201,
        responses: [
          { status: 201, description: 'Created', content: { mediaType: 'application/json', schema: z.object({ id: z.uuid() }) } },
          problem(409, 'Name taken'),
          {
            status: 422,
            description: 'Validation Error',
            content: { mediaType: 'application/json', schema: z.object({ message: z.string() }), component: 'ValidationProblem' },
          },
          { status: 429, description: 'Slow down', headers: { 'Retry-After': { schema: z.int(), required: true } } },
        ],
      },
      {
        method: 'PATCH',
        path: '/pets/{id}',
        operationId: 'patchPet',
        plan: { method: 'PATCH', pathParams: ['id'], params: { id: z.uuid(), note: z.string().nullable().optional() } },
        statusCode: 200,
        security: [{ name: 'basicAuth', scheme: { type: 'http', scheme: 'basic' } }],
      },
    ];
    const document = buildDocument({ title: 'Pets', version: '2.0.0' }, ops, { http });
    const output = await check(document);
    expect(output.valid ? [] : output.errors).toEqual([]);
    expect(output.valid).toBe(true);
  });

  it('the validator does reject a broken document', async () => {
    const document = buildDocument({ title: 'Demo', version: '1' }, operations, { http }) as any;
    document.paths['/health'].get.responses['200'] = { content: {} }; // description missing
    delete document.info.version;
    const output = await check(document);
    expect(output.valid).toBe(false);
  });
});
