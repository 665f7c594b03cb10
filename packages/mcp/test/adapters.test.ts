import { LambdaAdapter } from '@fnapi/adapters/lambda';
import { API, z } from '@fnapi/core';
import { describe, expect, it } from 'vitest';
import { mcp } from '../src/index.js';

describe('serverless adapters', () => {
  it('serve /mcp: a tool call through a Lambda HTTP API event', async () => {
    const app = new API({ logger: false });
    app.get('/books/{id}', { params: { id: z.int() }, mcp: true }, function getBook({ id }) {
      return { id, title: 'Kindred' };
    });
    app.extend(mcp());
    const domainName = 'abcdef1234.execute-api.us-east-1.amazonaws.com';
    const event = {
      version: '2.0',
      routeKey: '$default',
      rawPath: '/mcp',
      rawQueryString: '',
      headers: {
        host: domainName,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      requestContext: {
        accountId: '123456789012',
        apiId: 'abcdef1234',
        domainName,
        domainPrefix: 'abcdef1234',
        http: { method: 'POST', path: '/mcp', protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'agent/1.0' },
        requestId: 'JKJaXmPLvHcESHA=',
        routeKey: '$default',
        stage: '$default',
        time: '06/Dec/2026:10:00:00 +0000',
        timeEpoch: 1796551200000,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'getBook', arguments: { id: 4 } } }),
      isBase64Encoded: false,
    };
    const result = (await new LambdaAdapter(app).handle(event as never)) as { statusCode: number; body: string };
    expect(result.statusCode).toBe(200);
    expect(result.body).toContain('"structuredContent":{"id":4,"title":"Kindred"}');
  });
});
