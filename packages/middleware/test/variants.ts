import { API, Response } from '@fnapi/core';
import type { CacheMiddleware } from '../src/index.js';

/**
 * An app behind `cache` whose `/items` has variants (query strings, `Vary: Accept-Language`) beside a
 * neighbour `/items/{id}` and one more route of the caller's: for `invalidate(path)` tests of every store.
 */
export function variantsApp(cache: CacheMiddleware, neighbour: string): API {
  const app = new API({ logger: false });
  app.addMiddleware(cache);
  let n = 0;
  app.get(
    '/items',
    (_input, request) => new Response({ n: ++n, q: request.queryParams.toString() }, { headers: { vary: 'Accept-Language' } }),
  );
  app.get('/items/{id}', ({ id }) => ({ id, n: ++n }));
  app.get(neighbour, () => ({ n: ++n }));
  return app;
}
