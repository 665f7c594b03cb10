export { RedisCacheStore, CacheStoreUnavailableError, type RedisCacheStoreOptions } from './redis-store.js';
export {
  RedisRateLimitStore,
  RateLimitStoreUnavailableError,
  type RedisRateLimitStoreOptions,
} from './rate-limit-store.js';
export { RedisHub, type RedisHubOptions } from './hub.js';
// What a user of the cache extra needs beside the store.
export {
  CacheMiddleware,
  MemoryCacheStore,
  RateLimitMiddleware,
  MemoryRateLimitStore,
  type CacheMiddlewareOptions,
  type CacheStore,
  type CacheEntry,
  type RateLimitOptions,
  type RateLimitStore,
} from '@fnapi/middleware';
