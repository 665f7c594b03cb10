import {
  AlbMultiValueHeadersSchema,
  AlbSchema,
  APIGatewayProxyEventSchema,
  APIGatewayProxyEventV2Schema,
  LambdaFunctionUrlSchema,
} from '@aws-lambda-powertools/parser/schemas';
import { describe, expect, it } from 'vitest';
import { PNG } from './fixtures/app.js';
import { albEvent, functionUrlEvent, httpApiEvent, type MatrixRequest, restEvent } from './fixtures/events.js';

// The matrix's events must be the platform's shapes, not ours: each is checked against the schemas
// Powertools for AWS Lambda keeps for the real events.
const REQUESTS: MatrixRequest[] = [
  {
    method: 'GET',
    path: '/items/42',
    query: [
      ['q', 'a b'],
      ['tag', 'a'],
      ['tag', 'b'],
    ],
  },
  { method: 'POST', path: '/users', headers: { 'content-type': 'application/json' }, body: '{"name":"Ada","age":36}' },
  { method: 'POST', path: '/upload', headers: { 'content-type': 'image/png' }, body: PNG },
  { method: 'GET', path: '/session', cookies: ['session=abc', 'other=x'] },
  { method: 'HEAD', path: '/items/1' },
];

describe.each(REQUESTS)('event fixtures for $method $path', (request) => {
  it('REST (v1) matches APIGatewayProxyEventSchema', () => {
    expect(APIGatewayProxyEventSchema.safeParse(restEvent(request)).error).toBeUndefined();
    expect(APIGatewayProxyEventSchema.safeParse(restEvent(request, { pathPrefix: '/v1' })).error).toBeUndefined();
  });
  it('HTTP API (v2) matches APIGatewayProxyEventV2Schema', () => {
    expect(APIGatewayProxyEventV2Schema.safeParse(httpApiEvent(request)).error).toBeUndefined();
    expect(APIGatewayProxyEventV2Schema.safeParse(httpApiEvent(request, { stage: 'prod' })).error).toBeUndefined();
  });
  it('Function URL matches LambdaFunctionUrlSchema', () => {
    expect(LambdaFunctionUrlSchema.safeParse(functionUrlEvent(request)).error).toBeUndefined();
  });
  it('ALB matches AlbSchema, and AlbMultiValueHeadersSchema when multi-value', () => {
    expect(AlbSchema.safeParse(albEvent(request, { multiValue: false })).error).toBeUndefined();
    expect(AlbMultiValueHeadersSchema.safeParse(albEvent(request, { multiValue: true })).error).toBeUndefined();
  });
});

it('the schemas do reject a fixture of the wrong kind', () => {
  const request: MatrixRequest = { method: 'GET', path: '/items/1' };
  expect(APIGatewayProxyEventSchema.safeParse(httpApiEvent(request)).success).toBe(false);
  expect(APIGatewayProxyEventV2Schema.safeParse(restEvent(request)).success).toBe(false);
  expect(AlbMultiValueHeadersSchema.safeParse(albEvent(request, { multiValue: false })).success).toBe(false);
});
