// A client made with the `redis` package (every module loaded) is accepted where the stores, built on
// `@redis/client` alone, take a client of your own.
import { createClient } from 'redis';
import { expectTypeOf, test } from 'vitest';
import { RedisCacheStore, RedisHub, RedisRateLimitStore } from '../src/index.js';

test('a node-redis client from the redis package is a client option', () => {
  const client = createClient({ url: 'redis://127.0.0.1:6379' });
  expectTypeOf(new RedisCacheStore({ client })).toEqualTypeOf<RedisCacheStore>();
  expectTypeOf(new RedisRateLimitStore({ client })).toEqualTypeOf<RedisRateLimitStore>();
  expectTypeOf(RedisHub).toBeConstructibleWith({ url: 'redis://127.0.0.1:6379' });
});
