import { jsonLines } from '@fnapi/test-support';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API } from '@fnapi/core';
import { type ALBResult, type APIGatewayProxyResult, type APIGatewayProxyResultV2, LambdaAdapter } from '../src/lambda.js';
import { createMatrixApp, PNG, STREAM_CHUNKS } from './fixtures/app.js';
import { albEvent, functionUrlEvent, httpApiEvent, type MatrixRequest, restEvent } from './fixtures/events.js';
import { installLambdaRuntime, invokeStreaming } from '@fnapi/test-support/lambda-runtime';

const item: MatrixRequest = { method: 'GET', path: '/items/42', query: [['q', 'x']] };
const bodyOf = (result: { body: string }) => JSON.parse(result.body) as Record<string, unknown>;

describe('paths: stage and base path', () => {
  const { app } = createMatrixApp();

  it('a named stage stays in a v2 rawPath unless stripStagePath is set', async () => {
    const event = httpApiEvent(item, { stage: 'prod' });
    expect(event.rawPath).toBe('/prod/items/42');
    const kept = (await new LambdaAdapter(app).handle(event)) as APIGatewayProxyResultV2;
    expect(kept.statusCode).toBe(404);
    const stripped = (await new LambdaAdapter(app, { stripStagePath: true }).handle(event)) as APIGatewayProxyResultV2;
    expect(stripped.statusCode).toBe(200);
    expect(bodyOf(stripped).path).toBe('/items/42');
  });

  it('stripStagePath removes /<stage> from a REST path that carries it', async () => {
    const event = restEvent(item, { stage: 'dev', pathPrefix: '/dev' });
    const result = (await new LambdaAdapter(app, { stripStagePath: true }).handle(event)) as APIGatewayProxyResult;
    expect(bodyOf(result).path).toBe('/items/42');
  });

  it('never strips the $default stage', async () => {
    const event = httpApiEvent({ method: 'GET', path: '/$default/items/1' });
    const result = (await new LambdaAdapter(app, { stripStagePath: true }).handle(event)) as APIGatewayProxyResultV2;
    expect(result.statusCode).toBe(404);
  });

  it('basePath removes a custom domain mapping, in both payload formats and with a stage', async () => {
    const adapter = new LambdaAdapter(app, { basePath: '/v1', stripStagePath: true });
    const v1 = (await adapter.handle(restEvent(item, { pathPrefix: '/v1' }))) as APIGatewayProxyResult;
    const v2 = (await adapter.handle(httpApiEvent(item, { stage: 'prod', pathPrefix: '/v1' }))) as APIGatewayProxyResultV2;
    expect([v1.statusCode, bodyOf(v1).path, v2.statusCode, bodyOf(v2).path]).toEqual([200, '/items/42', 200, '/items/42']);
    // Only a whole segment is a prefix: /v10 is not under /v1.
    const other = (await adapter.handle(httpApiEvent({ method: 'GET', path: '/v10/items/1' }))) as APIGatewayProxyResultV2;
    expect(other.statusCode).toBe(404);
  });

  it('re-encodes a decoded REST path so the router decodes it once', async () => {
    const special = new API({ logger: false });
    special.api({ route: '/files/{name}', params: { name: (await import('@fnapi/core')).z.string() } }, ({ name }) => ({ name }));
    const event = restEvent({ method: 'GET', path: '/files/a%20b%25c' });
    expect(event.path).toBe('/files/a b%c');
    const result = (await new LambdaAdapter(special).handle(event)) as APIGatewayProxyResult;
    expect(bodyOf(result)).toEqual({ name: 'a b%c' });
  });
});

describe('bodies', () => {
  it('with enableBinaryResponse: false, bodies go out as text', async () => {
    const { app } = createMatrixApp();
    const text = (await new LambdaAdapter(app, { enableBinaryResponse: false }).handle(httpApiEvent(item))) as APIGatewayProxyResultV2;
    expect(text.isBase64Encoded).toBe(false);
    const binary = (await new LambdaAdapter(app).handle(httpApiEvent({ method: 'GET', path: '/image' }))) as APIGatewayProxyResultV2;
    expect([binary.isBase64Encoded, Buffer.from(binary.body, 'base64').equals(PNG)]).toEqual([true, true]);
  });

  it('answers 413 to a body over the app’s limit', async () => {
    const { app } = createMatrixApp({ bodyLimit: 64 });
    const big = {
      method: 'POST',
      path: '/users',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x'.repeat(100), age: 1 }),
    };
    for (const event of [httpApiEvent(big), restEvent(big), albEvent(big, { multiValue: true })]) {
      const result = (await new LambdaAdapter(app).handle(event)) as { statusCode: number };
      expect(result.statusCode).toBe(413);
    }
  });
});

describe('ALB without multi-value headers', () => {
  it('sends the last Set-Cookie and logs the names of the dropped ones', async () => {
    const log = jsonLines();
    const { app } = createMatrixApp({ logger: pino(log.stream) });
    const result = (await new LambdaAdapter(app).handle(albEvent({ method: 'GET', path: '/cookies' }, { multiValue: false }))) as ALBResult;
    expect(result.headers?.['set-cookie']).toBe('theme=dark; Path=/; Max-Age=3600');
    expect(result.statusDescription).toBe('200 OK');
    const warning = log.lines.find((line) => String(line.msg).includes('Set-Cookie'));
    expect(warning).toMatchObject({ level: 40, dropped: ['session'] });
  });
});

describe('events and failures', () => {
  it('refuses an event that is no HTTP event, naming what it expected', async () => {
    const { app } = createMatrixApp();
    await expect(new LambdaAdapter(app).handle({ Records: [] } as never)).rejects.toThrow(/API Gateway .* Function URL or ALB/);
  });

  it('a failing startup answers 503 instead of serving half-started', async () => {
    const app = new API({ logger: false });
    let handled = 0;
    app.onStartup(() => {
      throw new Error('database unreachable');
    });
    app.api({ route: '/ok' }, () => ({ ok: ++handled }));
    const result = (await new LambdaAdapter(app).handle(httpApiEvent({ method: 'GET', path: '/ok' }))) as {
      statusCode: number;
      body: string;
    };
    expect(result.statusCode).toBe(503);
    expect(result.body).not.toContain('database unreachable');
    expect(handled).toBe(0);
  });

  it('passes the event and context on in request.state.platform', async () => {
    const app = new API({ logger: false });
    app.api({ route: '/who' }, (_input, request) => {
      const platform = request.state.platform as { name: string; context: { awsRequestId: string } };
      return { name: platform.name, id: platform.context.awsRequestId };
    });
    const result = (await new LambdaAdapter(app).handle(functionUrlEvent({ method: 'GET', path: '/who' }), {
      awsRequestId: 'r-1',
    })) as APIGatewayProxyResultV2;
    expect(bodyOf(result)).toEqual({ name: 'lambda', id: 'r-1' });
  });
});

describe('streamHandler()', () => {
  let runtime: { uninstall(): void };
  beforeAll(() => {
    runtime = installLambdaRuntime();
  });
  afterAll(() => runtime.uninstall());

  it('says what it needs outside the Lambda runtime', () => {
    runtime.uninstall();
    try {
      const { app } = createMatrixApp();
      expect(() => new LambdaAdapter(app).streamHandler()).toThrow(/awslambda/);
    } finally {
      runtime = installLambdaRuntime();
    }
  });

  it('writes status, headers and cookies in the prelude, then each chunk as it is produced (Function URL)', async () => {
    const { app, gates } = createMatrixApp();
    const handler = new LambdaAdapter(app).streamHandler();
    let firstChunkSeen = false;
    const invocation = invokeStreaming(handler, functionUrlEvent({ method: 'GET', path: '/stream', query: [['gate', 'url']] }), {
      onWrite(bytes) {
        // The stream is held after its first chunk: that chunk must already be on the wire.
        if (bytes.toString('utf8') === STREAM_CHUNKS[0]) {
          firstChunkSeen = true;
          gates.release('url');
        }
      },
    });
    const result = await invocation;
    expect(firstChunkSeen).toBe(true);
    expect(result.contentType).toBe('application/vnd.awslambda.http-integration-response');
    expect(result.prelude).toEqual({
      statusCode: 200,
      headers: { 'content-type': 'text/plain; charset=utf-8', 'x-started': 'true' },
      cookies: ['streamed=yes; Path=/'],
    });
    expect(result.body.toString('utf8')).toBe(STREAM_CHUNKS.join(''));
    expect(result.writes.map((w) => w.bytes.toString('utf8'))).toEqual(STREAM_CHUNKS);
  });

  it('uses headers and multiValueHeaders in the prelude of a REST API event', async () => {
    const { app } = createMatrixApp();
    const result = await invokeStreaming(new LambdaAdapter(app).streamHandler(), restEvent({ method: 'GET', path: '/cookies' }));
    expect(result.prelude).toMatchObject({
      statusCode: 200,
      headers: { 'content-type': 'application/json', 'x-started': 'true' },
      multiValueHeaders: {
        'set-cookie': ['session=abc123; Path=/; HttpOnly; SameSite=Lax', 'theme=dark; Path=/; Max-Age=3600'],
        vary: ['Accept', 'Cookie'],
      },
    });
    expect(result.prelude).not.toHaveProperty('cookies');
    expect(JSON.parse(result.body.toString('utf8'))).toEqual({ ok: true });
  });

  it('streams error statuses and empty bodies too', async () => {
    const { app } = createMatrixApp();
    const handler = new LambdaAdapter(app).streamHandler();
    const missing = await invokeStreaming(handler, httpApiEvent({ method: 'GET', path: '/missing' }));
    expect(missing.prelude.statusCode).toBe(404);
    expect(JSON.parse(missing.body.toString('utf8'))).toMatchObject({ status: 404 });
    const head = await invokeStreaming(handler, httpApiEvent({ method: 'HEAD', path: '/items/1' }));
    expect([head.prelude.statusCode, head.body.byteLength]).toEqual([200, 0]);
  });

  it('waits for drain when the stream is full, losing and reordering nothing', async () => {
    const { app } = createMatrixApp();
    const result = await invokeStreaming(
      new LambdaAdapter(app).streamHandler(),
      functionUrlEvent({ method: 'GET', path: '/stream', query: [['chunks', '200']] }),
      {
        delayMs: 0,
      },
    );
    expect(result.backpressureWaits).toBeGreaterThan(0);
    expect(result.body.byteLength).toBe(200 * 1024);
    const indices = result.writes.map((w) => Number(w.bytes.subarray(0, 4).toString('utf8')));
    expect(indices).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });

  it('stops producing when the client goes away, without failing the invocation', async () => {
    const { app, gates } = createMatrixApp();
    const handler = new LambdaAdapter(app).streamHandler();
    let stream: import('node:stream').Writable | undefined;
    const done = invokeStreaming(
      async (event, responseStream, context) => {
        stream = responseStream;
        return handler(event, responseStream, context);
      },
      functionUrlEvent({ method: 'GET', path: '/stream', query: [['gate', 'gone']] }),
      {
        onWrite(bytes) {
          if (bytes.toString('utf8') === STREAM_CHUNKS[0]) {
            stream?.destroy();
            gates.release('gone');
          }
        },
      },
    );
    const result = await done;
    expect(result.writes.map((w) => w.bytes.toString('utf8'))).toEqual([STREAM_CHUNKS[0]]);
    expect(await gates.closed('gone')).toBe('stopped');
  });
});
