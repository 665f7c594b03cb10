/**
 * `createLogger` redacts a header an auth function marks as a credential (`markCredentialHeader`, as
 * `apiKeyRequired({ header: 'X-Service-Token' })` does), even when the mark comes after the logger was
 * made: at the top level, one object deep, under `headers` and in a serializer's output — and over
 * real HTTP, with `LoggingMiddleware` at trace level.
 */
import { Writable } from 'node:stream';
import { API, type Request } from '@fnapi/core';
import { markCredentialHeader } from '@fnapi/core/extend';
import { TestClient } from '@fnapi/core/testing';
import { LoggingMiddleware } from '@fnapi/middleware';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/index.js';

function sink(): { lines: Record<string, unknown>[]; text: () => string; stream: Writable } {
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      raw.push(String(chunk));
      done();
    },
  });
  return {
    stream,
    text: () => raw.join(''),
    get lines() {
      return raw.map((line) => JSON.parse(line) as Record<string, unknown>);
    },
  };
}

describe('createLogger and marked credential headers', () => {
  it('redacts a header marked after the logger was made, wherever the default paths reach', () => {
    const out = sink();
    const logger = createLogger(
      {
        level: 'trace',
        serializers: { req: (req: { token: string }) => ({ method: 'GET', headers: { 'x-service-token': req.token } }) },
        formatters: { log: (fields) => ({ ...fields, formatted: true }) },
      },
      out.stream,
    );
    const fields = { headers: { 'x-service-token': 'secret123', accept: 'json' } };
    logger.trace(fields, 'before');
    markCredentialHeader('X-Service-Token');
    logger.trace(fields, 'after');
    logger.trace({ 'X-Service-Token': 'secret123', call: { 'x-service-token': 'secret123', 'user-agent': 'curl' } }, 'flat');
    logger.trace({ upstream: { headers: { 'X-Service-Token': 'secret123' } } }, 'nested');
    logger.trace({ req: { token: 'secret123' } }, 'serialized');
    const [before, after, flat, nested, serialized] = out.lines;

    // Unmarked, the header is an ordinary one: the check above could fail.
    expect(before!.headers).toEqual({ 'x-service-token': 'secret123', accept: 'json' });
    expect(after!.headers).toEqual({ 'x-service-token': '[REDACTED]', accept: 'json' });
    expect(after!.formatted).toBe(true);
    expect(flat).toMatchObject({ 'X-Service-Token': '[REDACTED]', call: { 'x-service-token': '[REDACTED]', 'user-agent': 'curl' } });
    expect(nested!.upstream).toEqual({ headers: { 'X-Service-Token': '[REDACTED]' } });
    expect(serialized!.req).toEqual({ method: 'GET', headers: { 'x-service-token': '[REDACTED]' } });
    expect(out.text().split('secret123').length - 1).toBe(1);
    // The logged object itself is left as it was.
    expect(fields.headers['x-service-token']).toBe('secret123');
  });

  it('keeps a marked header out of every line of a request at trace level', async () => {
    markCredentialHeader('X-Service-Token');
    const out = sink();
    const logger = createLogger({ level: 'trace' }, out.stream);
    const app = new API({ logger });
    app.addMiddleware(new LoggingMiddleware({ logger, level: 'trace' }));
    app.get('/echo', (_input, request: Request) => {
      logger.trace({ headers: Object.fromEntries(request.headers) }, 'incoming');
      return { ok: true };
    });
    const client = await TestClient.start(app);
    try {
      expect((await client.get('/echo', { headers: { 'X-Service-Token': 'secret123' } })).status).toBe(200);
    } finally {
      await client.close();
    }
    const logged = out.text();
    expect(logged).toContain('"msg":"request completed"');
    expect(logged).toContain('"x-service-token":"[REDACTED]"');
    expect(logged).not.toContain('secret123');
  });
});
