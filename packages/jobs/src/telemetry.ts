import { context, isSpanContextValid, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { type Extensible, METRICS_REGISTRY, provided } from '@fnapi/core/extend';
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

/** The name of a job kind's CONSUMER span. */
export function consumerSpanName(job: string): string {
  return `${job} process`;
}

/**
 * Runs a job inside a CONSUMER span named `spanName` (`consumerSpanName`), linked (not parented: a job
 * runs on its own time) to the span of the request that enqueued it.
 */
export function inConsumerSpan(
  spanName: string,
  job: { name: string; id: string; attempt: number },
  link: TraceLink | undefined,
  run: () => unknown,
): unknown {
  const tracer = (jobsTracer ??= trace.getTracer('@fnapi/jobs'));
  const span: Span = tracer.startSpan(
    spanName,
    {
      kind: SpanKind.CONSUMER,
      // None when there is no link: a tracer keeps (and may add to) the array it is given.
      links: link === undefined ? undefined : [{ context: { ...link, isRemote: true } }],
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
  // No SDK, or not sampled: nothing to record, no context to carry, no promise of its own (a value
  // from a handler that returns one stays a value).
  if (!span.isRecording()) return run();
  return recorded(span, run);
}

async function recorded(span: Span, run: () => unknown): Promise<unknown> {
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

/** `jobs_total{job,state}` and `job_duration_seconds{job}` in a metrics registry. */
interface JobMetrics {
  count(job: string, state: JobOutcome): void;
  duration(job: string, seconds: number): void;
}

export type JobOutcome = 'completed' | 'failed' | 'retried' | 'enqueued';

/** What jobs need of a prom-client `Registry` (prom-client is an optional peer: typed by shape). */
export interface MetricsRegistry {
  getSingleMetric(name: string): unknown;
  registerMetric(metric: unknown): void;
}

function isRegistry(value: unknown): value is MetricsRegistry {
  const candidate = value as Partial<MetricsRegistry> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.getSingleMetric === 'function' &&
    typeof candidate.registerMetric === 'function'
  );
}

/** The `metrics` option, refused at construction when it is no registry (rather than never counting). */
export function metricsOption(value: unknown): MetricsRegistry | undefined {
  if (value !== undefined && !isRegistry(value)) throw new TypeError('new Jobs({ metrics }) takes a prom-client Registry');
  return value;
}

/**
 * The registry jobs record in: the `metrics` option, else the one a `MetricsMiddleware` of the app
 * left on it (`@fnapi/monitoring` provides it under `METRICS_REGISTRY` when added to the app).
 */
export function metricsRegistryOf(option: MetricsRegistry | undefined, app: Extensible | undefined): MetricsRegistry | undefined {
  if (option !== undefined) return option;
  const left = app === undefined ? undefined : provided(app, METRICS_REGISTRY);
  return isRegistry(left) ? left : undefined;
}

/** The job metrics in `registry`, made with prom-client (loaded here); undefined without it. */
async function jobMetrics(registry: MetricsRegistry): Promise<JobMetrics | undefined> {
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

/**
 * Jobs' metrics, found on first use (the registry is chosen then, so a `MetricsMiddleware` added after
 * `attach` counts) and recorded at once from then on: a job's end never waits for them.
 */
export class Metrics {
  private pending: Promise<JobMetrics | undefined> | undefined;
  /** The metrics once known (null: none). */
  private ready: JobMetrics | null | undefined;

  constructor(private readonly registry: () => MetricsRegistry | undefined) {}

  /** Looks the registry up again at the next use (`attach` to another app). */
  reset(): void {
    this.pending = undefined;
    this.ready = undefined;
  }

  count(job: string, state: JobOutcome): void {
    if (this.ready) this.ready.count(job, state);
    else if (this.ready === undefined) void this.resolve().then((metrics) => metrics?.count(job, state));
  }

  duration(job: string, seconds: number): void {
    if (this.ready) this.ready.duration(job, seconds);
    else if (this.ready === undefined) void this.resolve().then((metrics) => metrics?.duration(job, seconds));
  }

  /** Looks the registry up and loads prom-client, once (until `reset`); what jobs' startup awaits. */
  resolve(): Promise<JobMetrics | undefined> {
    if (this.pending === undefined) {
      const pending = (async () => {
        const registry = this.registry();
        return registry === undefined ? undefined : jobMetrics(registry);
      })().catch(() => undefined);
      this.pending = pending;
      // Unless `reset` came meanwhile: then the next use looks again.
      void pending.then((metrics) => {
        if (this.pending === pending) this.ready = metrics ?? null;
      });
    }
    return this.pending;
  }
}
