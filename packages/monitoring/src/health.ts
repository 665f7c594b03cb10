import type { API, Request } from '@fnapi/core';
import { JSONResponse } from '@fnapi/core';
import { annotateHandler, type Duration, durationSeconds, roundMs, runWithSignal } from '@fnapi/core/extend';
import { markUnobserved } from '@fnapi/middleware';

/**
 * A readiness check: it fails when it throws, rejects, returns `false` or outlasts the timeout. It
 * runs under a signal aborted at the timeout (also given as its argument): a `ConnectionPool` query
 * made inside gives its connection back then, so a hanging database never keeps what a probe borrowed.
 */
export type HealthCheck = (signal: AbortSignal) => unknown;

export interface HealthEndpointsOptions {
  /** Liveness path; default `/livez`; `null` leaves it out. */
  live?: string | null;
  /** Readiness path; default `/readyz`; `null` leaves it out. */
  ready?: string | null;
  /** Named readiness checks, run concurrently on each readiness probe. */
  checks?: Record<string, HealthCheck>;
  /** Seconds (or `'500ms'`) each check gets before it counts as failed; default 1. */
  timeout?: Duration;
  /** List both endpoints in the OpenAPI document; default false. */
  includeInSchema?: boolean;
  /** Count and log probes in `MetricsMiddleware` and `LoggingMiddleware`; default false. */
  observe?: boolean;
}

export interface CheckResult {
  ok: boolean;
  /** Why it failed. */
  error?: string;
  /** Milliseconds the check took (at most about the timeout). */
  duration: number;
}

export interface ReadinessReport {
  /** `ok` (200); else `starting`, `stopping` or `failing` (503). */
  status: 'ok' | 'starting' | 'stopping' | 'failing';
  checks: Record<string, CheckResult>;
}

const NO_STORE = { 'cache-control': 'no-store' };

/**
 * Probe endpoints for load balancers and Kubernetes: `live` answers 200 while the process serves;
 * `ready` answers 200 once startup has finished and every check passes within `timeout` seconds, and
 * 503 while starting, while stopping (from SIGTERM on, through `shutdownDelay` and the drain), or when a
 * check fails or hangs. Both stay out of the document, metrics and access logs unless asked.
 */
export function healthEndpoints(app: API, options: HealthEndpointsOptions = {}): API {
  const live = options.live === undefined ? '/livez' : options.live;
  const ready = options.ready === undefined ? '/readyz' : options.ready;
  const checks = Object.entries(options.checks ?? {});
  const timeout = durationSeconds('healthEndpoints: timeout', options.timeout ?? 1, { zero: false });
  const includeInSchema = options.includeInSchema ?? false;
  const quiet = !(options.observe ?? false);

  if (live !== null) {
    app.api(
      { route: live, method: 'GET', includeInSchema, operationId: 'fnapi_livez', summary: 'Liveness probe' },
      // Answered at once while startup runs, on every transport.
      annotateHandler(
        (_input: unknown, request: Request) => {
          if (quiet) markUnobserved(request);
          return new JSONResponse({ status: 'ok' }, { headers: NO_STORE });
        },
        { servesWhileStarting: true },
      ),
    );
  }
  if (ready !== null) {
    app.api(
      { route: ready, method: 'GET', includeInSchema, operationId: 'fnapi_readyz', summary: 'Readiness probe' },
      // Answered at once while startup runs (503 `starting`), on every transport.
      annotateHandler(
        async (_input: unknown, request: Request) => {
          if (quiet) markUnobserved(request);
          const report = await readiness(app, checks, timeout * 1000);
          return new JSONResponse(report, { statusCode: report.status === 'ok' ? 200 : 503, headers: NO_STORE });
        },
        { servesWhileStarting: true },
      ),
    );
  }
  return app;
}

async function readiness(app: API, checks: [string, HealthCheck][], timeoutMs: number): Promise<ReadinessReport> {
  // Not ready while starting or stopping, whatever the checks say (a closing pool would fail them anyway).
  const phase = app.serving.phase;
  if (phase === 'starting') return { status: 'starting', checks: {} };
  if (phase !== 'ready') return { status: 'stopping', checks: {} };
  const results = await Promise.all(checks.map(([name, check]) => runCheck(check, timeoutMs).then((result) => [name, result] as const)));
  // A shutdown may have begun while the checks ran.
  const status = !app.serving.ready ? 'stopping' : results.every(([, result]) => result.ok) ? 'ok' : 'failing';
  return { status, checks: Object.fromEntries(results) };
}

async function runCheck(check: HealthCheck, timeoutMs: number): Promise<CheckResult> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const elapsed = () => roundMs(performance.now() - started);
  const deadline = new AbortController();
  try {
    const outcome = await Promise.race([
      runWithSignal(deadline.signal, async () => check(deadline.signal)),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const error = new Error(`timed out after ${timeoutMs / 1000} s`);
          // What the check borrowed is given back now, not when the hanging call returns.
          deadline.abort(error);
          reject(error);
        }, timeoutMs);
      }),
    ]);
    if (outcome === false) return { ok: false, error: 'the check returned false', duration: elapsed() };
    return { ok: true, duration: elapsed() };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error), duration: elapsed() };
  } finally {
    clearTimeout(timer);
  }
}
