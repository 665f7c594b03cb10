import { HttpRequest, HttpResponse } from '@azure/functions';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { AzureFunctionAdapter } from '../src/azure.js';
import { NetlifyAdapter } from '../src/netlify.js';
import { createMatrixApp, STREAM_CHUNKS } from './fixtures/app.js';
import { HTTP_ADAPTERS, serveDuringTests } from './support/http.js';

// A streamed answer reaches the client as it is produced (the first chunk arrives while the
// producer is still held), and a client that goes away stops the producer without crashing anything.

describe.each(HTTP_ADAPTERS)('$name over HTTP', ({ server: make }) => {
  const { app, gates } = createMatrixApp();
  const served = serveDuringTests(() => make(app));

  it('delivers the first chunk before the producer goes on', async () => {
    const response = await request(`${served.base()}/stream?gate=live`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['set-cookie']).toBe('streamed=yes; Path=/');
    const iterator = response.body[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(Buffer.from(first.value).toString('utf8')).toBe(STREAM_CHUNKS[0]);
    gates.release('live');
    let rest = '';
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest += Buffer.from(next.value).toString('utf8');
    expect(rest).toBe(STREAM_CHUNKS.slice(1).join(''));
    expect(await gates.closed('live')).toBe('completed');
  });

  it('stops the producer when the client disconnects, and keeps serving', async () => {
    const response = await request(`${served.base()}/stream?gate=cut`);
    const iterator = response.body[Symbol.asyncIterator]();
    await iterator.next();
    response.body.destroy();
    // Released once the server saw the client go: the producer must then stop, not finish.
    await gates.disconnected('cut');
    gates.release('cut');
    expect(await gates.closed('cut')).toBe('stopped');
    const again = await request(`${served.base()}/items/1`);
    expect(again.statusCode).toBe(200);
    await again.body.text();
  });

  it('pushes a large stream through with backpressure, intact and in order', async () => {
    const response = await request(`${served.base()}/stream?chunks=2000`);
    const body = Buffer.from(await response.body.arrayBuffer());
    expect(body.byteLength).toBe(2000 * 1024);
    for (const i of [0, 999, 1999]) expect(body.subarray(i * 1024, i * 1024 + 4).toString()).toBe(String(i).padStart(4, '0'));
  });
});

describe('AzureFunctionAdapter', () => {
  it('hands a streamed body on as a stream the host reads as it is produced; cancelling stops it', async () => {
    const { app, gates } = createMatrixApp();
    const adapter = new AzureFunctionAdapter(app);
    const live = new HttpResponse(
      await adapter.handle(new HttpRequest({ method: 'GET', url: 'https://f.azurewebsites.net/stream?gate=az' }), {}),
    );
    const reader = (live.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(Buffer.from(first.value!).toString('utf8')).toBe(STREAM_CHUNKS[0]);
    gates.release('az');
    let rest = '';
    for (let next = await reader.read(); !next.done; next = await reader.read()) rest += Buffer.from(next.value).toString('utf8');
    expect(rest).toBe(STREAM_CHUNKS.slice(1).join(''));

    const cut = await adapter.handle(new HttpRequest({ method: 'GET', url: 'https://f.azurewebsites.net/stream?gate=az-cut' }), {});
    const cutReader = (new HttpResponse(cut).body as ReadableStream<Uint8Array>).getReader();
    await cutReader.read();
    await cutReader.cancel();
    gates.release('az-cut');
    expect(await gates.closed('az-cut')).toBe('stopped');
  });
});

describe('NetlifyAdapter, Functions v2', () => {
  it('streams the Web Response body; cancelling it stops the producer', async () => {
    const { app, gates } = createMatrixApp();
    const adapter = new NetlifyAdapter(app);
    const response = await adapter.handle(new Request('https://site.netlify.app/stream?gate=nf'), {});
    const reader = response.body!.getReader();
    expect(Buffer.from((await reader.read()).value!).toString('utf8')).toBe(STREAM_CHUNKS[0]);
    await reader.cancel();
    gates.release('nf');
    expect(await gates.closed('nf')).toBe('stopped');
  });

  it('leaves /.netlify/functions/<name> in the path unless stripFunctionPath is set', async () => {
    const { app } = createMatrixApp();
    const url = 'https://site.netlify.app/.netlify/functions/api/items/5';
    expect((await new NetlifyAdapter(app).handle(new Request(url), {})).status).toBe(404);
    const stripped = await new NetlifyAdapter(app, { stripFunctionPath: true }).handle(new Request(url), {});
    expect(await stripped.json()).toMatchObject({ item_id: 5, path: '/items/5' });
  });
});
