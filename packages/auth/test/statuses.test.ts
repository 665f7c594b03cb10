/**
 * The statuses a guard documents are the ones it can send: 401 always, 403 only where a permission
 * can be required (`apiKeyRequired` with `permissions`, an `anyOf` with such an alternative). Each
 * is checked against the wire: the 403 is really sent, and none is sent where none is documented.
 */
import { API, type Request } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anyOf, apiKeyRequired, basicAuthRequired, jwtRequired } from '../src/index.js';

const SECRET = 'a-long-test-secret-of-at-least-32-bytes!';
const KEYS = { reader: ['read'], writer: ['read', 'write'] };

type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>> };

describe('guard statuses in the document', () => {
  let client: TestClient;
  let doc: Doc;
  beforeAll(async () => {
    const app = new API({ logger: false });
    const who = (_input: unknown, request: Request) => ({ scheme: request.auth?.scheme ?? null });
    app.get('/jwt', jwtRequired({ secret: SECRET, algorithm: 'HS256' })(who));
    app.get('/basic', basicAuthRequired({ credentials: { ada: 'secret' } })(who));
    app.get('/key', apiKeyRequired({ apiKeys: KEYS })(who));
    app.get('/key/write', apiKeyRequired({ apiKeys: KEYS, permissions: ['write'] })(who));
    app.get('/any', anyOf(jwtRequired({ secret: SECRET, algorithm: 'HS256' }), basicAuthRequired({ credentials: { ada: 'secret' } }))(who));
    app.get(
      '/any/write',
      anyOf(jwtRequired({ secret: SECRET, algorithm: 'HS256' }), apiKeyRequired({ apiKeys: KEYS, permissions: ['write'] }))(who),
    );
    client = await TestClient.start(app);
    doc = (await client.get('/openapi.json')).json<Doc>();
  });
  afterAll(() => client?.close());

  const statuses = (path: string) => Object.keys(doc.paths[path]!.get!.responses);

  it('jwtRequired and basicAuthRequired document 401 and never 403', () => {
    expect(statuses('/jwt')).toEqual(['200', '204', '401']);
    expect(statuses('/basic')).toEqual(['200', '204', '401']);
    expect(statuses('/any')).toEqual(['200', '204', '401']);
  });

  it('apiKeyRequired documents 403 only with permissions, and anyOf where one alternative can', () => {
    expect(statuses('/key')).toEqual(['200', '204', '401']);
    expect(statuses('/key/write')).toEqual(['200', '204', '401', '403']);
    expect(statuses('/any/write')).toEqual(['200', '204', '401', '403']);
    expect(doc.paths['/key/write']!.get!.responses['403']!.content).toEqual({
      'application/problem+json': { schema: { $ref: '#/components/schemas/Problem403' } },
    });
  });

  it('sends the documented 403, with the status the body schema fixes', async () => {
    const refused = await client.get('/key/write', { headers: { 'x-api-key': 'reader' } });
    expect(refused.status).toBe(403);
    expect(refused.json<{ status: number }>().status).toBe(403);
    expect((await client.get('/key/write', { headers: { 'x-api-key': 'writer' } })).status).toBe(200);
    expect((await client.get('/any/write', { headers: { 'x-api-key': 'reader' } })).status).toBe(403);
    // Without a permission to lack, a known key passes and an unknown one is 401, never 403.
    expect((await client.get('/key', { headers: { 'x-api-key': 'reader' } })).status).toBe(200);
    expect((await client.get('/key', { headers: { 'x-api-key': 'nobody' } })).status).toBe(401);
    expect((await client.get('/basic', { headers: { authorization: `Basic ${btoa('ada:wrong')}` } })).status).toBe(401);
  });
});
