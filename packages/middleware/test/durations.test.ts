/** The middleware's durations (`ttl`, `window`, `maxAge`) are seconds or strings with a unit, of any length. */
import { API } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { describe, expect, it } from 'vitest';
import { CacheMiddleware, CORSMiddleware, RateLimitMiddleware } from '../src/index.js';

describe('durations of the middleware', () => {
  it('reads maxAge, window and ttl with their units, over a real socket', async () => {
    const app = new API({ logger: false });
    app.addMiddleware(new CORSMiddleware({ allowOrigins: ['https://app.example'], maxAge: '10m' }));
    app.addMiddleware(new RateLimitMiddleware({ limit: 5, window: '1h' }));
    let calls = 0;
    app.addMiddleware(new CacheMiddleware({ ttl: '30d' }));
    app.get('/n', () => ({ n: ++calls }));
    const client = await TestClient.start(app);
    try {
      const preflight = await client.options('/n', {
        headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' },
      });
      expect(preflight.headers['access-control-max-age']).toBe('600');
      const first = await client.get('/n');
      expect(first.headers['ratelimit-policy']).toBe('default;q=5;w=3600');
      expect((await client.get('/n')).json()).toEqual({ n: 1 });
      expect((await client.get('/n')).headers['x-cache']).toBe('HIT');
    } finally {
      await client.close();
    }
    expect(new CacheMiddleware({ ttl: 86_400 * 365 }).ttl).toBe(86_400 * 365);
    expect(new RateLimitMiddleware({ limit: 1, window: '250ms' }).window).toBe(0.25);
  });

  it('refuses malformed durations, naming the option', () => {
    expect(() => new CacheMiddleware({ ttl: '1 minute' as never })).toThrow(/^CacheMiddleware: ttl is a number of seconds or a string/);
    expect(() => new CacheMiddleware({ ttl: 0 })).toThrow(/ttl must be longer than 0 seconds/);
    expect(() => new RateLimitMiddleware({ limit: 1, window: '0s' })).toThrow(/window must be longer than 0 seconds/);
    expect(() => new CORSMiddleware({ maxAge: -1 })).toThrow(/CORSMiddleware: maxAge is a number of seconds ≥ 0/);
  });
});
