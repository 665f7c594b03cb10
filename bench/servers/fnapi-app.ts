// The benchmark's endpoints as a user writes them in fnapi.
import { type API, z } from '@fnapi/core';
import { ITEMS, Item } from './catalogue.js';
import { User } from './user-model.js';

export function addEndpoints(app: API): API {
  app.get('/hello', () => ({ message: 'hello' }));
  app.get(
    '/users/{id}/posts/{postId}',
    { params: { id: z.int(), postId: z.int(), page: z.int().default(1), limit: z.int().default(20) } },
    ({ id, postId, page, limit }) => ({ id, postId, page, limit }),
  );
  app.post('/users', { params: { user: User }, statusCode: 201 }, ({ user }) => user);
  app.get('/items', { response: z.array(Item) }, () => ITEMS);
  return app;
}
