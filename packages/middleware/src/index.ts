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
export {
  RateLimitMiddleware,
  MemoryRateLimitStore,
  type MemoryRateLimitStoreOptions,
  type RateLimitHit,
  type RateLimitOptions,
  type RateLimitStore,
} from './rate-limit.js';
export {
  CompressionMiddleware,
  negotiateEncoding,
  isCompressible,
  type CompressionEncoding,
  type CompressionOptions,
} from './compression.js';
export { appendVary } from './header-lists.js';
export { isUnobserved, markUnobserved } from './unobserved.js';
