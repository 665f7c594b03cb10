import type { BusboyFileStream, BusboyInstance } from '@fastify/busboy';
import { cleanFileName } from './file-name.js';
import { mediaTypeOf, put } from './form-fields.js';
import { UPLOADING } from './upload-timeout.js';
import type { FormField, FormPlan, UploadedFile, ValidationIssue } from '@fnapi/validation';
import { BadRequestError, HTTPError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../http/errors.js';
import type { Request } from '../http/request.js';
import { bodyStreamOf, discardBodyOf, onRequestFinished } from '../http/request-access.js';
import { REQUEST_INTERNALS } from '../http/request-internals.js';
import { BYTES_TYPE, isTextContentType } from '../http/facts.js';
import { DEFAULT_MAX_FILES, DEFAULT_UPLOAD_LIMIT, MAX_FIELD_SIZE, MAX_PARTS, SPOOL_THRESHOLD } from './limits.js';
import { DiskFile, MemoryFile, Spool } from './spool.js';
import { builtin } from '../platform/platform.js';

/** Bytes file-type reads to recognise a format. */
const SNIFF_BYTES = 4100;

export interface FormContent {
  /** Field name → converted text value(s) and uploaded file(s), for the binder. */
  body: Record<string, unknown>;
  /** Files whose content is outside their field's `types`. */
  issues: ValidationIssue[];
}

interface PendingFile {
  field: Extract<FormField, { kind: 'file' }>;
  done: Promise<UploadedFile>;
}

/**
 * Reads a form body (multipart or urlencoded) as it arrives: text parts converted as strictly as
 * query strings, file parts spooled (memory up to 1 MiB, then a temporary file removed once the
 * response has been sent), every limit enforced while reading (413 at once, the rest discarded).
 */
type CreateParser = typeof import('@fastify/busboy')['Busboy'];
let createParser: CreateParser | undefined;
let busboyLoading: Promise<CreateParser> | undefined;

/**
 * Loads the multipart parser (busboy): apps without forms or uploads never do. Started when the
 * first endpoint that takes a form or a file is compiled, so no request waits for it.
 */
export function loadFormParser(): Promise<CreateParser> {
  busboyLoading ??= import('@fastify/busboy').then((module) => {
    // Node gives a CommonJS module's named exports to import(); a bundler's split chunk only its
    // `default` (module.exports). Without a parser, readForm would wait for it again and again.
    const loaded = module as Partial<typeof module> & { default?: typeof module };
    createParser = loaded.Busboy ?? loaded.default?.Busboy;
    if (createParser === undefined) throw new Error('@fastify/busboy loaded without its Busboy export');
    return createParser;
  });
  return busboyLoading;
}

export function readForm(request: Request, plan: FormPlan): Promise<FormContent> {
  if (createParser === undefined) return loadFormParser().then(() => readForm(request, plan));
  const limits = request[REQUEST_INTERNALS]?.limits;
  const uploadLimit = limits?.uploadLimit ?? DEFAULT_UPLOAD_LIMIT;
  const maxFiles = limits?.maxFiles ?? DEFAULT_MAX_FILES;
  const body: Record<string, unknown> = Object.create(null);
  if (!request.hasBody) return Promise.resolve({ body, issues: [] });

  const contentType = request.headers.get('content-type');
  const mediaType = mediaTypeOf(contentType);
  if (mediaType === undefined || !plan.mediaTypes.includes(mediaType)) {
    discardBodyOf(request);
    return Promise.reject(
      new UnsupportedMediaTypeError(
        `Expected ${plan.mediaTypes.join(' or ')}, got ${contentType ? `"${contentType}"` : 'no content type'}`,
      ),
    );
  }
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > uploadLimit) {
    discardBodyOf(request);
    return Promise.reject(refused(`Request body exceeds the upload limit of ${uploadLimit} bytes`));
  }

  let parser: BusboyInstance;
  try {
    parser = createParser({
      headers: { 'content-type': contentType! },
      limits: { fieldSize: MAX_FIELD_SIZE, parts: MAX_PARTS, fields: MAX_PARTS, files: maxFiles, fieldNameSize: 1024 },
      defCharset: 'utf8',
    });
  } catch (error) {
    discardBodyOf(request);
    return Promise.reject(new BadRequestError(`Malformed form body: ${(error as Error).message}`));
  }

  const spool = new Spool();
  // Past the threshold a file goes to disk only where the transport says when the response is done.
  const canSpool = plan.largestFile > SPOOL_THRESHOLD && onRequestFinished(request, () => spool.removeAll());
  const pending: PendingFile[] = [];
  const bodyStream = bodyStreamOf(request);
  // node:stream from the registry, not imported: a bundle would load it with core (see spool.ts).
  const { Readable } = builtin('node:stream');
  const source = bodyStream instanceof Readable ? bodyStream : Readable.from(bodyStream);

  // The body may take `uploadTimeout` in place of the server's `requestTimeout`, and no byte may be
  // awaited longer than `headersTimeout`; past either, 408 and the connection is closed.
  const mark = bodyStream as { [UPLOADING]?: boolean };
  mark[UPLOADING] = true;
  const uploadTimeout = limits?.uploadTimeout ?? 600_000;
  const idleTimeout = limits?.headersTimeout ?? 10_000;
  let deadline: ReturnType<typeof setTimeout> | undefined;
  let idle: ReturnType<typeof setTimeout> | undefined;
  const stopTimers = () => {
    mark[UPLOADING] = false;
    clearTimeout(deadline);
    clearTimeout(idle);
  };

  return new Promise<FormContent>((resolve, reject) => {
    let failed = false;
    let ended = false;
    let received = 0;
    const openFiles = new Set<BusboyFileStream>();

    const timedOut = (detail: string) => {
      const error = new HTTPError(408, detail, undefined, { headers: { connection: 'close' } });
      fail(error, false);
      source.pause();
    };
    deadline = setTimeout(() => timedOut(`The upload did not complete within ${uploadTimeout / 1000} s`), uploadTimeout);
    idle = setTimeout(() => timedOut(`No byte of the upload arrived for ${idleTimeout / 1000} s`), idleTimeout);
    deadline.unref?.();
    idle.unref?.();

    const fail = (error: HTTPError, discard: boolean) => {
      if (failed) return;
      failed = true;
      stopTimers();
      source.off('data', onData);
      parser.removeAllListeners('drain');
      for (const stream of openFiles) stream.resume();
      spool.removeAll();
      if (discard) discardBodyOf(request);
      else if (source !== bodyStream) source.destroy();
      reject(error);
    };

    const onData = (data: Buffer | Uint8Array | string) => {
      idle?.refresh();
      const chunk = typeof data === 'string' ? Buffer.from(data) : data;
      received += chunk.byteLength;
      if (received > uploadLimit) {
        fail(refused(`Request body exceeds the upload limit of ${uploadLimit} bytes`), true);
        return;
      }
      if (!parser.write(chunk)) source.pause();
    };
    parser.on('drain', () => source.resume());
    source.on('data', onData);
    source.once('end', () => {
      ended = true;
      stopTimers();
      if (!failed) parser.end();
    });
    source.once('error', (error) => fail(new BadRequestError('The request body could not be read', undefined, { cause: error }), false));
    source.once('close', () => {
      if (!ended) fail(new BadRequestError('The request body ended before it was complete'), false);
    });

    parser.on('field', (name, value, _nameTruncated, valueTruncated) => {
      if (failed) return;
      if (valueTruncated) {
        fail(refused(`Form field "${name}" exceeds ${MAX_FIELD_SIZE} bytes`), true);
        return;
      }
      const field = plan.fields.get(name);
      if (field === undefined || field.kind === 'file') put(body, name, Array.isArray(body[name]), value);
      else put(body, name, field.array, field.convert(value));
    });

    parser.on('file', (name, stream, filename, _encoding, declaredType) => {
      // A part cut short is reported by the parser too (400 there); the part's own error adds nothing.
      stream.on('error', () => {});
      const field = plan.fields.get(name);
      if (failed || field === undefined || field.kind !== 'file') {
        // Files the endpoint does not take are read past and dropped.
        stream.resume();
        return;
      }
      pending.push({ field, done: receiveFile(stream, field, cleanFileName(filename), declaredType) });
    });

    const receiveFile = (stream: BusboyFileStream, field: Extract<FormField, { kind: 'file' }>, name: string, declaredType: string) =>
      new Promise<UploadedFile>((done, failFile) => {
        openFiles.add(stream);
        const chunks: Buffer[] = [];
        let size = 0;
        let disk: ReturnType<Spool['create']> | undefined;
        const head: Buffer[] = [];
        let headSize = 0;
        stream.on('data', (chunk: Buffer) => {
          if (failed) return;
          size += chunk.byteLength;
          if (size > field.maxSize) {
            fail(refused(`File "${field.name}" exceeds ${field.maxSize} bytes`), true);
            return;
          }
          if (headSize < SNIFF_BYTES) {
            head.push(chunk);
            headSize += chunk.byteLength;
          }
          if (disk === undefined && canSpool && size > SPOOL_THRESHOLD) {
            disk = spool.create();
            disk.out.on('error', (error) => fail(new BadRequestError('The upload could not be stored', undefined, { cause: error }), true));
            for (const held of chunks) disk.out.write(held);
            chunks.length = 0;
          }
          if (disk === undefined) chunks.push(chunk);
          else if (!disk.out.write(chunk)) {
            // The disk is slower than the network: pause the part (and so the socket) until it drains.
            stream.pause();
            disk.out.once('drain', () => stream.resume());
          }
        });
        stream.once('end', () => {
          openFiles.delete(stream);
          if (failed) return;
          const sniffed = Buffer.concat(head, headSize).subarray(0, SNIFF_BYTES);
          const typed = detectType(sniffed, declaredType);
          if (disk === undefined) {
            typed.then((type) => done(new MemoryFile(name, type, Buffer.concat(chunks, size))), failFile);
            return;
          }
          const { out, path } = disk;
          out.end();
          Promise.all([typed, new Promise<void>((ok) => out.once('finish', ok))]).then(
            ([type]) => done(new DiskFile(name, type, size, path)),
            failFile,
          );
        });
      });

    parser.on('filesLimit', () => fail(refused(`More than ${maxFiles} files in one request`), true));
    parser.on('fieldsLimit', () => fail(refused(`More than ${MAX_PARTS} parts in one form`), true));
    parser.on('partsLimit', () => fail(refused(`More than ${MAX_PARTS} parts in one form`), true));
    parser.on('error', (error: unknown) => fail(new BadRequestError(`Malformed form body: ${(error as Error)?.message ?? error}`), true));
    parser.on('finish', () => {
      if (failed) return;
      Promise.all(pending.map((p) => p.done)).then(
        (files) => {
          if (failed) return;
          const issues: ValidationIssue[] = [];
          files.forEach((uploaded, i) => {
            const { field } = pending[i]!;
            const index = put(body, field.name, field.array, uploaded);
            if (field.types !== undefined && !field.types.includes(uploaded.type)) {
              issues.push({
                in: 'body',
                path: field.array ? [field.name, index] : [field.name],
                message: `File type ${uploaded.type} is not accepted; expected ${field.types.join(', ')}`,
                code: 'file_type',
              });
            }
          });
          if (issues.length > 0) spool.removeAll();
          resolve({ body, issues });
        },
        (error: unknown) => fail(new BadRequestError('The upload could not be stored', undefined, { cause: error }), true),
      );
    });
  });
}

// file-type takes about 70 ms to import: loaded on the first file whose type is checked, not with the app.
// Its core entry: the bytes are already in hand, and the Node entry's static imports of node:stream/web
// and node:fs/promises would be hoisted to the top of a bundled function and loaded with it.
let fileTypeModule: Promise<typeof import('file-type/core')> | undefined;
const fileType = () => (fileTypeModule ??= import('file-type/core'));

/** The type by content; a declared text type when the content has no magic bytes; else octet-stream. */
async function detectType(head: Buffer, declared: string): Promise<string> {
  const found = head.byteLength === 0 ? undefined : await (await fileType()).fileTypeFromBuffer(head);
  if (found !== undefined) return found.mime;
  const type = mediaTypeOf(declared);
  // Text types carry no magic bytes: the declared one is believed only for them.
  return type !== undefined && isTextContentType(type) ? type : BYTES_TYPE;
}

function refused(message: string): PayloadTooLargeError {
  return new PayloadTooLargeError(message);
}
