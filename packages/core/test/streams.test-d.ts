import { describe, expectTypeOf, it } from 'vitest';
import { API, Router, sseEvent, z, type Request } from '@fnapi/core';

const Tick = z.object({ n: z.int(), at: z.string() });

describe('streaming endpoint types', () => {
  it('infers the input and checks yielded events against the schema', () => {
    const app = new API();
    app.get('/ticks', { params: { count: z.int() }, events: Tick }, async function* ({ count }, request) {
      expectTypeOf(count).toEqualTypeOf<number>();
      expectTypeOf(request).toEqualTypeOf<Request>();
      expectTypeOf(request.lastEventId).toEqualTypeOf<string | undefined>();
      yield { n: count, at: 'now' };
      yield sseEvent({ data: { n: 1, at: 'now' }, event: 'tick', id: 1 });
    });
    // @ts-expect-error: `n` must be a number
    app.get('/bad', { events: Tick }, async function* () {
      yield { n: 'one', at: 'now' };
    });
    // @ts-expect-error: an sseEvent's data is checked too
    app.get('/bad-event', { events: Tick }, async function* () {
      yield sseEvent({ data: { n: 1 } });
    });
  });

  it('checks JSON Lines items, from any iterable', () => {
    const router = new Router();
    router.get('/export', { lines: Tick }, () => [{ n: 1, at: 'x' }]);
    router.api({ route: '/export/{id}', lines: Tick }, async function* ({ id }) {
      expectTypeOf(id).toEqualTypeOf<string>();
      yield { n: Number(id), at: 'x' };
    });
    // @ts-expect-error: missing `at`
    router.get('/broken', { lines: Tick }, async function* () {
      yield { n: 1 };
    });
  });
});
