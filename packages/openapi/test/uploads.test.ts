/**
 * Forms and uploads in the document: a file() endpoint's body is `multipart/form-data` with its file
 * fields as binary strings (what Swagger UI offers a file picker for), a form() body is urlencoded or
 * multipart, and the document stays valid against the official 3.1 schema.
 */
import { validate } from '@hyperjump/json-schema/openapi-3-1';
import { describe, expect, it } from 'vitest';
import { file, form, z } from '@fnapi/validation';
import { buildDocument, type OperationDescription } from '../src/index.js';
import { http } from './fixtures.js';

const BINARY = { type: 'string', format: 'binary', contentMediaType: 'application/octet-stream' };

const ops: OperationDescription[] = [
  {
    method: 'POST',
    path: '/users/{user_id}/avatar',
    operationId: 'uploadAvatar',
    plan: {
      method: 'POST',
      pathParams: ['user_id'],
      params: {
        user_id: z.int(),
        avatar: file({ maxSize: 5_000_000, types: ['image/png'] }),
        extra: z.array(file()).optional(),
        caption: z.string().max(200).optional(),
      },
    },
    statusCode: 200,
  },
  {
    method: 'POST',
    path: '/login',
    operationId: 'login',
    plan: {
      method: 'POST',
      pathParams: [],
      params: { credentials: form(z.object({ user: z.string(), remember: z.boolean().optional() })) },
    },
    statusCode: 200,
  },
];

type Doc = { paths: Record<string, Record<string, { requestBody: { required: boolean; content: Record<string, { schema: unknown }> } }>> };

describe('upload and form bodies in the document', () => {
  const doc = buildDocument({ title: 'Uploads', version: '1.0.0' }, ops, { http, maxFiles: 4 }) as unknown as Doc;

  it('describes a file() endpoint as multipart/form-data with binary file fields', () => {
    const body = doc.paths['/users/{user_id}/avatar']!.post!.requestBody;
    expect(Object.keys(body.content)).toEqual(['multipart/form-data']);
    expect(body.required).toBe(true);
    expect(body.content['multipart/form-data']!.schema).toEqual({
      type: 'object',
      properties: {
        // Its one accepted type, as `encoding` says.
        avatar: { ...BINARY, contentMediaType: 'image/png', description: 'At most 5000000 bytes.' },
        extra: { type: 'array', items: BINARY, maxItems: 4, description: 'At most 10485760 bytes per file.' },
        caption: { type: 'string', maxLength: 200 },
      },
      required: ['avatar'],
    });
    // The accepted types of each file field, for generators and mocks.
    expect((body.content['multipart/form-data'] as { encoding?: unknown }).encoding).toEqual({ avatar: { contentType: 'image/png' } });
  });

  it('describes a form() body as urlencoded or multipart, the schema inline (it has no id of its own)', () => {
    const body = doc.paths['/login']!.post!.requestBody;
    expect(Object.keys(body.content)).toEqual(['application/x-www-form-urlencoded', 'multipart/form-data']);
    expect(body.content['application/x-www-form-urlencoded']!.schema).toEqual({
      type: 'object',
      properties: { user: { type: 'string' }, remember: { type: 'boolean' } },
      required: ['user'],
    });
  });

  it('stays valid against the official OpenAPI 3.1 schema', async () => {
    const output = await validate('https://spec.openapis.org/oas/3.1/schema-base', JSON.parse(JSON.stringify(doc)), 'BASIC');
    expect(output.valid ? [] : output.errors).toEqual([]);
  });
});
