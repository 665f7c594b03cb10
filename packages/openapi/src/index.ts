export { buildDocument } from './document.js';
export { schemeKey } from './security-schemes.js';
export type {
  BuildOptions,
  DocumentInfo,
  HttpFacts,
  OpenAPIVersion,
  SchemaProblem,
  OperationDescription,
  OperationResponse,
  SecurityRequirement,
} from './description.js';
export { docsRoutes, DEFAULT_ASSETS_PREFIX, type DocsOptions, type DocsRoute, type DocsUi, requireDocsUi } from './docs.js';
