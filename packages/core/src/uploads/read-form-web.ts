import type { FormField, FormPlan, UploadedFile, ValidationIssue } from '@fnapi/validation';
import { BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../http/errors.js';
import { BYTES_TYPE, isTextContentType } from '../http/facts.js';
import { concatBytes, utf8, utf8Length } from '../platform/platform.js';
import type { Request } from '../http/request.js';
import { bodyStreamOf, discardBodyOf } from '../http/request-access.js';
import { REQUEST_INTERNALS } from '../http/request-internals.js';
import { DEFAULT_MAX_FILES, DEFAULT_UPLOAD_LIMIT, MAX_FIELD_SIZE, MAX_PARTS } from './limits.js';
import { cleanFileName } from './file-name.js';
import { mediaTypeOf, put } from './form-fields.js';
import { MemoryFile } from './spool.js';

/**
 * Forms where there is no file system and no node:stream (workerd; any runtime whose bundler picks the
 * package's Web build): the body is read up to `uploadLimit` (413 as soon as it passes), parsed by the
 * platform's own form parser (`Response.formData()`), and every file stays in memory. The same limits,
 * conversions, type checks and errors as the streaming reader that spools to disk on Node, Bun and Deno.
 */

/** Bytes file-type reads to recognise a format. */
const SNIFF_BYTES = 4100;

export interface FormContent {
  /** Field name → converted text value(s) and uploaded file(s), for the binder. */
  body: Record<string, unknown>;
  /** Files whose content is outside their field's `types`. */
  issues: ValidationIssue[];
}

/** Nothing to load: the platform parses forms. */
export function loadFormParser(): Promise<void> {
  return Promise.resolve();
}

async function readLimited(request: Request, limit: number): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of bodyStreamOf(request)) {
    const part = typeof chunk === 'string' ? utf8(chunk) : chunk;
    size += part.byteLength;
    if (size > limit) {
      discardBodyOf(request);
      throw tooLarge(`Request body exceeds the upload limit of ${limit} bytes`);
    }
    parts.push(part);
  }
  return parts.length === 1 ? parts[0]! : concatBytes(parts, size);
}

export async function readForm(request: Request, plan: FormPlan): Promise<FormContent> {
  const limits = request[REQUEST_INTERNALS]?.limits;
  const uploadLimit = limits?.uploadLimit ?? DEFAULT_UPLOAD_LIMIT;
  const maxFiles = limits?.maxFiles ?? DEFAULT_MAX_FILES;
  const body: Record<string, unknown> = Object.create(null);
  if (!request.hasBody) return { body, issues: [] };

  const contentType = request.headers.get('content-type');
  const mediaType = mediaTypeOf(contentType);
  if (mediaType === undefined || !plan.mediaTypes.includes(mediaType)) {
    discardBodyOf(request);
    throw new UnsupportedMediaTypeError(
      `Expected ${plan.mediaTypes.join(' or ')}, got ${contentType ? `"${contentType}"` : 'no content type'}`,
    );
  }
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > uploadLimit) {
    discardBodyOf(request);
    throw tooLarge(`Request body exceeds the upload limit of ${uploadLimit} bytes`);
  }
  let bytes: Uint8Array;
  try {
    bytes = await readLimited(request, uploadLimit);
  } catch (error) {
    if (error instanceof PayloadTooLargeError) throw error;
    throw new BadRequestError('The request body could not be read', undefined, { cause: error });
  }

  let form: FormData;
  try {
    form = await new globalThis.Response(bytes as BodyInit, { headers: { 'content-type': contentType! } }).formData();
  } catch (error) {
    throw new BadRequestError(`Malformed form body: ${(error as Error)?.message ?? error}`);
  }

  let parts = 0;
  let files = 0;
  const pending: { field: Extract<FormField, { kind: 'file' }>; done: Promise<UploadedFile> }[] = [];
  for (const [name, value] of form) {
    if (++parts > MAX_PARTS) throw tooLarge(`More than ${MAX_PARTS} parts in one form`);
    if (typeof value === 'string') {
      if (utf8Length(value) > MAX_FIELD_SIZE) throw tooLarge(`Form field "${name}" exceeds ${MAX_FIELD_SIZE} bytes`);
      const field = plan.fields.get(name);
      if (field === undefined || field.kind === 'file') put(body, name, Array.isArray(body[name]), value);
      else put(body, name, field.array, field.convert(value));
      continue;
    }
    if (++files > maxFiles) throw tooLarge(`More than ${maxFiles} files in one request`);
    const field = plan.fields.get(name);
    // Files the endpoint does not take are dropped.
    if (field === undefined || field.kind !== 'file') continue;
    if (value.size > field.maxSize) throw tooLarge(`File "${field.name}" exceeds ${field.maxSize} bytes`);
    const file = value as File;
    pending.push({
      field,
      done: file.arrayBuffer().then(async (buffer) => {
        const content = new Uint8Array(buffer);
        const type = await detectType(content.subarray(0, SNIFF_BYTES), file.type);
        return new MemoryFile(cleanFileName(file.name), type, content);
      }),
    });
  }

  const uploaded = await Promise.all(pending.map((entry) => entry.done));
  const issues: ValidationIssue[] = [];
  uploaded.forEach((file, i) => {
    const { field } = pending[i]!;
    const index = put(body, field.name, field.array, file);
    if (field.types !== undefined && !field.types.includes(file.type)) {
      issues.push({
        in: 'body',
        path: field.array ? [field.name, index] : [field.name],
        message: `File type ${file.type} is not accepted; expected ${field.types.join(', ')}`,
        code: 'file_type',
      });
    }
  });
  return { body, issues };
}

let fileTypeModule: Promise<typeof import('file-type/core')> | undefined;
const fileType = () => (fileTypeModule ??= import('file-type/core'));

/** The type by content; a declared text type when the content has no magic bytes; else octet-stream. */
async function detectType(head: Uint8Array, declared: string): Promise<string> {
  const found = head.byteLength === 0 ? undefined : await (await fileType()).fileTypeFromBuffer(head);
  if (found !== undefined) return found.mime;
  const type = mediaTypeOf(declared);
  // Text types carry no magic bytes: the declared one is believed only for them.
  return type !== undefined && isTextContentType(type) ? type : BYTES_TYPE;
}

function tooLarge(message: string): PayloadTooLargeError {
  return new PayloadTooLargeError(message);
}
