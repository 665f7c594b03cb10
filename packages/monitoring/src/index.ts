export {
  MetricsMiddleware,
  metricsEndpoint,
  metricsRegistry,
  type MetricsEndpointOptions,
  type MetricsMiddlewareOptions,
} from './metrics.js';
export { createLogger, REDACTED_PATHS, type CreateLoggerOptions } from './logger.js';
export {
  healthEndpoints,
  type CheckResult,
  type HealthCheck,
  type HealthEndpointsOptions,
  type ReadinessReport,
} from './health.js';
export { TracingMiddleware, type TracingMiddlewareOptions } from './tracing.js';
