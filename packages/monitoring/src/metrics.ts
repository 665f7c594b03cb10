import cluster from 'node:cluster';
import { randomUUID } from 'node:crypto';
import { type API, type CallNext, type Request, Response } from '@fnapi/core';
import { METRICS_REGISTRY, provide, statusOf, webSocketEnded } from '@fnapi/core/extend';
import { isUnobserved, Middleware } from '@fnapi/middleware';
import { AggregatorRegistry, Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** The registry of fnapi's metrics unless one is given: its own, not prom-client's global one. */
export const metricsRegistry = new Registry();

const STANDARD_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'QUERY', 'OPTIONS', 'CONNECT', 'TRACE']);
const DEFAULT_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface RequestMetrics {
  requests: Counter<'method' | 'route' | 'status'>;
  duration: Histogram<'method' | 'route' | 'status'>;
}

/** One set of metrics per registry, however many middleware instances share it. */
const byRegistry = new WeakMap<Registry, RequestMetrics>();

export interface MetricsMiddlewareOptions {
  /** Where the metrics live; default `metricsRegistry`. */
  registry?: Registry | undefined;
  /** Histogram buckets in seconds. */
  buckets?: number[] | undefined;
  /** Also collect prom-client's default process metrics in the registry; default true. */
  defaultMetrics?: boolean | undefined;
}

function metricsFor(registry: Registry, buckets: number[], defaultMetrics: boolean): RequestMetrics {
  let metrics = byRegistry.get(registry);
  if (metrics === undefined) {
    metrics = {
      requests: new Counter({
        name: 'http_requests_total',
        help: 'HTTP requests answered, by method, route template and status',
        labelNames: ['method', 'route', 'status'],
        registers: [registry],
      }),
      duration: new Histogram({
        name: 'http_request_duration_seconds',
        help: 'Time to answer HTTP requests, by method, route template and status',
        labelNames: ['method', 'route', 'status'],
        buckets,
        registers: [registry],
      }),
    };
    if (defaultMetrics) collectDefaultMetrics({ register: registry });
    byRegistry.set(registry, metrics);
  }
  return metrics;
}

/**
 * Records `http_requests_total{method,route,status}` and `http_request_duration_seconds` for every
 * request that passes it. Labels are bounded, so no client can grow the series: `route` is the
 * matched template (`/users/{id}`), `unmatched` when none matched; a method outside the standard ones
 * is `other`. Add it first, so it times everything after it.
 */
export class MetricsMiddleware extends Middleware {
  readonly registry: Registry;
  private readonly metrics: RequestMetrics;

  constructor(options: MetricsMiddlewareOptions = {}) {
    super();
    this.registry = options.registry ?? metricsRegistry;
    this.metrics = metricsFor(this.registry, options.buckets ?? DEFAULT_BUCKETS, options.defaultMetrics ?? true);
    shareWithPrimary(this.registry);
  }

  /**
   * Runs once when the middleware joins an app (`app.addMiddleware(m)`, or `app.extend(m)`, which adds
   * it): leaves the registry on the app under `METRICS_REGISTRY`, where `@fnapi/jobs` finds it for its
   * own metrics.
   */
  attach(app: API): void {
    provide(app, METRICS_REGISTRY, this.registry);
    if (!app.middleware.includes(this)) app.addMiddleware(this);
  }

  async dispatch(request: Request, callNext: CallNext): Promise<Response> {
    const started = performance.now();
    let status: number;
    try {
      const response = await callNext(request);
      status = response.statusCode;
      // A WebSocket is counted at its upgrade (101) and timed at its end: the connection's duration.
      const ended = webSocketEnded(response);
      if (ended !== undefined && !isUnobserved(request)) {
        const upgraded = status;
        this.record(request, upgraded, started, false);
        void ended.then(() => this.record(request, upgraded, started, true, false));
        status = -1;
      }
      return response;
    } catch (error) {
      // The status the request will get, as logs and traces say it.
      status = statusOf(error);
      throw error;
    } finally {
      if (status! !== -1 && !isUnobserved(request)) this.record(request, status!, started);
    }
  }

  private record(request: Request, status: number, started: number, time = true, count = true): void {
    const labels = {
      method: STANDARD_METHODS.has(request.method) ? request.method : 'other',
      route: request.route ?? 'unmatched',
      status: String(status),
    };
    if (count) this.metrics.requests.inc(labels);
    if (time) this.metrics.duration.observe(labels, (performance.now() - started) / 1000);
  }
}

// Under node:cluster (`app.run({ workers })`) each worker keeps its own counts; a worker's /metrics
// asks the primary, whose AggregatorRegistry collects every worker's registry and sums them.
const REQUEST = 'fnapi:metrics:request';
const ANSWER = 'fnapi:metrics:answer';
const shared = new Set<Registry>();
let primaryListening = false;

let workerListening = false;

function shareWithPrimary(registry: Registry): void {
  if (!cluster.isWorker || shared.has(registry)) return;
  shared.add(registry);
  AggregatorRegistry.setRegistries([...shared]);
  // Constructing one is what makes prom-client answer the primary's requests in a worker.
  if (!workerListening) {
    workerListening = true;
    new AggregatorRegistry();
  }
}

function answerWorkers(): void {
  if (!cluster.isPrimary || primaryListening) return;
  primaryListening = true;
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: { type?: string; id?: string }) => {
    if (message?.type !== REQUEST) return;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: ANSWER, id: message.id, text, contentType: aggregator.contentType }),
      (error: Error) => worker.send({ type: ANSWER, id: message.id, error: error.message }),
    );
  });
}

function askPrimary(timeoutMs: number): Promise<{ text: string; contentType: string }> {
  return new Promise((resolve, reject) => {
    const id = randomUUID();
    const onMessage = (message: { type?: string; id?: string; text?: string; contentType?: string; error?: string }) => {
      if (message?.type !== ANSWER || message.id !== id) return;
      done();
      if (message.error !== undefined) reject(new Error(message.error));
      else resolve({ text: message.text ?? '', contentType: message.contentType ?? 'text/plain' });
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`the primary did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      process.off('message', onMessage);
    };
    process.on('message', onMessage);
    process.send?.({ type: REQUEST, id });
  });
}

export interface MetricsEndpointOptions {
  /** Default `/metrics`. */
  path?: string | undefined;
  /** Default `metricsRegistry`. */
  registry?: Registry | undefined;
}

/**
 * Serves the registry in Prometheus text format at `path` (kept out of the OpenAPI document). Under
 * `app.run({ workers })` it answers with the sum over all workers, whichever worker takes the request.
 */
export function metricsEndpoint(app: API, options: MetricsEndpointOptions = {}): API {
  const registry = options.registry ?? metricsRegistry;
  const path = options.path ?? '/metrics';
  shareWithPrimary(registry);
  answerWorkers();
  app.api({ route: path, method: 'GET', includeInSchema: false, operationId: 'fnapi_metrics' }, async (_input, request) => {
    if (cluster.isWorker && process.send) {
      try {
        const { text, contentType } = await askPrimary(5000);
        return new Response(text, { mediaType: contentType });
      } catch (error) {
        request.logger.warn({ err: error }, 'cluster metrics unavailable; answering with this worker’s');
      }
    }
    return new Response(await registry.metrics(), { mediaType: registry.contentType });
  });
  return app;
}
