/**
 * An API key in a header outside core's usual credential list (`X-Service-Token`): the guard marks the
 * header, so neither the request log (`LoggingPlugin`) nor the per-request line (`LoggingMiddleware`)
 * nor the app's own logger at its most talkative ever writes the key — on the guarded route or any other.
 */
import { API, type Request } from '@fnapi/core';
import { isCredentialHeader } from '@fnapi/core/extend';
import { TestClient } from '@fnapi/core/testing';
import { LoggingMiddleware } from '@fnapi/middleware';
import { LoggingPlugin } from '@fnapi/plugins';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyRequired } from '../src/index.js';

describe('an API key in a custom header', () => {
  let client: TestClient;
  const lines: string[] = [];
  const stream = { write: (line: string) => void lines.push(line) };
  const markedBefore = isCredentialHeader('X-Service-Token');
  beforeAll(async () => {
    const logger = pino({ level: 'trace' }, stream);
    const app = new API({ logger });
    app.addMiddleware(new LoggingMiddleware({ logger, level: 'trace' }));
    // The request log is made before the guard marks its header: it asks per request.
    app.pluginManager.register(new LoggingPlugin({ logLevel: 'TRACE', logToConsole: false, stream, logRequestBody: true }));
    const serviceOnly = apiKeyRequired({ header: 'X-Service-Token', apiKeys: { secret123: ['read'] } });
    app.get(
      '/service',
      serviceOnly((_input, request: Request) => ({ permissions: request.auth!.permissions })),
    );
    app.get('/open', () => ({ ok: true }));
    client = await TestClient.start(app);
  });
  afterAll(() => client?.close());

  it('the guard reads the key from that header, and only from it', async () => {
    expect((await client.get('/service', { headers: { 'X-Service-Token': 'secret123' } })).json()).toEqual({ permissions: ['read'] });
    expect((await client.get('/service', { headers: { 'x-service-token': 'wrong-secret456' } })).status).toBe(401);
    expect((await client.get('/service', { headers: { 'X-API-Key': 'secret123' } })).status).toBe(401);
  });

  it('marks the header as a credential, whatever its case', () => {
    expect(markedBefore).toBe(false);
    expect(isCredentialHeader('X-Service-Token')).toBe(true);
    expect(isCredentialHeader('x-SERVICE-token')).toBe(true);
    expect(isCredentialHeader('x-service')).toBe(false);
  });

  it('refuses a header option that names no header', () => {
    expect(() => apiKeyRequired({ header: '', apiKeys: { secret123: [] } })).toThrow('apiKeyRequired: header must be a header name');
    expect(() => apiKeyRequired({ header: 42 as never, apiKeys: { secret123: [] } })).toThrow(TypeError);
  });

  it('no log line carries the key, accepted, refused or on an unguarded route', async () => {
    lines.length = 0;
    await client.get('/service', { headers: { 'X-Service-Token': 'secret123', 'X-Trace-Note': 'visible-note' } });
    await client.get('/service', { headers: { 'X-Service-Token': 'wrong-secret456' } });
    await client.get('/open', { headers: { 'X-SERVICE-TOKEN': 'secret123' } });
    await client.post('/open', { headers: { 'x-service-token': 'secret123' }, body: 'plain body' });
    const logged = lines.join('');
    // Both loggers wrote, and the request log lists the header with its value replaced.
    expect(logged).toContain('"msg":"request completed"');
    expect(logged).toContain('"event":"request"');
    expect(logged).toContain('"x-service-token":"[REDACTED]"');
    expect(logged).toContain('"x-trace-note":"visible-note"');
    expect(logged).not.toContain('secret123');
    expect(logged).not.toContain('wrong-secret456');
  });
});
