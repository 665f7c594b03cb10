import { createHash } from 'node:crypto';
import { TestClient } from '@fnapi/core/testing';
import { TINY_PNG as PNG } from '@fnapi/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('examples/uploads', () => {
  let client: TestClient;
  beforeAll(async () => {
    client = await TestClient.start(createApp({ logger: false }));
  });
  afterAll(() => client.close());

  it('POST /avatars/{user_id} takes a picture judged by its content', async () => {
    const fd = new FormData();
    fd.append('avatar', new Blob([PNG], { type: 'application/octet-stream' }), 'me.jpeg');
    fd.append('caption', 'On holiday');
    const res = await client.post('/avatars/3', { form: fd });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({
      user_id: 3,
      caption: 'On holiday',
      name: 'me.jpeg',
      type: 'image/png',
      size: PNG.length,
      sha256: sha(PNG),
    });

    const text = new FormData();
    text.append('avatar', new Blob(['<svg/>'], { type: 'image/png' }), 'x.png');
    const refused = await client.post('/avatars/3', { form: text });
    expect(refused.status).toBe(422);
    expect(refused.json()).toMatchObject({ errors: [{ in: 'body', path: ['avatar'], code: 'file_type' }] });
  });

  it('POST /documents takes several files, large ones streamed from disk', async () => {
    const big = Buffer.alloc(3_000_000, 9);
    const fd = new FormData();
    fd.append('files', new Blob(['hello']), 'a.txt');
    fd.append('files', new Blob([big]), 'b.bin');
    const res = await client.post('/documents', { form: fd });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({
      folder: 'inbox',
      total: 5 + big.length,
      files: [
        { name: 'a.txt', size: 5, sha256: sha(Buffer.from('hello')) },
        { name: 'b.bin', size: big.length, sha256: sha(big) },
      ],
    });
    const none = await client.post('/documents', { form: new FormData() });
    expect(none.status).toBe(422);
  });

  it('POST /subscribe takes an urlencoded form', async () => {
    const res = await client.post('/subscribe', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=ada%40example.com&weekly=1',
    });
    expect(res.status).toBe(201);
    expect(res.json()).toEqual({ email: 'ada@example.com', weekly: true });
    expect(
      (await client.post('/subscribe', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'email=nope' })).status,
    ).toBe(422);
  });

  it('documents the bodies as multipart/form-data with binary file fields', async () => {
    const doc = (await client.get('/openapi.json')).json<{
      paths: Record<string, { post: { requestBody: { content: Record<string, unknown> } } }>;
    }>();
    expect(Object.keys(doc.paths['/avatars/{user_id}']!.post.requestBody.content)).toEqual(['multipart/form-data']);
    expect(doc.paths['/avatars/{user_id}']!.post.requestBody.content['multipart/form-data']).toMatchObject({
      schema: { properties: { avatar: { type: 'string', format: 'binary' } }, required: ['avatar'] },
    });
    expect(Object.keys(doc.paths['/subscribe']!.post.requestBody.content)).toEqual([
      'application/x-www-form-urlencoded',
      'multipart/form-data',
    ]);
  });

  it('GET /downloads/{name} serves files under the downloads folder, and nothing outside it', async () => {
    const res = await client.get('/downloads/guides/welcome.txt');
    expect(res.status).toBe(200);
    expect(res.body).toBe('Welcome to the uploads example.\n');
    expect(res.headers['content-disposition']).toBe('attachment; filename="welcome.txt"');
    expect(res.headers['content-length']).toBe(String(res.body.length));
    // The source of this app, one folder up, is never served however the path is spelled.
    for (const path of [
      '/downloads/..%2fsrc%2fapp.ts',
      '/downloads/guides/..%2f..%2fpackage.json',
      '/downloads/guides',
      '/downloads/missing.txt',
    ]) {
      const refused = await client.get(path);
      expect(refused.status, path).toBe(404);
      expect(refused.body, path).not.toContain('createApp');
    }
  });
});
