import { createClient } from '@fnapi/client';
import type { paths } from './uploads-api.js';

/** A client of the uploads example, typed by its document (`pnpm generate` rewrites `uploads-api.d.ts`). */
export function uploadsClient(baseUrl: string) {
  return createClient<paths>({ baseUrl });
}

export type UploadsClient = ReturnType<typeof uploadsClient>;

/** Uploads an avatar: the body typed by the document (the file a `Blob`), sent as multipart because it holds one. */
export async function uploadAvatar(api: UploadsClient, user_id: number, avatar: Blob, caption?: string) {
  const { data, error } = await api.POST('/avatars/{user_id}', {
    params: { path: { user_id } },
    body: { avatar, ...(caption !== undefined ? { caption } : {}) },
  });
  if (error?.status === 422) return { invalid: error.errors.map((issue) => `${issue.path.join('.')}: ${issue.code}`) };
  if (error) return { failed: error.status };
  return { stored: data };
}

/** Uploads several files under one field: each `Blob` of the array is a part of its own. */
export async function uploadDocuments(api: UploadsClient, files: Blob[], folder?: string) {
  const { data, error } = await api.POST('/documents', { body: { files, ...(folder !== undefined ? { folder } : {}) } });
  if (error) return { failed: error.status };
  return { folder: data.folder, names: data.files.map((f) => f.name), total: data.total };
}

/** A form without files, sent URL-encoded: the `Content-Type` of the call chooses the encoding. */
export async function subscribe(api: UploadsClient, email: string, weekly: boolean) {
  const { data, error, response } = await api.POST('/subscribe', {
    body: { email, weekly },
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  });
  if (error?.status === 422) return { invalid: error.errors.map((issue) => issue.path.join('.')) };
  if (error) return { failed: error.status };
  return { status: response.status, subscribed: data };
}
