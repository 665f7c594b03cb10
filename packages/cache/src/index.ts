export { RedisCacheStore, CacheStoreUnavailableError, type RedisCacheStoreOptions } from './redis-store.js';
// What a user of the cache extra needs beside the store.
export { CacheMiddleware, MemoryCacheStore, type CacheMiddlewareOptions, type CacheStore, type CacheEntry } from '@fnapi/middleware';
