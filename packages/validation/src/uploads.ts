import type { Readable } from 'node:stream';
import { z } from 'zod';
import { converterFor, defOf, elementOf, isArraySchema, isObjectSchema, lenient, objectFields, unwrap } from './convert.js';
import { isParamSource, ParamSource } from './sources.js';
import { isZodSchema, type Schema } from './standard.js';

/** One uploaded file, as a handler receives it (spooled: in memory, or in a temporary file past 1 MiB). */
export interface UploadedFile {
  /** The client's file name: untrusted, never used for a path. */
  readonly name: string;
  /** The media type found in the content (magic bytes), else the part's declared type for text types, else `application/octet-stream`. */
  readonly type: string;
  /** Size in bytes. */
  readonly size: number;
  /** The content as a stream; may be called more than once. */
  stream(): Readable;
  bytes(): Promise<Uint8Array>;
  text(): Promise<string>;
}

export interface FileOptions {
  /** Largest accepted file in bytes; default 10 MiB (413 past it). */
  maxSize?: number;
  /** Accepted media types, checked against the content's magic bytes (422 `file_type` otherwise). */
  types?: readonly string[];
}

export const DEFAULT_MAX_FILE_SIZE = 10 * 1024 * 1024;

const FILE_BRAND: unique symbol = Symbol.for('fnapi.UploadedFile') as never;
const fileOptions = new WeakMap<z.ZodType, Required<Pick<FileOptions, 'maxSize'>> & FileOptions>();

/** Marks an object as an uploaded file, so `file()` accepts it. */
export function brandUploadedFile<T extends object>(value: T): T {
  Object.defineProperty(value, FILE_BRAND, { value: true });
  return value;
}

export function isUploadedFile(value: unknown): value is UploadedFile {
  return typeof value === 'object' && value !== null && (value as { [FILE_BRAND]?: boolean })[FILE_BRAND] === true;
}

export type FileSchema = z.ZodCustom<UploadedFile, UploadedFile>;

/**
 * A file parameter: the endpoint then reads `multipart/form-data`, and this field's file part is bound
 * here (`z.array(file())` takes several under one name).
 */
export function file(options: FileOptions = {}): FileSchema {
  const maxSize = options.maxSize ?? DEFAULT_MAX_FILE_SIZE;
  if (!(Number.isInteger(maxSize) && maxSize > 0)) throw new TypeError(`file({ maxSize }) must be a positive integer, got ${maxSize}`);
  // `type: string, format: binary` is what Swagger UI offers a file picker for; `contentMediaType` is 3.1's word for it.
  const schema = z
    .custom<UploadedFile>(isUploadedFile, { message: 'Expected a file' })
    .meta({ type: 'string', format: 'binary', contentMediaType: 'application/octet-stream' } as Record<string, unknown>);
  fileOptions.set(schema, { ...options, maxSize });
  return schema;
}

/** The options of a `file()` schema (through optional/array wrappers), or undefined for any other schema. */
export function fileOptionsOf(schema: Schema): (FileOptions & { maxSize: number; array: boolean }) | undefined {
  if (!isZodSchema(schema)) return undefined;
  const inner = unwrap(schema as z.ZodType);
  const array = defOf(inner).type === 'array';
  const element = array ? unwrap(defOf(inner).element as z.ZodType) : inner;
  const options = fileOptions.get(element);
  return options === undefined ? undefined : { ...options, array };
}

/** A whole form without files (`application/x-www-form-urlencoded` or multipart), validated by `schema`. */
export class FormSource<S extends Schema = Schema> extends ParamSource<S, 'body'> {
  readonly form = true;
  constructor(schema: S) {
    super('body', schema, true);
  }
}

/** A parameter that receives a whole form without files (urlencoded or multipart) as one object. */
export function form<S extends Schema>(schema: S): FormSource<S> {
  return new FormSource(schema);
}

function isFormSource(value: unknown): value is FormSource {
  return isParamSource(value) && (value as { form?: unknown }).form === true;
}

/** How one form field is read: files are spooled, text values converted as strictly as query strings. */
export type FormField =
  | { kind: 'file'; name: string; array: boolean; maxSize: number; types: readonly string[] | undefined }
  | { kind: 'text'; name: string; array: boolean; convert: (raw: string) => unknown };

/** What an endpoint reads from a form body; undefined when it reads none. */
export interface FormPlan {
  /** `multipart/form-data` only (with files) or urlencoded as well (`form()`). */
  mediaTypes: readonly string[];
  /** Fields with declared schemas, by name; other parts are kept as strings (text) or drained (files). */
  fields: ReadonlyMap<string, FormField>;
  /** Largest `maxSize` of the file fields (0 without files). */
  largestFile: number;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
export const MULTIPART = 'multipart/form-data';
export const URLENCODED = 'application/x-www-form-urlencoded';

function textField(name: string, schema: Schema): FormField {
  const array = isArraySchema(schema);
  const target = array ? elementOf(schema) : schema;
  return { kind: 'text', name, array, convert: lenient(converterFor(target)) };
}

/**
 * The form an endpoint reads, from its params: any `file()` parameter makes it a multipart endpoint
 * (the other non-path, non-explicit parameters are its text fields); a `form(schema)` parameter reads
 * a whole form into one object.
 */
export function compileForm(
  method: string,
  params: Record<string, unknown> | undefined,
  pathParams: readonly string[],
): FormPlan | undefined {
  if (params === undefined) return undefined;
  const paths = new Set(pathParams);
  const entries = Object.entries(params).filter(([name]) => !paths.has(name));
  const formParam = entries.find(([, spec]) => isFormSource(spec));
  if (formParam !== undefined) {
    const schema = (formParam[1] as FormSource).schema;
    const fields = new Map<string, FormField>();
    if (isObjectSchema(schema)) {
      for (const [name, field] of objectFields(schema)) {
        if (fileOptionsOf(field) !== undefined)
          throw new TypeError(`form() receives a form without files; declare "${name}" as its own file() parameter`);
        fields.set(name, textField(name, field));
      }
    }
    return { mediaTypes: [URLENCODED, MULTIPART], fields, largestFile: 0 };
  }
  const hasFile = entries.some(([, spec]) => !isParamSource(spec) && fileOptionsOf(spec as Schema) !== undefined);
  if (!hasFile) return undefined;
  if (!BODY_METHODS.has(method.toUpperCase())) {
    throw new TypeError(`A file() parameter is read from a multipart body; register the endpoint with POST, PUT or PATCH, not ${method}`);
  }
  const fields = new Map<string, FormField>();
  let largestFile = 0;
  for (const [name, spec] of entries) {
    if (isParamSource(spec)) continue;
    const options = fileOptionsOf(spec as Schema);
    if (options === undefined) fields.set(name, textField(name, spec as Schema));
    else {
      fields.set(name, { kind: 'file', name, array: options.array, maxSize: options.maxSize, types: options.types });
      largestFile = Math.max(largestFile, options.maxSize);
    }
  }
  return { mediaTypes: [MULTIPART], fields, largestFile };
}
