import {
  buildDocument,
  type DocumentInfo,
  docsRoutes,
  type OpenAPIVersion,
  type OperationDescription,
  type SchemaProblem,
} from '@fnapi/openapi';
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
  if (options.includeInSchema === false) return undefined;
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
    deprecated: options.deprecated,
    plan: { method: endpoint.method, pathParams: endpoint.pathParams, params: endpointParams(endpoint) },
    response: options.response,
    statusCode: options.statusCode ?? 200,
    security: [...(options.security ?? []), ...(metadata?.security ?? [])],
    securityAlternatives: metadata?.securityAlternatives,
    responses: operationResponses(endpoint, { middleware, validationErrorSchema: settings.validationError?.schema }),
    stream: streamOf(options),
  };
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

/** `/openapi.json` and the docs pages, as built-in routes; none when `openapiUrl` is null. */
export function docsBuiltins(settings: DocumentSettings, document: () => Record<string, unknown>): BuiltinRoute[] {
  const openapiUrl = settings.openapiUrl;
  if (openapiUrl === null) return [];
  const routes: BuiltinRoute[] = [
    {
      path: openapiUrl,
      run: async () => new Response(document(), { mediaType: JSON_TYPE, headers: { 'cache-control': 'no-cache' } }),
    },
  ];
  const pages = docsRoutes({
    title: settings.title,
    openapiUrl,
    docsUrl: settings.docsUrl,
    redocUrl: settings.redocUrl,
    cdn: settings.docsCdn,
    assetsUrl: settings.docsAssetsUrl,
  });
  for (const page of pages) {
    routes.push({
      path: page.path,
      run: async () => new Response(await page.body(), { mediaType: page.contentType, headers: page.headers }),
    });
  }
  return routes;
}
