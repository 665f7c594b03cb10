import type { API } from '@fnapi/core';
import { METRICS_REGISTRY, provide, provided } from '@fnapi/core/extend';
import { commonJsExports } from './interop.js';
import type { MetricsRegistry } from './telemetry.js';

/** Where a worker serves its metrics: `fnapi worker --metrics-port <port> [--metrics-host <host>]`. */
export interface WorkerMetricsOptions {
  port: number;
  /** Default the `HOST` environment variable, else `127.0.0.1` (as `app.run`); `0.0.0.0` for a scraper elsewhere. */
  host?: string | undefined;
}

export interface WorkerMetricsServer {
  /** `http://host:port/metrics`. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** What serving needs of a prom-client `Registry`. */
interface Exposition {
  metrics(): Promise<string>;
  readonly contentType: string;
}

function exposes(registry: MetricsRegistry): registry is MetricsRegistry & Exposition {
  return typeof (registry as Partial<Exposition>).metrics === 'function';
}

/**
 * The registry a worker process records in when nothing else gives one (no `MetricsMiddleware` in the
 * app, no `metrics` option): a prom-client registry with the process's default metrics, left on the app
 * where every attached `Jobs` finds it. Call before the app's startup (where jobs look it up).
 */
export async function ensureWorkerRegistry(app: API): Promise<void> {
  if (provided(app, METRICS_REGISTRY) !== undefined) return;
  const client = commonJsExports(await import('prom-client'), 'Registry');
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  provide(app, METRICS_REGISTRY, registry);
}

/**
 * Serves `GET /metrics` in Prometheus text format from the registries the worker's jobs record in
 * (`jobs_total`, `job_duration_seconds`, and whatever else is in them): a worker serves no HTTP
 * otherwise, so this is what Prometheus scrapes. Anything else is 404; a port in use rejects naming it.
 */
export async function serveWorkerMetrics(registries: () => MetricsRegistry[], options: WorkerMetricsOptions): Promise<WorkerMetricsServer> {
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) {
    throw new RangeError(`the metrics port is 0–65535, not ${options.port}`);
  }
  const host = options.host ?? process.env.HOST ?? '127.0.0.1';
  const { createServer } = await import('node:http');
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not Found: the worker serves /metrics\n');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('Method Not Allowed\n');
      return;
    }
    const found = [...new Set(registries())].filter(exposes);
    Promise.all(found.map((registry) => registry.metrics())).then(
      (texts) => {
        const contentType = found[0]?.contentType ?? 'text/plain; version=0.0.4; charset=utf-8';
        response.writeHead(200, { 'content-type': contentType }).end(request.method === 'HEAD' ? undefined : texts.join(''));
      },
      (error: unknown) => {
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`metrics failed: ${(error as Error)?.message}\n`);
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const taken = error.code === 'EADDRINUSE' || error.code === 'EACCES';
      reject(
        taken
          ? new Error(`the metrics port ${options.port} on ${host} is not available (${error.code}): choose another with --metrics-port`)
          : error,
      );
    });
    server.listen(options.port, host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}/metrics`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
