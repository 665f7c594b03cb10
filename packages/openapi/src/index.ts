export { buildDocument } from './document.js';
export { schemeKey } from './security-schemes.js';
export { PROBLEM_DETAILS_COMPONENT, VALIDATION_PROBLEM_COMPONENT } from './problem-components.js';
export type {
  BuildOptions,
  DocumentInfo,
  HttpFacts,
  SchemaProblem,
  OperationDescription,
  SecurityRequirement,
} from './description.js';
export { docsRoutes, DEFAULT_ASSETS_PREFIX, type DocsOptions, type DocsRoute } from './docs.js';
