/**
 * TestClient's own exchange over node:http: bodies framed whatever the method, repeated headers as
 * arrays, a stream left early, and close() letting a request in flight finish.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, Response, StreamingResponse } from '../src/index.js';
import { TestClient } from '../src/server/testing.js';

describe('TestClient', () => {
  let client: TestClient;
  let release: () => void = () => {};
  beforeAll(async () => {
    const app = new API({ logger: false });
    app.delete('/echo', async (_input, request) => ({ method: request.method, body: await request.text() }));
    app.get('/echo', async (_input, request) => ({ body: await request.text(), query: request.url.search }));
    app.get('/cookies', () => {
      const response = new Response('ok', { mediaType: 'text/plain' });
      response.headers.append('set-cookie', 'a=1');
      response.headers.append('set-cookie', 'b=2');
      return response;
    });
    app.get('/slow', () => new Promise((resolve) => (release = () => resolve({ done: true }))));
    app.get(
      '/endless',
      () =>
        new StreamingResponse(
          (async function* () {
            for (;;) {
              yield 'tick\n';
              await new Promise((resolve) => setTimeout(resolve, 10));
            }
          })(),
          { mediaType: 'text/plain' },
        ),
    );
    client = await TestClient.start(app);
  });
  afterAll(() => client.close());

  it('frames a body by its length on a DELETE and a GET, and appends the query', async () => {
    const deleted = await client.delete('/echo', { json: { id: 1 } });
    expect(deleted.json()).toEqual({ method: 'DELETE', body: '{"id":1}' });
    const got = await client.get('/echo', { body: 'é', query: { a: [1, 2] } });
    expect(got.json()).toEqual({ body: 'é', query: '?a=1&a=2' });
  });

  it('gives a repeated response header as an array, in order', async () => {
    const res = await client.get('/cookies');
    expect(res.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(res.headers['content-type']).toBe('text/plain');
  });

  it('leaves a stream early, then answers the next request', async () => {
    const stream = await client.stream('/endless');
    expect(stream.status).toBe(200);
    expect(await stream.chunk()).toContain('tick');
    stream.close();
    expect((await client.get('/cookies')).status).toBe(200);
  });

  it('close() lets a request in flight finish', async () => {
    const pending = client.get('/slow');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closing = client.close();
    release();
    await closing;
    expect((await pending).json()).toEqual({ done: true });
    client = await TestClient.start(new API({ logger: false }));
  });
});
