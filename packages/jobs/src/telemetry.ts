import { context, isSpanContextValid, type Link, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { commonJsExports } from './interop.js';

/** The enqueuing request's span, kept with the job so its run can link to it. */
export interface TraceLink {
  traceId: string;
  spanId: string;
  traceFlags: number;
}

/** The active span's context where `enqueue` is called (a traced request's span), if any. */
export function currentTraceLink(): TraceLink | undefined {
  const span = trace.getActiveSpan();
  if (span === undefined) return undefined;
  const { traceId, spanId, traceFlags } = span.spanContext();
  const link = { traceId, spanId, traceFlags };
  return isSpanContextValid(link) ? link : undefined;
}

// A proxy tracer: it follows a provider registered later.
let jobsTracer: ReturnType<typeof trace.getTracer> | undefined;

/**
 * Runs a job inside a CONSUMER span named `<job> process`, linked (not parented: a job runs on its
 * own time) to the span of the request that enqueued it.
 */
export function inConsumerSpan<T>(
  job: { name: string; id: string; attempt: number },
  link: TraceLink | undefined,
  run: () => Promise<T>,
): Promise<T> {
  const tracer = (jobsTracer ??= trace.getTracer('@fnapi/jobs'));
  const links: Link[] = link === undefined ? [] : [{ context: { ...link, isRemote: true } }];
  const span: Span = tracer.startSpan(
    `${job.name} process`,
    {
      kind: SpanKind.CONSUMER,
      links,
      attributes: {
        'messaging.system': 'bullmq',
        'messaging.operation.type': 'process',
        'messaging.destination.name': job.name,
        'messaging.message.id': job.id,
        'fnapi.job.attempt': job.attempt,
      },
    },
    ROOT_CONTEXT,
  );
  // No SDK, or not sampled: nothing to record, no context to carry, no promise of its own.
  if (!span.isRecording()) return run();
  return recorded(span, run);
}

async function recorded<T>(span: Span, run: () => Promise<T>): Promise<T> {
  try {
    const result = await context.with(trace.setSpan(ROOT_CONTEXT, span), run);
    span.setStatus({ code: SpanStatusCode.OK });
    return result;
  } catch (error) {
    span.recordException(error as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message });
    throw error;
  } finally {
    span.end();
  }
}

/** `jobs_total{job,state}` and `job_duration_seconds{job}` in an app's metrics registry. */
export interface JobMetrics {
  count(job: string, state: 'completed' | 'failed' | 'retried' | 'enqueued'): void;
  duration(job: string, seconds: number): void;
}

interface RegistryLike {
  getSingleMetric(name: string): unknown;
  registerMetric(metric: unknown): void;
}

function isRegistry(value: unknown): value is RegistryLike {
  const candidate = value as Partial<RegistryLike> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.getSingleMetric === 'function' &&
    typeof candidate.registerMetric === 'function'
  );
}

/**
 * The metrics of the registry a `MetricsMiddleware` of the app uses (found among the app's middleware),
 * made with prom-client (the monitoring extra's, an optional peer here); undefined without one.
 */
export async function metricsFor(middleware: readonly unknown[]): Promise<JobMetrics | undefined> {
  const registry = middleware.map((m) => (m as { registry?: unknown }).registry).find(isRegistry);
  if (registry === undefined) return undefined;
  let client: typeof import('prom-client');
  try {
    client = commonJsExports(await import('prom-client'), 'Counter');
  } catch {
    return undefined;
  }
  const counter =
    (registry.getSingleMetric('jobs_total') as import('prom-client').Counter<'job' | 'state'> | undefined) ??
    new client.Counter({
      name: 'jobs_total',
      help: 'Jobs by kind and what became of them (enqueued, completed, retried, failed)',
      labelNames: ['job', 'state'],
      registers: [registry as never],
    });
  const histogram =
    (registry.getSingleMetric('job_duration_seconds') as import('prom-client').Histogram<'job'> | undefined) ??
    new client.Histogram({
      name: 'job_duration_seconds',
      help: 'Time to run one attempt of a job, by kind',
      labelNames: ['job'],
      buckets: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300],
      registers: [registry as never],
    });
  return {
    count: (job, state) => counter.inc({ job, state }),
    duration: (job, seconds) => histogram.observe({ job }, seconds),
  };
}
