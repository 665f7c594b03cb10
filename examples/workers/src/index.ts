import { API, file, HTTPError, z } from '@fnapi/core';

/** The Worker's bindings (wrangler.jsonc): a var and a KV namespace, reached through `request.platform.env`. */
export interface Env {
  GREETING: string;
  VISITS: KVNamespaceLike;
}

/** The part of Workers' `KVNamespace` this app uses (`@cloudflare/workers-types` has the whole type). */
interface KVNamespaceLike {
  get(key: string): Promise<string | null>;
  put(key: string, value: string): Promise<void>;
}

const app = new API({
  title: 'fnapi on Workers',
  version: '1.0.0',
  description: 'An fnapi app served by Cloudflare Workers: bindings, KV, uploads in memory, /docs from a CDN.',
});

const env = (request: { platform: { env?: unknown } }) => request.platform.env as Env;

app.get('/', () => ({ message: 'fnapi on Cloudflare Workers', docs: '/docs' }));

app.get('/hello/{name}', { params: { name: z.string().min(1).max(40) } }, ({ name }, request) => ({
  message: `${env(request).GREETING}, ${name}!`,
  runtime: request.platform.runtime,
}));

// A counter in KV; the write is handed to the platform (ctx.waitUntil), so the answer does not wait for it.
app.post('/visits/{page}', { params: { page: z.string().regex(/^[a-z0-9-]{1,40}$/) } }, async ({ page }, request) => {
  const kv = env(request).VISITS;
  const count = Number((await kv.get(`visits:${page}`)) ?? '0') + 1;
  request.waitUntil(kv.put(`visits:${page}`, String(count)));
  return { page, count };
});

app.get('/visits/{page}', { params: { page: z.string().regex(/^[a-z0-9-]{1,40}$/) } }, async ({ page }, request) => {
  const value = await env(request).VISITS.get(`visits:${page}`);
  if (value === null) throw new HTTPError(404, `No visits to ${page} yet`);
  return { page, count: Number(value) };
});

// Uploads stay in memory on Workers (no file system), bounded by uploadLimit.
app.post('/avatar', { params: { avatar: file({ maxSize: 1_000_000, types: ['image/png', 'image/jpeg'] }) } }, async ({ avatar }) => ({
  name: avatar.name,
  type: avatar.type,
  size: avatar.size,
}));

export default app;
