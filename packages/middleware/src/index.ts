export { Middleware, type DispatchResult } from './base.js';
export { LoggingMiddleware, type LoggingMiddlewareOptions } from './logging.js';
export { ErrorHandlingMiddleware, type ErrorHandlingMiddlewareOptions } from './errors.js';
export { CORSMiddleware, type CORSOptions } from './cors.js';
export { ProfileMiddleware } from './profile.js';
export {
  CacheMiddleware,
  MemoryCacheStore,
  type CacheEntry,
  type CacheMiddlewareOptions,
  type CacheStore,
  type CachedResponse,
  type MemoryCacheStoreOptions,
  type VaryMarker,
} from './cache.js';
export { appendVary } from './header-lists.js';
