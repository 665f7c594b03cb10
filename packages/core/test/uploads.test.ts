/**
 * Uploads: file() and form() parameters over real HTTP — binding, strict conversion, spooling to a
 * temporary file past 1 MiB (removed after the answer), the content-type check by magic bytes, every
 * limit (413 at once), malformed bodies (400), wrong content types (415), Expect: 100-continue and a
 * client that goes away mid-upload.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TINY_PNG as PNG } from '@fnapi/test-support';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { API, file, form, UnauthorizedError, type UploadedFile, z } from '../src/index.js';
import { annotateHandler } from '../src/extend.js';
import { TestClient } from '../src/server/testing.js';

// Temporary files of this file's uploads land in a directory of its own, so the test can look at them.
const root = mkdtempSync(join(tmpdir(), 'fnapi-upload-test-'));
const previousTmp = process.env.TMPDIR;
process.env.TMPDIR = root;
afterAll(() => {
  process.env.TMPDIR = previousTmp;
});

/** Files currently spooled under this test's temporary root. */
function spooled(): string[] {
  return readdirSync(root)
    .filter((d) => d.startsWith('fnapi-uploads-'))
    .flatMap((d) => readdirSync(join(root, d)));
}

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  await vi.waitUntil(check, { timeout: ms, interval: 20 });
}

function sha(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

let client: TestClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

function avatarApp(options: ConstructorParameters<typeof API>[0] = {}) {
  const app = new API({ logger: false, ...options });
  const seen: { spooledDuringHandler: number }[] = [];
  app.post(
    '/users/{user_id}/avatar',
    {
      params: {
        user_id: z.int(),
        avatar: file({ maxSize: 5_000_000, types: ['image/png', 'image/jpeg'] }),
        caption: z.string().max(200).optional(),
        rating: z.int().optional(),
      },
    },
    async ({ user_id, avatar, caption, rating }) => {
      seen.push({ spooledDuringHandler: spooled().length });
      const bytes = await avatar.bytes();
      return { user_id, name: avatar.name, type: avatar.type, size: avatar.size, caption, rating, sha: sha(bytes) };
    },
  );
  app.post(
    '/files',
    { params: { files: z.array(file({ maxSize: 50_000_000 })), note: z.string().optional() } },
    async ({ files, note }) => {
      const sizes: number[] = [];
      const hashes: string[] = [];
      for (const f of files) {
        let size = 0;
        const hash = createHash('sha256');
        for await (const chunk of f.stream()) {
          size += (chunk as Buffer).length;
          hash.update(chunk as Buffer);
        }
        sizes.push(size);
        hashes.push(hash.digest('hex'));
      }
      return { names: files.map((f) => f.name), sizes, hashes, note, spooled: spooled().length };
    },
  );
  app.post('/doc', { params: { doc: file() } }, async ({ doc }) => ({ type: doc.type, text: await doc.text() }));
  app.post(
    '/login',
    { params: { credentials: form(z.object({ user: z.string().min(1), age: z.int(), remember: z.boolean().default(false) })) } },
    ({ credentials }) => credentials,
  );
  return { app, seen };
}

describe('file() parameters', () => {
  it('binds a file part by name and text parts converted strictly; the type comes from the content', async () => {
    const { app } = avatarApp();
    client = await TestClient.start(app);
    const fd = new FormData();
    // A PNG named .jpg and declared as JPEG is a PNG.
    fd.append('avatar', new Blob([PNG], { type: 'image/jpeg' }), 'me.jpg');
    fd.append('caption', 'hello');
    fd.append('rating', '5');
    const res = await client.post('/users/7/avatar', { form: fd });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({
      user_id: 7,
      name: 'me.jpg',
      type: 'image/png',
      size: PNG.length,
      caption: 'hello',
      rating: 5,
      sha: sha(PNG),
    });

    const bad = new FormData();
    bad.append('avatar', new Blob([PNG]), 'a.png');
    bad.append('rating', '5abc');
    const refused = await client.post('/users/7/avatar', { form: bad });
    expect(refused.status).toBe(422);
    expect(refused.json<{ errors: unknown[] }>().errors).toEqual([expect.objectContaining({ in: 'body', path: ['rating'] })]);
  });

  it('refuses content outside `types` with 422 file_type, naming the field', async () => {
    const { app } = avatarApp();
    client = await TestClient.start(app);
    const fd = new FormData();
    fd.append('avatar', new Blob(['just text, named like a picture'], { type: 'image/png' }), 'fake.png');
    const res = await client.post('/users/1/avatar', { form: fd });
    expect(res.status).toBe(422);
    expect(res.json<{ errors: unknown[] }>().errors).toEqual([
      { in: 'body', path: ['avatar'], message: expect.stringContaining('application/octet-stream'), code: 'file_type' },
    ]);
  });

  it('answers a missing required file with 422 missing, JSON with 415 and a malformed body with 400', async () => {
    const { app } = avatarApp();
    client = await TestClient.start(app);
    const fd = new FormData();
    fd.append('caption', 'no file');
    const missing = await client.post('/users/1/avatar', { form: fd });
    expect(missing.status).toBe(422);
    expect(missing.json<{ errors: unknown[] }>().errors).toEqual([
      { in: 'body', path: ['avatar'], message: 'Field required', code: 'missing' },
    ]);

    const json = await client.post('/users/1/avatar', { json: { avatar: 'x' } });
    expect(json.status).toBe(415);

    const truncated = await client.post('/users/1/avatar', {
      headers: { 'content-type': 'multipart/form-data; boundary=XyZ' },
      body: '--XyZ\r\nContent-Disposition: form-data; name="avatar"; filename="a.png"\r\n\r\npartial',
    });
    expect(truncated.status).toBe(400);
    const noBoundary = await client.post('/users/1/avatar', { headers: { 'content-type': 'multipart/form-data' }, body: 'abc' });
    expect(noBoundary.status).toBe(400);
  });

  it('takes several files under one name with z.array(file()), and detects text by its declared type', async () => {
    const { app } = avatarApp();
    client = await TestClient.start(app);
    const fd = new FormData();
    fd.append('files', new Blob([PNG]), 'one.png');
    fd.append('files', new Blob(['second']), 'two.txt');
    fd.append('note', 'n');
    const res = await client.post('/files', { form: fd });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ names: ['one.png', 'two.txt'], sizes: [PNG.length, 6], note: 'n' });

    const doc = new FormData();
    doc.append('doc', new Blob(['{"a":1}'], { type: 'application/json' }), 'a.json');
    expect((await client.post('/doc', { form: doc })).json()).toEqual({ type: 'application/json', text: '{"a":1}' });
  });

  it('spools a file past 1 MiB to a temporary file of its own name, removed once the answer is sent', async () => {
    const { app, seen } = avatarApp();
    client = await TestClient.start(app);
    const big = Buffer.concat([PNG, Buffer.alloc(3 * 1024 * 1024, 7)]);
    const fd = new FormData();
    fd.append('avatar', new Blob([big]), '../../etc/passwd');
    const res = await client.post('/users/2/avatar', { form: fd });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ size: big.length, sha: sha(big), name: 'passwd', type: 'image/png' });
    expect(seen[0]!.spooledDuringHandler).toBe(1);
    await until(() => spooled().length === 0);
  });

  it('serves many concurrent uploads, each intact, and leaves no temporary file behind', async () => {
    const { app } = avatarApp();
    client = await TestClient.start(app);
    const bodies = Array.from({ length: 16 }, (_, i) => Buffer.alloc(1_500_000 + i * 1000, i));
    const results = await Promise.all(
      bodies.map(async (bytes, i) => {
        const fd = new FormData();
        fd.append('files', new Blob([bytes]), `f${i}`);
        return client!.post('/files', { form: fd });
      }),
    );
    results.forEach((res, i) => {
      expect(res.status).toBe(200);
      expect(res.json()).toMatchObject({ names: [`f${i}`], sizes: [bodies[i]!.length], hashes: [sha(bodies[i]!)] });
    });
    await until(() => spooled().length === 0);
  });
});

describe('limits', () => {
  it('answers 413 past maxSize, maxFiles, a text part of 1 MiB and uploadLimit', async () => {
    const { app } = avatarApp({ maxFiles: 2, uploadLimit: 8_000_000 });
    client = await TestClient.start(app);
    const tooBig = new FormData();
    tooBig.append('avatar', new Blob([PNG, Buffer.alloc(5_000_000)]), 'big.png');
    expect((await client.post('/users/1/avatar', { form: tooBig })).status).toBe(413);

    const many = new FormData();
    for (let i = 0; i < 3; i++) many.append('files', new Blob(['x']), `${i}.txt`);
    const manyRes = await client.post('/files', { form: many });
    expect(manyRes.status).toBe(413);
    expect(manyRes.json()).toMatchObject({ status: 413, detail: 'More than 2 files in one request' });

    const longField = new FormData();
    longField.append('files', new Blob(['x']), 'a.txt');
    longField.append('note', 'n'.repeat(1024 * 1024 + 1));
    expect((await client.post('/files', { form: longField })).status).toBe(413);

    const whole = new FormData();
    whole.append('files', new Blob([Buffer.alloc(9_000_000)]), 'a.bin');
    const wholeRes = await client.post('/files', { form: whole });
    expect(wholeRes.status).toBe(413);
    expect(wholeRes.json()).toMatchObject({ detail: 'Request body exceeds the upload limit of 8000000 bytes' });
    await until(() => spooled().length === 0);
  });

  it('with Expect: 100-continue, refuses a declared body over uploadLimit before the upload and invites one within it', async () => {
    const { app } = avatarApp({ uploadLimit: 1_000_000 });
    // The early 413 is an ordinary answer: the app's middleware sees it.
    app.addMiddleware(async (request, next) => {
      const response = await next(request);
      response.headers.set('x-seen-by', 'middleware');
      return response;
    });
    const running = await app.run({ port: 0, handleSignals: false });
    try {
      const refused = await rawExchange(
        running.port,
        'POST /files HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=B\r\nContent-Length: 2000000\r\nExpect: 100-continue\r\n\r\n',
        (text) => text.includes('}'),
      );
      expect(refused).toMatch(/^HTTP\/1\.1 413 /);
      expect(refused).not.toContain('100 Continue');
      expect(refused.toLowerCase()).toContain('x-seen-by: middleware');
      expect(refused.toLowerCase()).toContain('connection: close');

      const part =
        '--B\r\nContent-Disposition: form-data; name="files"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--B--\r\n';
      const accepted = await rawExchange(
        running.port,
        `POST /files HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=B\r\nContent-Length: ${part.length}\r\nExpect: 100-continue\r\n\r\n`,
        (text) => text.includes('"sizes"'),
        (text, send) => {
          if (text.startsWith('HTTP/1.1 100 Continue')) send(part);
        },
      );
      expect(accepted).toMatch(/^HTTP\/1\.1 100 Continue\r\n/);
      expect(accepted).toContain('"sizes":[5]');
    } finally {
      await running.close();
    }
  });
});

describe('guards', () => {
  it('answer before the upload is invited: an unauthenticated caller gets 401, never 100 Continue', async () => {
    const app = new API({ logger: false });
    let read = false;
    const handler = annotateHandler(
      async ({ doc }: { doc: UploadedFile }) => {
        read = true;
        return { size: doc.size };
      },
      {
        guards: [
          (request) => {
            if (request.headers.get('authorization') !== 'Bearer ok') throw new UnauthorizedError('Sign in first');
          },
        ],
        errorStatuses: [401],
      },
    );
    app.post('/private', { params: { doc: file() } }, handler);
    const running = await app.run({ port: 0, handleSignals: false });
    try {
      const answer = await rawExchange(
        running.port,
        'POST /private HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=B\r\nContent-Length: 5000000\r\nExpect: 100-continue\r\n\r\n',
        (text) => text.includes('}'),
      );
      expect(answer).toMatch(/^HTTP\/1\.1 401 /);
      expect(answer).not.toContain('100 Continue');
      expect(read).toBe(false);
    } finally {
      await running.close();
    }
  });
});

describe('form()', () => {
  it('receives a urlencoded or multipart form as one object, converted strictly', async () => {
    const { app } = avatarApp();
    client = await TestClient.start(app);
    const urlencoded = await client.post('/login', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'user=ann&age=41&remember=true',
    });
    expect(urlencoded.status).toBe(200);
    expect(urlencoded.json()).toEqual({ user: 'ann', age: 41, remember: true });

    const fd = new FormData();
    fd.append('user', 'bob');
    fd.append('age', '12abc');
    const multipart = await client.post('/login', { form: fd });
    expect(multipart.status).toBe(422);
    expect(multipart.json<{ errors: unknown[] }>().errors).toEqual([expect.objectContaining({ in: 'body', path: ['age'] })]);

    expect((await client.post('/login', { json: { user: 'x', age: 1 } })).status).toBe(415);
  });
});

describe('the document', () => {
  it('lists the statuses of a form body in the words of forms', () => {
    const { app } = avatarApp();
    const doc = app.openapi() as { paths: Record<string, { post: { responses: Record<string, { description: string }> } }> };
    const responses = doc.paths['/users/{user_id}/avatar']!.post.responses;
    expect(responses['400']!.description).toBe('Malformed form body');
    expect(responses['415']!.description).toBe('Request body is not multipart/form-data');
    expect(Object.keys(responses)).toEqual(expect.arrayContaining(['200', '400', '404', '413', '415', '422']));
    const login = doc.paths['/login']!.post.responses;
    expect(login['415']!.description).toBe('Request body is not application/x-www-form-urlencoded or multipart/form-data');
  });
});

describe('a client that goes away mid-upload', () => {
  it('leaves no temporary file and never calls the handler', async () => {
    const { app, seen } = avatarApp();
    const running = await app.run({ port: 0, handleSignals: false });
    try {
      const socket = connect({ host: '127.0.0.1', port: running.port });
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(
        'POST /users/1/avatar HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=B\r\nContent-Length: 4000000\r\n\r\n' +
          '--B\r\nContent-Disposition: form-data; name="avatar"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n',
      );
      socket.write(Buffer.concat([PNG, Buffer.alloc(2 * 1024 * 1024, 1)]));
      // The file is past the spool threshold: it is on disk before the client vanishes.
      await until(() => spooled().length === 1);
      socket.destroy();
      await until(() => spooled().length === 0);
      expect(seen).toEqual([]);
    } finally {
      await running.close();
    }
  });
});

/** Writes `head`, lets `onData` answer (e.g. after 100 Continue), resolves when `done` says so or the server closes. */
function rawExchange(
  port: number,
  head: string,
  done: (text: string) => boolean,
  onData?: (text: string, send: (s: string) => void) => void,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let text = '';
    let sent = false;
    socket.setEncoding('utf8');
    socket.on('error', reject);
    socket.on('close', () => resolve(text));
    socket.on('data', (chunk) => {
      text += chunk;
      onData?.(text, (s) => {
        if (!sent) socket.write(s);
        sent = true;
      });
      if (done(text)) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.write(head);
  });
}

beforeAll(() => {
  expect(process.env.TMPDIR).toBe(root);
});

describe('other transports', () => {
  it('app.fetch and app.inject read uploads too (held in memory: they cannot say when the answer is done)', async () => {
    const { app } = avatarApp({ uploadLimit: 4_000_000 });
    const fd = new FormData();
    fd.append('files', new Blob([Buffer.alloc(2_000_000, 3)]), 'a.bin');
    fd.append('note', 'via fetch');
    const res = await app.fetch(new Request('http://localhost/files', { method: 'POST', body: fd }));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ sizes: [2_000_000], note: 'via fetch', spooled: 0 });

    const tooBig = new FormData();
    tooBig.append('files', new Blob([Buffer.alloc(5_000_000)]), 'b.bin');
    expect((await app.fetch(new Request('http://localhost/files', { method: 'POST', body: tooBig }))).status).toBe(413);

    const encoded = new Response(fd);
    const injected = await app.inject({
      method: 'POST',
      url: '/files',
      headers: { 'content-type': encoded.headers.get('content-type')! },
      body: new Uint8Array(await encoded.arrayBuffer()),
    });
    expect(injected.status).toBe(200);
    expect(injected.json()).toMatchObject({ sizes: [2_000_000] });
  });
});
