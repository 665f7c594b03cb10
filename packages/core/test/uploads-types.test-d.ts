import { describe, expectTypeOf, it } from 'vitest';
import { API, file, form, type UploadedFile, z } from '@fnapi/core';
import type { Readable } from 'node:stream';

describe('upload input types', () => {
  it('gives file() parameters the uploaded-file type, arrays of them for z.array(file())', () => {
    const app = new API();
    app.post(
      '/users/{user_id}/avatar',
      {
        params: {
          user_id: z.int(),
          avatar: file({ maxSize: 5_000_000 }),
          extra: z.array(file()),
          note: file().optional(),
          caption: z.string().optional(),
        },
      },
      async ({ user_id, avatar, extra, note, caption }) => {
        expectTypeOf(user_id).toEqualTypeOf<number>();
        expectTypeOf(avatar).toEqualTypeOf<UploadedFile>();
        expectTypeOf(avatar.name).toEqualTypeOf<string>();
        expectTypeOf(avatar.size).toEqualTypeOf<number>();
        expectTypeOf(avatar.stream()).toEqualTypeOf<Readable>();
        expectTypeOf(avatar.bytes()).toEqualTypeOf<Promise<Uint8Array>>();
        expectTypeOf(await avatar.text()).toEqualTypeOf<string>();
        expectTypeOf(extra).toEqualTypeOf<UploadedFile[]>();
        expectTypeOf(note).toEqualTypeOf<UploadedFile | undefined>();
        expectTypeOf(caption).toEqualTypeOf<string | undefined>();
        return { size: avatar.size };
      },
    );
  });

  it('gives form(schema) the schema output', () => {
    const app = new API();
    app.post(
      '/login',
      { params: { credentials: form(z.object({ user: z.string(), remember: z.boolean().default(false) })) } },
      ({ credentials }) => {
        expectTypeOf(credentials).toEqualTypeOf<{ user: string; remember: boolean }>();
        return {};
      },
    );
  });
});
