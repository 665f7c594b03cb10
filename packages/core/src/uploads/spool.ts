import type { WriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { brandUploadedFile, type UploadedFile } from '@fnapi/validation';
import { builtin, nodeBuiltin } from '../platform/platform.js';

// Built-ins are taken from the registry when a form is read, not imported: a bundler hoists a static
// import of a built-in to the top of a single-file bundle, so every app (a Lambda without uploads
// too) would load node:crypto, node:fs and node:stream at start.
const fs = () => builtin('node:fs');
const fsPromises = () => builtin('node:fs/promises');
const join = (...parts: string[]) => builtin('node:path').join(...parts);

/** One private directory per process and temp root; removed at exit, whatever is left in it. */
const directories = new Map<string, string>();

function spoolDirectory(): string {
  const root = builtin('node:os').tmpdir();
  let dir = directories.get(root);
  if (dir === undefined) {
    dir = fs().mkdtempSync(join(root, 'fnapi-uploads-'));
    directories.set(root, dir);
    if (directories.size === 1) process.once('exit', removeDirectories);
  }
  return dir;
}

function removeDirectories(): void {
  for (const dir of directories.values()) fs().rmSync(dir, { recursive: true, force: true });
}

/** The temporary files of one request: all removed at once, and any opened later removed on creation. */
export class Spool {
  private readonly files = new Map<string, WriteStream>();
  private closed = false;

  /** A new temporary file, named by us (never by the client). */
  create(): { path: string; out: WriteStream } {
    const path = join(spoolDirectory(), builtin('node:crypto').randomUUID());
    const out = fs().createWriteStream(path, { flags: 'wx', mode: 0o600 });
    if (this.closed) remove(path, out);
    else this.files.set(path, out);
    return { path, out };
  }

  /** Removes every file (the response has been sent, the client has gone, or reading failed). */
  removeAll(): void {
    this.closed = true;
    for (const [path, out] of this.files) remove(path, out);
    this.files.clear();
  }
}

/**
 * Closes the file (a write still under way is abandoned), then unlinks it: unlinking first could run
 * before the asynchronous open had created it, and the file would outlive the request.
 */
function remove(path: string, out: WriteStream): void {
  const unlinkIt = () =>
    void fsPromises()
      .unlink(path)
      .catch(() => {});
  if (out.closed) unlinkIt();
  else {
    out.once('close', unlinkIt);
    out.destroy();
  }
}

const textDecoder = new TextDecoder();

/** A file held in memory (up to the spool threshold). */
export class MemoryFile implements UploadedFile {
  constructor(
    readonly name: string,
    readonly type: string,
    private readonly content: Uint8Array,
  ) {
    brandUploadedFile(this);
  }
  get size(): number {
    return this.content.byteLength;
  }
  /** A Node `Readable` where node:stream exists; elsewhere (workerd) a Web `ReadableStream`, async-iterable alike. */
  stream(): Readable {
    const stream = nodeBuiltin('node:stream');
    if (stream !== undefined) return stream.Readable.from([this.content]);
    const content = this.content;
    return new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(content);
        controller.close();
      },
    }) as unknown as Readable;
  }
  async bytes(): Promise<Uint8Array> {
    return this.content;
  }
  async text(): Promise<string> {
    return textDecoder.decode(this.content);
  }
}

/** A file written to a temporary file; readable until the response has been sent. */
export class DiskFile implements UploadedFile {
  constructor(
    readonly name: string,
    readonly type: string,
    readonly size: number,
    private readonly path: string,
  ) {
    brandUploadedFile(this);
  }
  stream(): Readable {
    return fs().createReadStream(this.path);
  }
  async bytes(): Promise<Uint8Array> {
    return fsPromises().readFile(this.path);
  }
  async text(): Promise<string> {
    return fsPromises().readFile(this.path, 'utf8');
  }
}
