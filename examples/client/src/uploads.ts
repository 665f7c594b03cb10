import createClient from 'openapi-fetch';
import type { paths } from './uploads-api.js';

/** A client of the uploads example, typed by its document (`pnpm generate` rewrites `uploads-api.d.ts`). */
export function uploadsClient(baseUrl: string) {
  return createClient<paths>({ baseUrl });
}

type AvatarForm = NonNullable<paths['/avatars/{user_id}']['post']['requestBody']>['content']['multipart/form-data'];

/** A typed multipart body as the `FormData` fetch sends (a `Blob` field is a file part). */
export function formData(fields: Record<string, string | Blob | undefined>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) form.append(name, value);
  return form;
}

/** Uploads an avatar: the body typed by the document (the file a `Blob`), sent as multipart. */
export async function uploadAvatar(api: ReturnType<typeof uploadsClient>, user_id: number, avatar: Blob, caption?: string) {
  const body: AvatarForm = { avatar, ...(caption !== undefined ? { caption } : {}) };
  const { data, error } = await api.POST('/avatars/{user_id}', {
    params: { path: { user_id } },
    body,
    bodySerializer: (fields) => formData(fields as Record<string, string | Blob | undefined>),
  });
  if (error?.status === 422) return { invalid: error.errors.map((issue) => `${issue.path.join('.')}: ${issue.code}`) };
  if (error) return { failed: error.status };
  return { stored: data };
}
