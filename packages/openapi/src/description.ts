import type { BinderPlan, Schema, z } from '@fnapi/validation';

// What a document is built from: the operations, the API's info, and the server's HTTP facts.

/** One security scheme an operation requires (the extension point used by `@fnapi/auth`). */
export interface SecurityRequirement {
  /** Key under `components.securitySchemes`, e.g. `bearerAuth`. */
  name: string;
  /** An OpenAPI Security Scheme Object, e.g. `{ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }`. */
  scheme: Record<string, unknown>;
  /** OAuth2/OpenID scopes or role names; `[]` when omitted. */
  scopes?: string[];
  /**
   * The app chose `name` (an auth function's `schemeName`): the document keeps it. A default name
   * whose definition differs from another scheme's under the same name is numbered instead
   * (`apiKeyHeader2`), so the document never fails over a name.
   */
  explicit?: boolean;
}

/** Everything the document needs to know about one endpoint. */
export interface OperationDescription {
  /** Upper-case HTTP method: `GET`, `POST`, … */
  method: string;
  /** OpenAPI path template with any router prefix applied, e.g. `/users/{user_id}`. */
  path: string;
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  deprecated?: boolean;
  /** The day the operation goes away (`x-sunset`): `YYYY-MM-DD` or an ISO instant. */
  sunset?: string;
  /** What the binder is compiled from; `describeParams(plan)` gives the parameters and the body. */
  plan: BinderPlan;
  /** Success response model. */
  response?: Schema;
  /** Success status; 204 (and 205, 304, 1xx) is documented without content. */
  statusCode: number;
  /** Schemes required to call the operation; all of them apply together. */
  security?: SecurityRequirement[];
  /**
   * Alternatives (any one is enough), each a list of schemes that apply together; documented as
   * separate security requirements, each also carrying `security`.
   */
  securityAlternatives?: SecurityRequirement[][];
  /**
   * Every answer the operation can give, as the server computes it (`@fnapi/core` does, once per
   * operation); rendered as given. Absent: only the success status from `response` and `statusCode`.
   */
  responses?: OperationResponse[];
  /**
   * A streamed success body (server-sent events, JSON Lines): its media type and the schema of each
   * item, documented as `itemSchema` (3.2) or `x-itemSchema` beside a string `schema` (3.1).
   */
  stream?: {
    mediaType: string;
    item: Schema;
    /** `events`: each event's data is an item (documented as OpenAPI 3.2's event object); `lines`: the item itself. */
    kind?: 'events' | 'lines';
    /** Named events: `item` is an object with one property per name. */
    names?: readonly string[];
  };
}

/** One documented answer of an operation: status, description, body and headers. */
export interface OperationResponse {
  status: number;
  description: string;
  /** The body; absent for an answer without content (204, 304, …). */
  content?: {
    mediaType: string;
    /** Absent: a body of unknown shape. */
    schema?: Schema;
    /** Component name for a schema without an id of its own (`.meta({ id })` wins). */
    component?: string;
    /** Further media types of the same body (a binary answer of several types). */
    alsoMediaTypes?: readonly string[];
  };
  headers?: Record<string, { description?: string; schema?: z.ZodType; required?: boolean }>;
}

export interface DocumentInfo {
  title: string;
  version: string;
  description?: string;
  /** `servers`: where the API is served, e.g. `[{ url: 'https://api.example.com', description: 'Production' }]`. */
  servers?: { url: string; description?: string }[];
  /** `info.contact`. */
  contact?: { name?: string; url?: string; email?: string };
  /** `info.license`: a name, and an SPDX `identifier` or a `url`. */
  license?: { name: string; identifier?: string; url?: string };
  /** `info.termsOfService`: a URL. */
  termsOfService?: string;
  /** Descriptions of the tags endpoints use (and their order in the pages). */
  tags?: { name: string; description?: string }[];
}

/** A schema that could not be documented: it is shown as an open schema, and the rest is served. */
export interface SchemaProblem {
  method: string;
  path: string;
  operationId: string;
  /** The parameter (`query page`, `body user`, `response`) whose schema failed. */
  parameter: string;
  error: unknown;
}

/**
 * The HTTP facts the document states, owned by the server that sends the responses (`@fnapi/core`
 * passes its own), so the document and the wire never disagree.
 */
export interface HttpFacts {
  /** The reason phrase of a status (a response's description). */
  reasonPhrase(status: number): string;
  /** Whether a response of this status carries content (not 1xx, 204, 205, 304). */
  statusHasBody(status: number): boolean;
  /** Media type of success bodies (`application/json`). */
  jsonMediaType: string;
  /** Media type of error bodies (`application/problem+json`). */
  problemMediaType: string;
}

export interface BuildOptions {
  /** The server's HTTP facts. */
  http: HttpFacts;
  /** Told of every schema that could not be documented (the document is built all the same). */
  onSchemaProblem?(problem: SchemaProblem): void;
  /** The document's `openapi` version; default `'3.1.0'`. */
  openapiVersion?: OpenAPIVersion;
  /** The app's `maxFiles`: the `maxItems` of a list of files. */
  maxFiles?: number;
}

export type OpenAPIVersion = '3.1.0' | '3.2.0';
