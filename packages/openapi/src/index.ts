export {
  buildDocument,
  type BuildOptions,
  type DocumentInfo,
  type HttpFacts,
  type SchemaProblem,
  type OperationDescription,
  type OperationResponse,
  type SecurityRequirement,
} from './document.js';
export { docsRoutes, DEFAULT_ASSETS_PREFIX, type DocsOptions, type DocsRoute } from './docs.js';
