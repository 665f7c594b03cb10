export {
  buildDocument,
  PROBLEM_DETAILS_COMPONENT,
  VALIDATION_PROBLEM_COMPONENT,
  type BuildOptions,
  type DocumentInfo,
  type HttpFacts,
  type OpenAPIVersion,
  type SchemaProblem,
  type OperationDescription,
  type SecurityRequirement,
} from './document.js';
export { docsRoutes, DEFAULT_ASSETS_PREFIX, type DocsOptions, type DocsRoute } from './docs.js';
