/** The serverless adapters cannot hold a WebSocket: an upgrade request to a WebSocket route is 426. */
import { API } from '@fnapi/core';
import { describe, expect, it } from 'vitest';
import { type APIGatewayProxyResultV2, LambdaAdapter } from '../src/lambda.js';
import { httpApiEvent } from './fixtures/events.js';

describe('WebSocket routes on a serverless adapter', () => {
  it('answers an upgrade request 426 with Upgrade: websocket, as app.fetch on Node does', async () => {
    const app = new API({ logger: false });
    app.ws('/live', {}, async () => {});
    const headers = {
      upgrade: 'websocket',
      connection: 'Upgrade',
      'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      'sec-websocket-version': '13',
    };
    const result = (await new LambdaAdapter(app).handle(
      httpApiEvent({ method: 'GET', path: '/live', headers }),
    )) as APIGatewayProxyResultV2 & {
      statusCode: number;
      headers: Record<string, string>;
    };
    expect(result.statusCode).toBe(426);
    expect(result.headers.upgrade).toBe('websocket');
    const fetched = await app.fetch(new Request('http://localhost/live', { headers }));
    expect(fetched.status).toBe(426);
    expect(fetched.headers.get('upgrade')).toBe('websocket');
    expect(((await fetched.json()) as { status: number }).status).toBe(426);
  });
});
