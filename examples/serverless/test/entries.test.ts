import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpRequest } from '@azure/functions';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import { installLambdaRuntime, invokeStreaming } from '@fnapi/test-support/lambda-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Each platform's entry file, imported as the platform imports it, answers a request.

const v2Event = (path: string, init: { method?: string; body?: string } = {}) => ({
  version: '2.0',
  routeKey: '$default',
  rawPath: path,
  rawQueryString: '',
  headers: { host: 'example.lambda-url.us-east-1.on.aws', 'content-type': 'application/json' },
  requestContext: {
    accountId: '123456789012',
    apiId: 'example',
    domainName: 'example.lambda-url.us-east-1.on.aws',
    domainPrefix: 'example',
    http: { method: init.method ?? 'GET', path, protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'test' },
    requestId: 'r',
    routeKey: '$default',
    stage: '$default',
    time: '24/Nov/2026:10:00:00 +0000',
    timeEpoch: 1795514400000,
  },
  body: init.body,
  isBase64Encoded: false,
});

async function listen(server: ReturnType<typeof createServer>): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('serverless example entries', () => {
  let runtime: { uninstall(): void };
  beforeAll(() => {
    runtime = installLambdaRuntime();
  });
  afterAll(() => runtime.uninstall());

  it('lambda.ts answers an HTTP API event, and a 422 for a bad body', async () => {
    const { handler } = await import('../src/lambda.js');
    const hello = (await handler(v2Event('/hello'))) as { statusCode: number; body: string };
    expect([hello.statusCode, JSON.parse(hello.body)]).toEqual([200, { message: 'hello' }]);
    const bad = (await handler(v2Event('/users', { method: 'POST', body: '{"name":"A"}' }))) as { statusCode: number };
    expect(bad.statusCode).toBe(422);
  });

  it('lambda-stream.ts streams /countdown line by line', async () => {
    const { handler } = await import('../src/lambda-stream.js');
    const result = await invokeStreaming(handler, v2Event('/countdown'));
    expect(result.prelude.statusCode).toBe(200);
    expect(result.writes.map((w) => w.bytes.toString('utf8'))).toEqual(['3\n', '2\n', '1\n', 'liftoff\n']);
  });

  it('cloud-function.ts registers `api` with the functions framework', async () => {
    await import('../src/cloud-function.js');
    const server = getTestServer('api');
    const base = await listen(server);
    try {
      const response = await fetch(`${base}/users/1/posts/2?page=3`);
      expect(await response.json()).toEqual({ id: 1, postId: 2, page: 3, limit: 20 });
    } finally {
      server.close();
    }
  });

  it('azure.ts answers an @azure/functions HttpRequest', async () => {
    const { handler } = await import('../src/azure.js');
    const response = await handler(new HttpRequest({ method: 'GET', url: 'https://example.azurewebsites.net/hello' }), {});
    expect(response.status).toBe(200);
    expect(JSON.parse(Buffer.from(response.body as Uint8Array).toString('utf8'))).toEqual({ message: 'hello' });
  });

  it('api/index.ts (Vercel) serves node:http requests', async () => {
    const handler = (await import('../api/index.js')).default;
    const server = createServer(handler);
    const base = await listen(server);
    try {
      const response = await fetch(`${base}/users`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Ada', email: 'ada@example.com', age: 36 }),
      });
      expect(response.status).toBe(201);
      expect(await response.json()).toMatchObject({ name: 'Ada', role: 'user' });
    } finally {
      server.close();
    }
  });

  it('netlify/functions/api.ts (v2) answers a Web Request under the function path', async () => {
    const handler = (await import('../netlify/functions/api.js')).default;
    const response = await handler(new Request('https://site.netlify.app/.netlify/functions/api/hello'), {});
    expect(await response.json()).toEqual({ message: 'hello' });
  });
});
