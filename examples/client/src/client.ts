import { createClient } from '@fnapi/client';
import type { paths } from './api.js';

/** A client of the example app, typed by the document (`pnpm generate` rewrites `api.d.ts`). */
export function exampleClient(baseUrl: string, fetch?: typeof globalThis.fetch) {
  return createClient<paths>({ baseUrl, fetch });
}

export type ExampleClient = ReturnType<typeof exampleClient>;

/** One post of a user, as a sentence: each documented answer narrowed on its status. */
export async function describePost(api: ExampleClient, user_id: number, post_id: number): Promise<string> {
  const { data, error } = await api.GET('/users/{user_id}/posts/{post_id}', { params: { path: { user_id, post_id } } });
  if (error?.status === 422) return `invalid ${error.errors.map((issue) => `${issue.in} ${issue.path.join('.')}`).join(', ')}`;
  if (error) return `not found: ${error.detail ?? error.title}`;
  return `post ${data.post_id} of user ${data.user_id}`;
}

/** Creates a user; the 422 lists what was wrong, field by field. */
export async function createUser(api: ExampleClient, user: { name: string; email: string; age: number }) {
  const { data, error } = await api.POST('/users', { body: user });
  if (error?.status === 422) return { invalid: error.errors.map((issue) => issue.path.join('.')) };
  if (error) return { failed: error.status };
  return { created: data.id, role: data.role };
}
