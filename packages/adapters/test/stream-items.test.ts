/**
 * An `events` endpoint through every adapter: where the platform streams, the first event reaches
 * the client while the generator is still held after it; where it cannot (Lambda's buffered
 * `handle`, Netlify Functions v1), the whole stream is sent at its end, with the stream's headers.
 */
import { HttpRequest, HttpResponse } from '@azure/functions';
import { API, z } from '@fnapi/core';
import { installLambdaRuntime, invokeStreaming } from '@fnapi/test-support/lambda-runtime';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AzureFunctionAdapter } from '../src/azure.js';
import { type APIGatewayProxyResultV2, LambdaAdapter } from '../src/lambda.js';
import { NetlifyAdapter } from '../src/netlify.js';
import { functionUrlEvent, httpApiEvent, netlifyEvent } from './fixtures/events.js';
import { HTTP_ADAPTERS, serveDuringTests } from './support/http.js';

const FIRST = 'data: {"n":0}\n\n';
const WHOLE = `${FIRST}data: {"n":1}\n\n`;

/** `/ticks?gate=<id>` yields one event, waits for `release(id)`, yields another. */
function createEventsApp() {
  const gates = new Map<string, () => void>();
  const waits = new Map<string, Promise<void>>();
  const gate = (id: string) => {
    if (!waits.has(id)) waits.set(id, new Promise<void>((resolve) => gates.set(id, resolve)));
    return waits.get(id)!;
  };
  const app = new API({ logger: false });
  app.get('/ticks', { params: { gate: z.string().optional() }, events: z.object({ n: z.int() }) }, async function* ({ gate: id }) {
    yield { n: 0 };
    if (id !== undefined) await gate(id);
    yield { n: 1 };
  });
  return {
    app,
    release: (id: string) => {
      gate(id);
      gates.get(id)!();
    },
  };
}

describe.each(HTTP_ADAPTERS)('$name streams events', ({ server: make }) => {
  const { app, release } = createEventsApp();
  const served = serveDuringTests(() => make(app));

  it('delivers the first event while the generator is held', async () => {
    const response = await request(`${served.base()}/ticks?gate=live`);
    expect(response.headers['content-type']).toBe('text/event-stream');
    expect(response.headers['cache-control']).toBe('no-cache');
    const iterator = response.body[Symbol.asyncIterator]();
    expect(Buffer.from((await iterator.next()).value).toString()).toBe(FIRST);
    release('live');
    let rest = '';
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest += Buffer.from(next.value).toString();
    expect(rest).toBe('data: {"n":1}\n\n');
  });
});

describe('AzureFunctionAdapter and Netlify Functions v2 stream events', () => {
  it('Azure: the body stream yields the first event while the generator is held', async () => {
    const { app, release } = createEventsApp();
    const init = await new AzureFunctionAdapter(app).handle(new HttpRequest({ method: 'GET', url: 'https://f.example/ticks?gate=az' }), {});
    const response = new HttpResponse(init);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(Buffer.from((await reader.read()).value!).toString()).toBe(FIRST);
    release('az');
    expect(Buffer.from((await reader.read()).value!).toString()).toBe('data: {"n":1}\n\n');
  });

  it('Netlify v2: the Web Response body yields the first event while the generator is held', async () => {
    const { app, release } = createEventsApp();
    const response = await new NetlifyAdapter(app).handle(new Request('https://site.example/ticks?gate=nf'), {});
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = response.body!.getReader();
    expect(Buffer.from((await reader.read()).value!).toString()).toBe(FIRST);
    release('nf');
    expect(Buffer.from((await reader.read()).value!).toString()).toBe('data: {"n":1}\n\n');
  });
});

describe('LambdaAdapter', () => {
  let runtime: { uninstall(): void };
  beforeAll(() => {
    runtime = installLambdaRuntime();
  });
  afterAll(() => runtime.uninstall());

  it('streamHandler() writes each event as it is yielded', async () => {
    const { app, release } = createEventsApp();
    let firstSeenHeld = false;
    const result = await invokeStreaming(
      new LambdaAdapter(app).streamHandler(),
      functionUrlEvent({ method: 'GET', path: '/ticks', query: [['gate', 'lambda']] }),
      {
        onWrite(bytes) {
          if (bytes.toString() === FIRST) {
            firstSeenHeld = true;
            release('lambda');
          }
        },
      },
    );
    expect(firstSeenHeld).toBe(true);
    expect(result.prelude).toMatchObject({
      statusCode: 200,
      headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' },
    });
    expect(result.writes.map((write) => write.bytes.toString())).toEqual([FIRST, 'data: {"n":1}\n\n']);
  });

  it('handle() (buffered) sends the whole stream at its end', async () => {
    const { app } = createEventsApp();
    const result = (await new LambdaAdapter(app).handle(httpApiEvent({ method: 'GET', path: '/ticks' }))) as APIGatewayProxyResultV2;
    expect(result.statusCode).toBe(200);
    expect(result.headers?.['content-type']).toBe('text/event-stream');
    expect(result.body).toBe(WHOLE);
  });

  it('Netlify v1 (a REST event) sends the whole stream at its end', async () => {
    const { app } = createEventsApp();
    const result = (await new NetlifyAdapter(app, { stripFunctionPath: true }).handle(
      netlifyEvent({ method: 'GET', path: '/ticks' }),
      {},
    )) as {
      body: string;
      headers: Record<string, string>;
    };
    expect(result.headers['content-type']).toBe('text/event-stream');
    expect(result.body).toBe(WHOLE);
  });
});
