import fc from 'fast-check';
import { arbitraryFor, type Place, WRONG_JSON, wrongStrings } from './arbitraries.js';
import { type JsonSchema, readParameter, type SchemaBook } from './schemas.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace', 'query', 'x-query'];
const STREAM_TYPES = ['text/event-stream', 'application/jsonl', 'application/x-ndjson', 'application/octet-stream'];
const UPLOAD_TYPES = ['multipart/form-data', 'application/x-www-form-urlencoded', 'application/octet-stream'];

export interface Parameter {
  name: string;
  in: Exclude<Place, 'body'>;
  required: boolean;
  schema: JsonSchema;
}

/** One operation of the document, as the check needs it. */
export interface Operation {
  id: string;
  method: string;
  route: string;
  parameters: Parameter[];
  body?: { schema: JsonSchema; required: boolean };
  responses: Record<string, JsonSchema>;
  /** Every security requirement names a scheme: without credentials the answer must be 401. */
  secured: boolean;
  /** Why the operation is not exercised (streams, uploads). */
  skip?: string;
}

export function operationsOf(document: JsonSchema): Operation[] {
  const out: Operation[] = [];
  const paths = (document.paths ?? {}) as Record<string, Record<string, JsonSchema>>;
  for (const [route, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const shared = (item.parameters ?? []) as unknown as Parameter[];
      const parameters = [...shared, ...((op.parameters ?? []) as Parameter[])].map((p) => ({
        name: p.name,
        in: p.in,
        required: p.in === 'path' || p.required === true,
        schema: (p.schema ?? {}) as JsonSchema,
      }));
      const content = ((op.requestBody as JsonSchema | undefined)?.content ?? {}) as Record<string, JsonSchema>;
      const json = Object.keys(content).find((type) => type === 'application/json' || type.endsWith('+json'));
      const responses = (op.responses ?? {}) as Record<string, JsonSchema>;
      const security = (op.security ?? document.security) as Record<string, unknown>[] | undefined;
      const produced = Object.values(responses).flatMap((r) => Object.keys((r.content ?? {}) as object));
      let skip: string | undefined;
      if (produced.some((type) => STREAM_TYPES.includes(type))) skip = 'answers a stream';
      else if (!json && Object.keys(content).some((type) => UPLOAD_TYPES.includes(type))) skip = 'reads an upload';
      else if (!json && Object.keys(content).length > 0) skip = `reads ${Object.keys(content).join(', ')}`;
      out.push({
        id: typeof op.operationId === 'string' ? op.operationId : `${method.replace('x-', '').toUpperCase()} ${route}`,
        // QUERY is the path item's `query` under OpenAPI 3.2, `x-query` under 3.1.
        method: method.replace('x-', '').toUpperCase(),
        route,
        parameters,
        body: json
          ? { schema: (content[json]!.schema ?? {}) as JsonSchema, required: (op.requestBody as JsonSchema).required === true }
          : undefined,
        responses,
        secured: Array.isArray(security) && security.length > 0 && security.every((requirement) => Object.keys(requirement).length > 0),
        skip,
      });
    }
  }
  return out;
}

/** The values of one call: parameters by place and name, and the JSON body. */
export interface Input {
  params: Partial<Record<Parameter['in'], Record<string, unknown>>>;
  body?: unknown;
}

/** A request as it is sent. */
export interface Draft {
  method: string;
  route: string;
  /** Path parameters by name, percent-encoded. */
  path: Record<string, string>;
  query: [string, string][];
  headers: [string, string][];
  /** `oversize`: that many bytes of `a`, so that a curl line need not carry them. */
  body?: { text: string; contentType?: string } | { oversize: number; contentType: string };
}

/** Valid inputs of an operation: each value generated from its schema and accepted by its validator. */
export function validInputs(book: SchemaBook, op: Operation): fc.Arbitrary<Input> {
  const places: Record<string, fc.Arbitrary<Record<string, unknown>>> = {};
  for (const place of ['path', 'query', 'header', 'cookie'] as const) {
    const own = op.parameters.filter((p) => p.in === place);
    if (own.length === 0) continue;
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    for (const p of own) model[p.name] = arbitraryFor(book, p.schema, place).filter((value) => acceptsParameter(book, p, value));
    places[place] = fc.record(model, { requiredKeys: own.filter((p) => p.required).map((p) => p.name) });
  }
  const params = fc.record(places) as fc.Arbitrary<Input['params']>;
  if (!op.body) return params.map((p) => ({ params: p }));
  const schema = op.body.schema;
  const body = arbitraryFor(book, schema, 'body').filter((value) => book.valid(schema, value));
  return fc.record({ params, body });
}

/** Whether the string the value travels as is read back as a value the schema accepts. */
function acceptsParameter(book: SchemaBook, p: Parameter, value: unknown): boolean {
  const texts = Array.isArray(value) ? value.map(asText) : [asText(value)];
  // HTTP trims header values: one with outer spaces would arrive as another value.
  if (p.in === 'header' && texts.some((text) => text !== text.trim())) return false;
  if (Array.isArray(value)) {
    const items = book.resolve(p.schema).items as JsonSchema | undefined;
    return texts.every((text) => readParameter(book, items ?? {}, text) !== undefined) && book.valid(p.schema, value);
  }
  return readParameter(book, p.schema, texts[0]!) !== undefined;
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}

/** A change that makes a valid input invalid, named for the report. */
export interface Mutation {
  label: string;
  apply(input: Input, draft: Draft): Draft;
}

/**
 * Every way the check breaks an operation's input: a wrong type in each place, each required value
 * missing, malformed JSON, an oversized body, a body of another media type. Only changes the schemas
 * say are invalid are kept.
 */
export function mutationsOf(book: SchemaBook, op: Operation, bodyLimit: number): Mutation[] {
  const out: Mutation[] = [];
  for (const p of op.parameters) {
    const where = `${p.in} parameter ${p.name}`;
    const resolved = book.resolve(p.schema);
    const isArray = resolved.type === 'array';
    const itemSchema = isArray ? ((resolved.items ?? {}) as JsonSchema) : p.schema;
    // An empty path segment is another URL (`/users/`), not a wrong value for this one.
    const wrong = wrongStrings(book.resolve(itemSchema)).filter(
      (text) => !(p.in === 'path' && text === '') && readParameter(book, itemSchema, text) === undefined,
    );
    for (const text of [...new Set(wrong)].slice(0, 3)) {
      out.push({ label: `${where} = ${JSON.stringify(text)}`, apply: (_input, draft) => setParameter(draft, p, text) });
    }
    if (p.required && p.in !== 'path') out.push({ label: `${where} missing`, apply: (_input, draft) => setParameter(draft, p, undefined) });
  }
  if (op.body) {
    const schema = op.body.schema;
    const resolved = book.resolve(schema);
    for (const value of WRONG_JSON.filter((v) => !book.valid(schema, v)).slice(0, 3)) {
      out.push({ label: `body = ${JSON.stringify(value)}`, apply: (_input, draft) => withBody(draft, JSON.stringify(value)) });
    }
    const properties = (resolved.properties ?? {}) as Record<string, unknown>;
    const required = new Set((resolved.required as string[] | undefined) ?? []);
    for (const [name, propertySchema] of Object.entries(properties)) {
      const wrong = WRONG_JSON.filter((v) => v !== null || required.has(name)).filter((v) => !book.valid(propertySchema, v));
      for (const value of wrong.slice(0, 2)) {
        out.push({
          label: `body field ${name} = ${JSON.stringify(value)}`,
          apply: (input, draft) => withBody(draft, JSON.stringify({ ...(input.body as object), [name]: value })),
        });
      }
      if (required.has(name)) {
        out.push({
          label: `body field ${name} missing`,
          apply: (input, draft) => {
            const { [name]: _dropped, ...rest } = input.body as Record<string, unknown>;
            return withBody(draft, JSON.stringify(rest));
          },
        });
      }
    }
    out.push({ label: 'malformed JSON body', apply: (_input, draft) => withBody(draft, '{"') });
    out.push({
      label: `body over the ${bodyLimit}-byte limit`,
      apply: (_input, draft) => ({ ...draft, body: { oversize: bodyLimit + 1, contentType: 'application/json' } }),
    });
    out.push({
      label: 'body sent as text/plain',
      apply: (_input, draft) => ({
        ...draft,
        body:
          draft.body && 'text' in draft.body
            ? { text: draft.body.text, contentType: 'text/plain' }
            : { text: 'x', contentType: 'text/plain' },
      }),
    });
    if (op.body.required && !book.valid(schema, undefined))
      out.push({ label: 'no body', apply: (_input, draft) => ({ ...draft, body: undefined }) });
  }
  return out;
}

function withBody(draft: Draft, text: string): Draft {
  return { ...draft, body: { text, contentType: 'application/json' } };
}

function setParameter(draft: Draft, p: Parameter, text: string | undefined): Draft {
  switch (p.in) {
    case 'path':
      return { ...draft, path: { ...draft.path, [p.name]: encodeSegment(text ?? '') } };
    case 'query': {
      const query = draft.query.filter(([name]) => name !== p.name);
      return { ...draft, query: text === undefined ? query : [...query, [p.name, text]] };
    }
    default: {
      const header = p.in === 'cookie' ? 'cookie' : p.name.toLowerCase();
      let headers = draft.headers;
      if (p.in === 'cookie') {
        const jar = cookiesOf(headers).filter(([name]) => name !== p.name);
        if (text !== undefined) jar.push([p.name, text]);
        headers = headers.filter(([name]) => name !== 'cookie');
        if (jar.length) headers = [...headers, ['cookie', jar.map(([n, v]) => `${n}=${v}`).join('; ')]];
      } else {
        headers = headers.filter(([name]) => name !== header);
        if (text !== undefined) headers = [...headers, [header, text]];
      }
      return { ...draft, headers };
    }
  }
}

function cookiesOf(headers: [string, string][]): [string, string][] {
  const line = headers.find(([name]) => name === 'cookie')?.[1];
  if (!line) return [];
  return line.split('; ').map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]);
}

/** `.` and `..` would be read as relative segments by clients: encode them too. */
function encodeSegment(text: string): string {
  return encodeURIComponent(text).replace(/\./g, '%2E');
}

/** The request a valid input becomes, with the user's headers. */
export function draftOf(op: Operation, input: Input, userHeaders: [string, string][]): Draft {
  const path: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.params.path ?? {})) path[name] = encodeSegment(asText(value));
  const query: [string, string][] = [];
  for (const [name, value] of Object.entries(input.params.query ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) query.push([name, asText(item)]);
  }
  const headers: [string, string][] = userHeaders.map(([n, v]) => [n.toLowerCase(), v]);
  for (const [name, value] of Object.entries(input.params.header ?? {})) headers.push([name.toLowerCase(), asText(value)]);
  const cookies = Object.entries(input.params.cookie ?? {}).map(([n, v]) => `${n}=${asText(v)}`);
  if (cookies.length) {
    const own = headers.findIndex(([name]) => name === 'cookie');
    if (own === -1) headers.push(['cookie', cookies.join('; ')]);
    else headers[own] = ['cookie', [headers[own]![1], ...cookies].join('; ')];
  }
  return {
    method: op.method,
    route: op.route,
    path,
    query,
    headers,
    body: op.body && input.body !== undefined ? { text: JSON.stringify(input.body), contentType: 'application/json' } : undefined,
  };
}

/** Path and query string of a draft. */
export function urlOf(draft: Draft): string {
  const path = draft.route.replace(/\{([^}]+)\}/g, (_m, name: string) => draft.path[name] ?? '');
  if (draft.query.length === 0) return path;
  return `${path}?${draft.query.map(([n, v]) => `${encodeURIComponent(n)}=${encodeURIComponent(v)}`).join('&')}`;
}
