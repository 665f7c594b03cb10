import {
  buildDocument,
  type DocsUi,
  type DocumentInfo,
  docsRoutes,
  type OpenAPIVersion,
  type OperationDescription,
  type OperationResponse,
  type SchemaProblem,
} from '@fnapi/openapi';
import { z } from '@fnapi/validation';
import { DEPRECATION_HEADER_DOCS } from '../http/deprecation.js';
import type { BuiltinRoute, RegisteredEndpoint } from '../serve/compile.js';
import { JSON_TYPE, PROBLEM_JSON, reasonPhrase, statusHasBody } from '../http/facts.js';
import type { Middleware } from '../serve/pipeline.js';
import { Response } from '../http/response.js';
import { streamOf } from '../serve/streams.js';
import type { ValidationErrorFormat } from '../serve/funnel.js';
import { endpointMetadata, endpointParams, operationResponses } from './statuses.js';
import { documentedPath } from '../serve/route-table.js';

export interface DocumentSettings {
  title: string;
  version: string;
  description: string | undefined;
  openapiUrl: string | null;
  docsUrl: string | null;
  redocUrl: string | null;
  docsCdn: string | undefined;
  docsAssetsUrl?: string | undefined;
  /** The page at `docsUrl`. */
  docsUi?: DocsUi;
  validationError: ValidationErrorFormat | undefined;
  /** The app's middleware (their `responses` are documented on every operation). */
  middleware: readonly Middleware[];
  openapiVersion: OpenAPIVersion | undefined;
  /** The app's `maxFiles` (the `maxItems` of a list of files). */
  maxFiles?: number;
  /** The rest of the document's `info` and top level: servers, contact, license, terms, tag descriptions. */
  info: Pick<DocumentInfo, 'servers' | 'contact' | 'license' | 'termsOfService' | 'tags'>;
}

/** How an endpoint is described in the OpenAPI document (undefined when kept out of it). */
function operationOf(endpoint: RegisteredEndpoint, settings: DocumentSettings): OperationDescription | undefined {
  const { options } = endpoint.definition;
  const terms = endpoint.terms;
  if ((terms?.includeInSchema ?? options.includeInSchema) === false) return undefined;
  const metadata = endpointMetadata(endpoint);
  // The endpoint's own `middleware` option runs innermost.
  const own = (options as { middleware?: readonly Middleware[] }).middleware ?? [];
  const middleware = [...settings.middleware, ...endpoint.routers.flatMap((router) => router.middleware), ...own];
  return {
    method: endpoint.method,
    path: documentedPath(endpoint.path),
    operationId: endpoint.operationId,
    summary: options.summary,
    description: options.description,
    tags: endpoint.tags.length ? endpoint.tags : undefined,
    deprecated: terms?.deprecated ?? options.deprecated === true,
    ...(terms?.sunset !== undefined ? { sunset: terms.sunset } : {}),
    plan: { method: endpoint.method, pathParams: endpoint.pathParams, params: endpointParams(endpoint) },
    response: options.response,
    statusCode: options.statusCode ?? 200,
    security: [...(options.security ?? []), ...(metadata?.security ?? [])],
    securityAlternatives: metadata?.securityAlternatives,
    responses: withDeprecationHeaders(
      operationResponses(endpoint, { middleware, validationErrorSchema: settings.validationError?.schema }),
      terms?.headers ?? [],
    ),
    stream: streamOf(options),
  };
}

/** Every answer documents the deprecation headers the endpoint sends on all of them. */
function withDeprecationHeaders(answers: OperationResponse[], headers: readonly (readonly [string, string])[]): OperationResponse[] {
  if (headers.length === 0) return answers;
  const documented = Object.fromEntries(
    headers.map(([name, value]) => {
      const { name: title, description } = DEPRECATION_HEADER_DOCS[name]!;
      return [title, { description, schema: z.string().meta({ examples: [value] }), required: true }];
    }),
  );
  return answers.map((answer) => ({ ...answer, headers: { ...answer.headers, ...documented } }));
}

/** The OpenAPI 3.1 document of the registered endpoints. */
export function describeApp(
  settings: DocumentSettings,
  endpoints: Iterable<RegisteredEndpoint>,
  onSchemaProblem: (problem: SchemaProblem) => void,
): Record<string, unknown> {
  const operations: OperationDescription[] = [];
  for (const endpoint of endpoints) {
    const operation = operationOf(endpoint, settings);
    if (operation) operations.push(operation);
  }
  return buildDocument(
    { title: settings.title, version: settings.version, description: settings.description, ...settings.info },
    operations,
    {
      http: { reasonPhrase, statusHasBody, jsonMediaType: JSON_TYPE, problemMediaType: PROBLEM_JSON },
      onSchemaProblem,
      openapiVersion: settings.openapiVersion,
      ...(settings.maxFiles !== undefined ? { maxFiles: settings.maxFiles } : {}),
    },
  );
}

/** A document the app serves: the whole one (prefix `''`) or one of `documents` (`/v1`). */
export interface ServedDocument {
  prefix: string;
  document: () => Record<string, unknown>;
}

/**
 * `/openapi.json` and the docs pages of each served document (the pages of `/v1` at `/v1/docs`, …),
 * as built-in routes; none when `openapiUrl` is null. The pages share one set of assets.
 */
export function docsBuiltins(settings: DocumentSettings, documents: readonly ServedDocument[]): BuiltinRoute[] {
  const openapiUrl = settings.openapiUrl;
  if (openapiUrl === null) return [];
  const routes = new Map<string, BuiltinRoute>();
  const under = (prefix: string, url: string | null) => (url === null ? null : `${prefix}${url}`);
  for (const { prefix, document } of documents) {
    const documentUrl = `${prefix}${openapiUrl}`;
    routes.set(documentUrl, {
      path: documentUrl,
      run: async () => new Response(document(), { mediaType: JSON_TYPE, headers: { 'cache-control': 'no-cache' } }),
    });
    const pages = docsRoutes({
      title: settings.title,
      openapiUrl: documentUrl,
      docsUrl: under(prefix, settings.docsUrl),
      redocUrl: under(prefix, settings.redocUrl),
      cdn: settings.docsCdn,
      assetsUrl: settings.docsAssetsUrl,
      ...(settings.docsUi !== undefined ? { ui: settings.docsUi } : {}),
    });
    for (const page of pages) {
      if (routes.has(page.path)) continue;
      routes.set(page.path, {
        path: page.path,
        run: async () => new Response(await page.body(), { mediaType: page.contentType, headers: page.headers }),
      });
    }
  }
  return [...routes.values()];
}
