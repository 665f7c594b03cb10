// The typed client: openapi-fetch, typed by the `paths` that `fnapi client` writes, with a body
// serializer that sends uploads as multipart. Web standards only (fetch, FormData, Blob).
import openapiFetch, { type Client, type ClientOptions as FetchClientOptions, defaultBodySerializer } from 'openapi-fetch';

/** A media type, as openapi-fetch's `Client` narrows bodies by it (`application/json` …). */
type MediaType = `${string}/${string}`;

/**
 * openapi-fetch's client options (`baseUrl`, `headers`, `fetch`, `querySerializer`, `bodySerializer`,
 * and any `RequestInit` field), each of which may also be given as `undefined` (as an unset
 * environment variable is, under `exactOptionalPropertyTypes`).
 */
export type ClientOptions = { [K in keyof FetchClientOptions]?: FetchClientOptions[K] | undefined };

/**
 * A typed client of an fnapi app: `createClient<paths>({ baseUrl })` with the `paths` that
 * `fnapi client` writes. It is openapi-fetch's client — `GET`, `POST` … take a path of the
 * document, typed params and body, and answer `{ data, error, response }`, where `error` is the union
 * of the operation's documented error bodies, narrowed by `error.status` — whose default body
 * serializer sends a body holding a `Blob` (a `file()` field: a `Blob` or an array of them) as
 * multipart `FormData`, and any other body as openapi-fetch does (JSON, or a URL-encoded form when
 * the call's `Content-Type` is `application/x-www-form-urlencoded`). A `bodySerializer` given here or
 * to a call wins.
 */
export function createClient<Paths extends object, Media extends MediaType = MediaType>(options: ClientOptions = {}): Client<Paths, Media> {
  return openapiFetch<Paths, Media>({ ...(options as FetchClientOptions), bodySerializer: options.bodySerializer ?? serializeBody });
}

/** openapi-fetch's default, which also reads the call's headers (for URL-encoded forms). */
const fetchBodySerializer = defaultBodySerializer as (body: unknown, headers?: unknown) => unknown;

function serializeBody(body: unknown, headers?: unknown): unknown {
  return holdsFile(body) ? toFormData(body) : fetchBodySerializer(body, headers);
}

/** A plain object with a `Blob` among its fields (directly or in an array): a multipart upload. */
function holdsFile(body: unknown): body is object {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  if (body instanceof Blob || body instanceof FormData || body instanceof URLSearchParams) return false;
  return Object.values(body).some((value) => value instanceof Blob || (Array.isArray(value) && value.some((item) => item instanceof Blob)));
}

/**
 * A form's fields as the `FormData` that fetch sends as `multipart/form-data`: a `Blob` is a file
 * part, an array gives one part per item under the field's name, `undefined` and `null` are left
 * out, a `Date` is sent as its ISO string, another object as JSON and anything else as its string.
 * Pass it as a call's `bodySerializer` to send a form without a file (an optional file left out) as
 * multipart.
 */
export function toFormData(fields: object): FormData {
  if (fields instanceof FormData) return fields;
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item === undefined || item === null) continue;
      if (item instanceof Blob) form.append(name, item);
      else form.append(name, textOf(item));
    }
  }
  return form;
}

function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
