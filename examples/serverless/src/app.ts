import { API, StreamingResponse, z } from '@fnapi/core';

const User = z
  .object({
    name: z.string().min(2).max(50),
    email: z.email(),
    age: z.int().min(18).max(120),
    role: z.enum(['admin', 'user', 'guest']).default('user'),
    tags: z.array(z.string()).default([]),
  })
  .meta({ id: 'User' });

/**
 * One app, deployed unchanged to every platform: each file next to this one is the entry of one
 * platform and only wraps the app in that platform's adapter.
 */
export function createApp(): API {
  const app = new API({
    title: 'fnapi on serverless platforms',
    version: '1.0.0',
    servers: [{ url: '/', description: 'The server serving this document' }],
  });

  app.get('/hello', { summary: 'Say hello' }, () => ({ message: 'hello' }));
  app.get(
    '/users/{id}/posts/{postId}',
    {
      summary: "One of a user's posts",
      params: { id: z.int(), postId: z.int(), page: z.int().default(1), limit: z.int().default(20) },
    },
    ({ id, postId, page, limit }) => ({ id, postId, page, limit }),
  );
  app.post('/users', { summary: 'Create a user', params: { user: User }, statusCode: 201 }, ({ user }) => user);
  // Sent as it is produced where the platform streams (Lambda's streamHandler, Cloud Functions,
  // Vercel, Azure with HTTP streams, Netlify v2); buffered into one answer elsewhere.
  app.get('/countdown', { summary: 'Count down, line by line', params: { from: z.int().min(1).max(10).default(3) } }, ({ from }) => {
    async function* lines() {
      for (let n = from; n > 0; n--) {
        yield `${n}\n`;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      yield 'liftoff\n';
    }
    return new StreamingResponse(lines(), { mediaType: 'text/plain; charset=utf-8' });
  });
  return app;
}
