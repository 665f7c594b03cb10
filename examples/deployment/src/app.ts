import { RedisRateLimitStore } from '@fnapi/cache';
import { type API, type APIOptions, Router } from '@fnapi/core';
import { RateLimitMiddleware } from '@fnapi/middleware';
import { healthEndpoints, TracingMiddleware } from '@fnapi/monitoring';
import { ConnectionPool } from '@fnapi/performance';
import { createApp } from '@fnapi/example-basic/app';

export interface DeploymentSettings {
  /** Seconds served after SIGTERM while /readyz answers 503 (the balancer's detection time and more). */
  shutdownDelay: number;
  /** Seconds in-flight requests get to finish once draining begins. */
  shutdownTimeout: number;
  /** Requests per client per `rateWindow` seconds on /quota, counted across every instance. */
  rateLimit: number;
  rateWindow: number;
  /** Redis key prefix of the shared count (one per deployment). */
  rateLimitPrefix: string;
  redisUrl: string;
  databaseUrl: string;
}

/** The settings from the environment, with the defaults the Kubernetes manifests document. */
export function settingsFromEnv(env: NodeJS.ProcessEnv = process.env): DeploymentSettings {
  return {
    shutdownDelay: Number(env.SHUTDOWN_DELAY ?? 5),
    shutdownTimeout: Number(env.SHUTDOWN_TIMEOUT ?? 10),
    rateLimit: Number(env.RATE_LIMIT ?? 100),
    rateWindow: Number(env.RATE_WINDOW ?? 60),
    rateLimitPrefix: env.RATE_LIMIT_PREFIX ?? 'fnapi:example:ratelimit:',
    redisUrl: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    databaseUrl: env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  };
}

/**
 * The example app (`examples/basic`) made ready for several instances behind a load balancer:
 * tracing, request ids and client addresses through one proxy hop, health probes that check the
 * shared PostgreSQL and Redis, `shutdownDelay`, and a rate limit on `/quota` shared through Redis.
 */
export function createDeploymentApp(settings: DeploymentSettings, options: Pick<APIOptions, 'logger'> = {}): API {
  const app = createApp({
    ...options,
    shutdownDelay: settings.shutdownDelay,
    shutdownTimeout: settings.shutdownTimeout,
    // One proxy in front (HAProxy, or the cluster's ingress): its X-Forwarded-For entry is the client.
    trustProxy: 1,
  });
  // First: the span covers everything after it, and log lines inside carry its trace id.
  app.addMiddleware(new TracingMiddleware());

  const pool = new ConnectionPool(settings.databaseUrl, { minSize: 1, maxSize: 10, acquireTimeout: 2 });
  const limits = new RedisRateLimitStore({ url: settings.redisUrl, keyPrefix: settings.rateLimitPrefix, timeout: 0.5 });
  app.onShutdown(async () => {
    await pool.close();
    await limits.close();
  });

  const quota = new Router({ prefix: '/quota' });
  quota.addMiddleware(new RateLimitMiddleware({ limit: settings.rateLimit, window: settings.rateWindow, store: limits }));
  quota.get('/ping', { summary: 'A rate-limited endpoint', tags: ['quota'] }, (_input, request) => ({
    pong: true,
    pid: process.pid,
    id: request.id,
  }));
  app.includeRouter(quota);

  app.get('/db/now', { summary: 'The database clock', tags: ['quota'] }, async () => {
    const { rows } = await pool.query<{ now: Date }>('select now() as now');
    return { now: rows[0]!.now, pid: process.pid };
  });

  healthEndpoints(app, {
    checks: {
      db: () => pool.query('select 1'),
      redis: () => limits.ping(),
    },
    timeout: 1,
  });
  return app;
}
