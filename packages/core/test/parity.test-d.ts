import { describe, expectTypeOf, it } from 'vitest';
import { API, binary, FileResponse, Response, sseEvent, z } from '@fnapi/core';

const Tick = z.object({ n: z.int() });

describe('parity types', () => {
  it('comments and raw events fit any event stream', () => {
    const app = new API();
    app.get('/ticks', { events: Tick }, async function* () {
      yield sseEvent({ comment: 'hello' });
      yield sseEvent({ data: 'plain', raw: true });
      yield { n: 1 };
    });
    // @ts-expect-error: raw data is a string
    sseEvent({ data: 1, raw: true });
  });

  it('named events check each name by its schema', () => {
    const app = new API();
    app.get('/feed', { events: { welcome: z.object({ hi: z.string() }), tick: Tick } }, async function* () {
      yield sseEvent({ event: 'welcome', data: { hi: 'x' } });
      yield sseEvent({ event: 'tick', data: { n: 1 } });
    });
    // @ts-expect-error: data that fits no named schema
    app.get('/bad-feed', { events: { tick: Tick } }, async function* () {
      yield sseEvent({ event: 'tick', data: { n: 'one' } });
    });
  });

  it('a {name:path} segment is a string parameter', () => {
    const app = new API();
    app.get('/files/{file_path:path}', { params: { n: z.int().optional() } }, ({ file_path, n }) => {
      expectTypeOf(file_path).toEqualTypeOf<string>();
      return { file_path, n };
    });
  });

  it('a binary() endpoint answers with a Response', () => {
    const app = new API();
    app.get('/file', { response: binary(['application/pdf']) }, () => new FileResponse(new Uint8Array([1])));
    app.get('/web', { response: binary(['image/png']) }, () => new globalThis.Response(new Uint8Array([1])));
    // @ts-expect-error: data is not a file
    app.get('/data', { response: binary(['application/pdf']) }, () => ({ pdf: true }));
  });

  it('cookies and response headers', () => {
    const app = new API();
    app.get('/login', { responseExcludeUnset: true }, (_input, request) => {
      request.setCookie('s', 'v', { maxAge: 60, sameSite: 'strict', secure: true, partitioned: true });
      request.deleteCookie('old', { path: '/app' });
      expectTypeOf(request.responseHeaders).toEqualTypeOf<Headers>();
      return new Response('ok').setCookie('a', 'b').deleteCookie('c');
    });
  });
});
