// The server side of the type-check bench: what an editor pays for the endpoints as written.
// A hello world (`app.get('/hello/{name}', { params, response }, handler)`) and a 100-endpoint app
// (20 routers × list/get/create/update/delete: zod parameters of every source — path, query, header,
// cookie, body —, response models, auth wrappers), each beside Hono 4 + @hono/zod-validator
// serving the same endpoints. Generated here, checked by typecheck.ts with `--extendedDiagnostics`.

export const HELLO_FNAPI = `import { API, z } from '@fnapi/core';

const app = new API();
app.get(
  '/hello/{name}',
  { params: { name: z.string(), greeting: z.string().optional() }, response: z.object({ message: z.string() }) },
  ({ name, greeting = 'Hello' }) => ({ message: \`\${greeting}, \${name}!\` }),
);
export default app;
`;

export const HELLO_HONO = `import { zValidator } from '@hono/zod-validator';
import { Hono } from 'hono';
import { z } from 'zod';

const Message = z.object({ message: z.string() });
const app = new Hono().get(
  '/hello/:name',
  zValidator('param', z.object({ name: z.string() })),
  zValidator('query', z.object({ greeting: z.string().optional() })),
  (c) => {
    const { name } = c.req.valid('param');
    const { greeting = 'Hello' } = c.req.valid('query');
    const body: z.infer<typeof Message> = { message: \`\${greeting}, \${name}!\` };
    return c.json(body, 200);
  },
);
export default app;
`;

/** 20 routers of five endpoints each. */
export function app100Fnapi(resources = 20): string {
  const parts: string[] = [];
  for (let i = 0; i < resources; i++) {
    parts.push(`
const Item${i} = z.object({ id: z.int(), name: z.string(), tags: z.array(z.string()), price: z.number(), active: z.boolean() });
const ItemIn${i} = z.object({ name: z.string().min(1), tags: z.array(z.string()).default([]), price: z.number().min(0), active: z.boolean().default(true) });
const r${i} = new Router({ prefix: '/r${i}', tags: ['r${i}'] });
r${i}.get(
  '/',
  { params: { limit: z.int().min(1).max(100).default(20), q: z.string().optional() }, response: z.array(Item${i}) },
  ({ limit, q }) => (q ? [] : Array.from({ length: limit }, (_, id) => ({ id, name: 'x', tags: [], price: 1, active: true }))),
);
r${i}.get(
  '/{id}',
  { params: { id: z.int(), x_request_id: header(z.string().optional()) }, response: Item${i} },
  ({ id, x_request_id }) => ({ id, name: x_request_id ?? 'x', tags: [], price: 1, active: true }),
);
r${i}.post(
  '/',
  { params: { item: ItemIn${i} }, response: Item${i}, statusCode: 201 },
  auth(({ item }) => ({ id: 1, ...item })),
);
r${i}.patch(
  '/{id}',
  { params: { id: z.int(), item: body(ItemIn${i}), session: cookie(z.string()), dry: query(z.boolean().default(false)) }, response: Item${i} },
  auth(({ id, item, session, dry }) => ({ id, ...item, name: dry ? session : item.name })),
);
r${i}.delete('/{id}', { params: { id: z.int() }, statusCode: 204 }, auth(({ id }) => { void id; }));
app.includeRouter(r${i});`);
  }
  return `import { API, body, cookie, header, query, Router, z } from '@fnapi/core';
import { jwtRequired } from '@fnapi/auth';

const app = new API();
const auth = jwtRequired({ secret: 'a-secret-of-at-least-32-characters!!', algorithm: 'HS256' });
${parts.join('\n')}
export default app;
`;
}

export function app100Hono(resources = 20): string {
  const parts: string[] = [];
  for (let i = 0; i < resources; i++) {
    parts.push(`
const Item${i} = z.object({ id: z.number().int(), name: z.string(), tags: z.array(z.string()), price: z.number(), active: z.boolean() });
type Item${i} = z.infer<typeof Item${i}>;
const ItemIn${i} = z.object({ name: z.string().min(1), tags: z.array(z.string()).default([]), price: z.number().min(0), active: z.boolean().default(true) });
const r${i} = new Hono()
  .get('/', zValidator('query', z.object({ limit: z.coerce.number().int().min(1).max(100).default(20), q: z.string().optional() })), (c) => {
    const { limit, q } = c.req.valid('query');
    const items: Item${i}[] = q ? [] : Array.from({ length: limit }, (_, id) => ({ id, name: 'x', tags: [], price: 1, active: true }));
    return c.json(items, 200);
  })
  .get('/:id', zValidator('param', IdParam), zValidator('header', z.object({ 'x-request-id': z.string().optional() })), (c) => {
    const item: Item${i} = { id: c.req.valid('param').id, name: c.req.valid('header')['x-request-id'] ?? 'x', tags: [], price: 1, active: true };
    return c.json(item, 200);
  })
  .post('/', auth, zValidator('json', ItemIn${i}), (c) => {
    const item: Item${i} = { id: 1, ...c.req.valid('json') };
    return c.json(item, 201);
  })
  .patch('/:id', auth, zValidator('param', IdParam), zValidator('json', ItemIn${i}), zValidator('cookie', z.object({ session: z.string() })),
    zValidator('query', z.object({ dry: z.stringbool().default(false) })), (c) => {
    const body = c.req.valid('json');
    const item: Item${i} = { id: c.req.valid('param').id, ...body, name: c.req.valid('query').dry ? c.req.valid('cookie').session : body.name };
    return c.json(item, 200);
  })
  .delete('/:id', auth, zValidator('param', IdParam), (c) => c.body(null, 204));
app.route('/r${i}', r${i});`);
  }
  return `import { zValidator } from '@hono/zod-validator';
import { Hono } from 'hono';
import { jwt } from 'hono/jwt';
import { z } from 'zod';

const app = new Hono();
const auth = jwt({ secret: 'a-secret-of-at-least-32-characters!!', alg: 'HS256' });
const IdParam = z.object({ id: z.coerce.number().int() });
${parts.join('\n')}
export default app;
`;
}
