import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { API, binary, FileResponse, file, form, z } from '@fnapi/core';

/** The files `/downloads/…` serves: `files/` beside `src/`. */
const DOWNLOADS = fileURLToPath(new URL('../files', import.meta.url));

const Stored = z.object({
  name: z.string().meta({ description: "The client's file name (untrusted: shown, never used as a path)" }),
  type: z.string().meta({ description: 'The media type found in the content' }),
  size: z.int(),
  sha256: z.string(),
});

/**
 * Uploads: a picture checked by its content, several documents at once, and a plain form. Files are
 * streamed in, spooled to a temporary file past 1 MiB, and hashed as a stream here, so a large upload
 * never sits in memory.
 */
export function createApp(options: { logger?: false; uploadLimit?: number; downloads?: string } = {}): API {
  const { downloads = DOWNLOADS, ...apiOptions } = options;
  const app = new API({
    title: 'fnapi uploads example',
    description: 'Multipart uploads: typed, validated by content, documented, streamed.',
    version: '1.0.0',
    servers: [{ url: '/', description: 'The server serving this document' }],
    contact: { name: 'fnapi maintainers', email: 'maintainers@example.com' },
    license: { name: 'MIT', identifier: 'MIT' },
    tags: [
      { name: 'uploads', description: 'Send files' },
      { name: 'downloads', description: 'Fetch files' },
    ],
    ...apiOptions,
  });

  app.post(
    '/avatars/{user_id}',
    {
      summary: 'Upload an avatar',
      description: 'A PNG or JPEG of at most 5 MB, judged by its content, not its name; a caption of up to 200 characters.',
      tags: ['uploads'],
      params: {
        user_id: z.int().min(1),
        avatar: file({ maxSize: 5_000_000, types: ['image/png', 'image/jpeg'] }),
        caption: z.string().max(200).optional(),
      },
      response: Stored.extend({ user_id: z.int(), caption: z.string().optional() }),
    },
    async function uploadAvatar({ user_id, avatar, caption }) {
      return { user_id, caption, ...(await describe(avatar)) };
    },
  );

  app.post(
    '/documents',
    {
      summary: 'Upload documents',
      description: 'Up to ten files of at most 50 MB each under the field `files`.',
      tags: ['uploads'],
      params: { files: z.array(file({ maxSize: 50_000_000 })).min(1), folder: z.string().default('inbox') },
      response: z.object({ folder: z.string(), files: z.array(Stored), total: z.int() }),
    },
    async function uploadDocuments({ files, folder }) {
      const stored = await Promise.all(files.map(describe));
      return { folder, files: stored, total: stored.reduce((sum, f) => sum + f.size, 0) };
    },
  );

  app.post(
    '/subscribe',
    {
      summary: 'Subscribe with a form',
      description: 'An urlencoded (or multipart) form without files: an email address and whether to send weekly.',
      tags: ['uploads'],
      params: { subscription: form(z.object({ email: z.email(), weekly: z.boolean().default(false) }).meta({ id: 'Subscription' })) },
      statusCode: 201,
    },
    function subscribe({ subscription }) {
      return subscription;
    },
  );

  // A path the client names is served through `FileResponse.fromRoot`, never `new FileResponse(join(root, name))`:
  // `/downloads/..%2f..%2fsrc%2fapp.ts` and raw `..` segments, dotfiles, directories and symlinks leading
  // out of the root all answer 404, and the file sent is the one that was checked.
  app.get(
    '/downloads/{name:path}',
    {
      summary: 'Download a file',
      description: 'A file under the downloads folder, with ETag, Last-Modified, 304 and Range.',
      tags: ['downloads'],
      params: { name: z.string().meta({ description: 'The path under the downloads folder' }) },
      response: binary(['text/plain', 'application/octet-stream']),
      responses: { 404: 'No such file' },
    },
    function download({ name }) {
      return FileResponse.fromRoot(downloads, name);
    },
  );

  return app;
}

/** Hashes the file as a stream: a spooled file is read from disk, not loaded whole. */
async function describe(upload: { name: string; type: string; size: number; stream(): NodeJS.ReadableStream }) {
  const hash = createHash('sha256');
  for await (const chunk of upload.stream()) hash.update(chunk as Buffer);
  return { name: upload.name, type: upload.type, size: upload.size, sha256: hash.digest('hex') };
}
