/**
 * Apps for the documentation tests: one that uses every endpoint option, and one with a custom
 * validation error format. Both are silent (`logger: false`).
 */
import { API, body, cookie, header, NotFoundError, query, Router, z } from '@fnapi/core';

/** The whole-body model shared by `POST /items` and `PUT /items/{item_id}`. */
export const Item = z
  .object({
    name: z.string().min(1).max(80),
    price: z.number().min(0),
    tags: z.array(z.string()).default([]),
  })
  .meta({ id: 'Item' });

export const StoredItem = z.object({ id: z.int(), name: z.string(), price: z.number(), tags: z.array(z.string()) });

/** Seconds the `/slow` endpoint may take before it answers 504. */
export const SLOW_TIMEOUT = 0.05;

export function createEverythingApp(): API {
  const app = new API({ title: 'Everything', description: 'Every endpoint option at once', version: '2.0.0', logger: false });
  const items = new Map<number, z.infer<typeof StoredItem>>([[1, { id: 1, name: 'Pen', price: 1.5, tags: [] }]]);
  let nextId = 2;

  app.api(
    {
      route: '/items/{item_id}',
      method: 'GET',
      operationId: 'readItem',
      summary: 'Read an item',
      description: 'One item by id, with request metadata from a header, a cookie and the query.',
      tags: ['items'],
      params: {
        item_id: z.int().min(1),
        x_request_id: header(z.string().optional()),
        session: cookie(z.string()),
        verbose: query(z.boolean().default(false)),
      },
      response: StoredItem,
    },
    ({ item_id }) => {
      const item = items.get(item_id);
      if (!item) throw new NotFoundError(`Item ${item_id} not found`);
      return { ...item, secret: 'dropped by the response model' };
    },
  );

  app.api(
    {
      route: '/items',
      method: 'GET',
      summary: 'List items',
      tags: ['items'],
      params: {
        q: z.string().min(2).max(50).optional(),
        page: z.int().min(1).default(1),
        limit: z.int().min(1).max(100),
        sort: z.enum(['asc', 'desc']).default('asc'),
        tag: z.array(z.string()).optional(),
      },
    },
    function listItems({ page, limit, sort, tag }) {
      return { page, limit, sort, tag: tag ?? [], items: [...items.values()] };
    },
  );

  app.api(
    {
      route: '/items',
      method: 'POST',
      summary: 'Create an item',
      tags: ['items'],
      statusCode: 201,
      params: { item: Item },
      response: StoredItem,
    },
    function createItem({ item }) {
      const stored = { id: nextId++, ...item };
      items.set(stored.id, stored);
      return stored;
    },
  );

  app.api(
    {
      route: '/items/{item_id}',
      method: 'PUT',
      summary: 'Replace an item',
      tags: ['items'],
      params: { item_id: z.int(), item: Item },
      response: StoredItem,
    },
    function replaceItem({ item_id, item }) {
      if (!items.has(item_id)) throw new NotFoundError(`Item ${item_id} not found`);
      const stored = { id: item_id, ...item };
      items.set(item_id, stored);
      return stored;
    },
  );

  app.api(
    {
      route: '/items/{item_id}/note',
      method: 'PATCH',
      summary: 'Annotate an item',
      tags: ['items'],
      params: { item_id: z.int(), note: body(z.string().max(200)), pinned: z.boolean().optional() },
    },
    function annotateItem({ item_id, note, pinned }) {
      return { item_id, note, pinned: pinned ?? false };
    },
  );

  app.api(
    {
      route: '/items/{item_id}',
      method: 'DELETE',
      summary: 'Delete an item',
      tags: ['items'],
      statusCode: 204,
      deprecated: true,
      params: { item_id: z.int() },
    },
    function deleteItem({ item_id }) {
      items.delete(item_id);
    },
  );

  app.api({ route: '/internal/stats', includeInSchema: false }, function internalStats() {
    return { items: items.size };
  });

  app.api({ route: '/slow', summary: 'Slower than its timeout', timeout: SLOW_TIMEOUT }, async function slow(_input, request) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 5_000);
      request.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    return { done: true };
  });

  // An anonymous handler: the operationId is derived from method and path.
  app.get('/health', () => ({ ok: true }));

  const admin = new Router({ prefix: '/admin', tags: ['admin'] });
  admin.api(
    { route: '/users/{user_id}', method: 'GET', tags: ['users'], params: { user_id: z.int() } },
    function adminGetUser({ user_id }) {
      return { user_id };
    },
  );
  const audit = new Router({ prefix: '/audit', tags: ['audit'] });
  audit.get('/events', { operationId: 'listAuditEvents', params: { since: z.iso.datetime().optional() } }, () => []);
  admin.includeRouter(audit);
  app.includeRouter(admin);
  // Added after the router was included: documented all the same.
  admin.post('/reset', { statusCode: 204 }, function adminReset() {});

  return app;
}

/** The 422 body of `createCustomValidationApp`. */
export const CustomValidationError = z.object({
  message: z.string(),
  fields: z.array(z.string()),
});

export function createCustomValidationApp(): API {
  const app = new API({
    title: 'Custom 422',
    version: '1.0.0',
    logger: false,
    validationError: {
      schema: CustomValidationError,
      format: (issues) => ({ message: 'invalid input', fields: issues.map((issue) => [issue.in, ...issue.path].join('.')) }),
    },
  });
  app.api({ route: '/things', method: 'POST', params: { thing: Item } }, function createThing({ thing }) {
    return thing;
  });
  const router = new Router({ prefix: '/r', tags: ['routed'] });
  router.get('/things/{id}', { params: { id: z.int() } }, function getThing({ id }) {
    return { id };
  });
  app.includeRouter(router);
  return app;
}
