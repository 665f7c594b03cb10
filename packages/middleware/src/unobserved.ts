import type { Request } from '@fnapi/core';

// A WeakSet, not a request field: probes are marked by the endpoint that answers them, and the
// metrics and access-log middleware (which run around it) check after the answer is known.
const unobserved = new WeakSet<Request>();

/** Keeps this request out of `LoggingMiddleware`'s access log and `MetricsMiddleware`'s counts (health probes). */
export function markUnobserved(request: Request): void {
  unobserved.add(request);
}

/** True when the endpoint that answered asked to stay out of access logs and metrics. */
export function isUnobserved(request: Request): boolean {
  return unobserved.has(request);
}
