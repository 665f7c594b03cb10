import { API, type APIOptions, body, JSONResponse, z } from '@fnapi/core';

/** The seed's typical endpoint set, as a runnable app that doubles as documentation. */
export function createApp(options: APIOptions = {}): API {
  const app = new API({
    title: 'fnapi example',
    description: 'The typical endpoint set: greetings, path and query parameters, a validated model, an echo.',
    version: '1.0.0',
    servers: [{ url: '/', description: 'The server serving this document' }],
    contact: { name: 'fnapi maintainers', email: 'maintainers@example.com' },
    license: { name: 'MIT', identifier: 'MIT' },
    termsOfService: 'https://example.com/terms',
    tags: [
      { name: 'greetings', description: 'Say hello' },
      { name: 'users', description: 'Users and their posts' },
      { name: 'search', description: 'Search with paging' },
      { name: 'echo', description: 'Send JSON, get it back' },
    ],
    ...options,
  });

  // Response models: they document and type each success body (and filter what is sent).
  const Greeting = z.object({ message: z.string() }).meta({ id: 'Greeting' });
  const PostRef = z.object({ user_id: z.int(), post_id: z.int() }).meta({ id: 'PostRef' });
  const SearchResults = z
    .object({ query: z.string(), page: z.int(), limit: z.int(), results: z.array(z.string()) })
    .meta({ id: 'SearchResults' });

  app.api(
    {
      route: '/hello/{name}',
      method: 'GET',
      summary: 'Say hello',
      description: 'Greets `name`, with `greeting` in front (default "Hello").',
      tags: ['greetings'],
      params: { name: z.string(), greeting: z.string().optional() },
      response: Greeting,
    },
    function sayHello({ name, greeting = 'Hello' }) {
      return { message: `${greeting}, ${name}!` };
    },
  );

  app.api(
    {
      route: '/users/{user_id}/posts/{post_id}',
      summary: 'One post of a user',
      description: 'Both ids are integers; anything else is a 422 naming the value.',
      tags: ['users'],
      params: { user_id: z.int(), post_id: z.int() },
      response: PostRef,
    },
    function getUserPost({ user_id, post_id }) {
      return { user_id, post_id };
    },
  );

  app.api(
    {
      route: '/search',
      summary: 'Search',
      description: 'A required query, and paging with defaults (page 1, 10 results a page, at most 100).',
      tags: ['search'],
      params: {
        query: z.string().min(1),
        page: z.int().min(1).default(1),
        limit: z.int().min(1).max(100).default(10),
      },
      response: SearchResults,
    },
    async function search({ query, page, limit }) {
      return { query, page, limit, results: [] };
    },
  );

  const Address = z.object({ street: z.string(), city: z.string(), country: z.string(), postal_code: z.string() }).meta({ id: 'Address' });
  const User = z
    .object({
      name: z.string().min(2).max(50),
      email: z.email(),
      age: z.int().min(18).max(120),
      role: z.enum(['admin', 'user', 'guest']).default('user'),
      tags: z.array(z.string()).default([]),
      address: Address.optional(),
    })
    .meta({ id: 'User' });

  let nextId = 1;
  app.api(
    {
      route: '/users',
      method: 'POST',
      summary: 'Create a user',
      description: 'Validates the whole JSON body against the `User` model; unknown keys are dropped.',
      tags: ['users'],
      statusCode: 201,
      params: { user: User },
      response: User.extend({ id: z.int() }).meta({ id: 'StoredUser' }),
    },
    async function createUser({ user }) {
      return { id: nextId++, ...user };
    },
  );

  app.api(
    {
      route: '/echo',
      method: 'POST',
      summary: 'Echo the JSON body',
      description: 'Answers with the JSON body it was sent (any JSON value) and an `X-Echo` header.',
      tags: ['echo'],
      // Any JSON comes back, so there is no model; the status is fixed (it never answers 204).
      statusCode: 200,
      params: { payload: body(z.json(), { whole: true }) },
      // The header it sends is documented, so clients and mocks know it.
      responses: { 200: { description: 'The body sent', headers: { 'X-Echo': z.literal('true') } } },
    },
    function echo({ payload }) {
      return new JSONResponse(payload, { headers: { 'x-echo': 'true' } });
    },
  );

  return app;
}
