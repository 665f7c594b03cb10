import { MetricsMiddleware } from '@fnapi/monitoring';
import { jsonLines } from '@fnapi/test-support';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, z } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { JobPayloadError, Jobs } from '../src/index.js';
import { eventually, postgresStore, redisStore, type StoreUnderTest } from './support.js';

const stores = [await redisStore(), await postgresStore()];

const exporter = new InMemorySpanExporter();
beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }));
});

for (const store of stores) {
  describe.skipIf(!store.available)(`Jobs on ${store.name}`, () => {
    afterAll(() => store.cleanup());
    suite(store);
  });
}

function suite(store: StoreUnderTest) {
  const { stream, lines } = jsonLines();
  const registry = new Registry();
  const app = new API({ logger: pino({ level: 'info' }, stream) });
  app.addMiddleware(new MetricsMiddleware({ registry, defaultMetrics: false }));
  const jobs = new Jobs({ ...store.options(), shutdownTimeout: 2 });

  const seen: { payload: unknown; attempt: number; id: string }[] = [];
  const thumbnail = jobs.define(
    'thumbnail',
    { payload: z.object({ image: z.string().min(1), width: z.int().positive() }), concurrency: 4 },
    async ({ image, width }, job) => {
      seen.push({ payload: { image, width }, attempt: job.attempt, id: job.id });
      job.logger.info({ image }, 'resizing');
      return { thumb: `${image}@${width}` };
    },
  );
  let flakyCalls = 0;
  const flaky = jobs.define('flaky', { attempts: 3, backoff: { type: 'exponential', delay: 0.05 } }, async (_p, job) => {
    flakyCalls++;
    if (job.attempt < 3) throw new Error(`attempt ${job.attempt} failed`);
    return { attempt: job.attempt };
  });
  const doomed = jobs.define('doomed', { attempts: 2, backoff: 0.01 }, async () => {
    throw new Error('the disk is full');
  });
  let aborted: unknown;
  const slow = jobs.define('slow', { timeout: 0.2 }, async (_p, job) => {
    await new Promise<void>((resolve) => job.signal.addEventListener('abort', () => resolve()));
    aborted = job.signal.reason;
    // Still winding down after the abort: the attempt fails at its timeout all the same.
    await new Promise((resolve) => setImmediate(resolve));
  });
  let ticks = 0;
  jobs.schedule('sweep', { every: 0.3 }, async () => {
    ticks++;
  });
  jobs.attach(app);

  app.post('/thumbnails', { params: { image: z.string(), width: z.int() }, statusCode: 202 }, async ({ image, width }) => {
    const job = await thumbnail.enqueue({ image, width });
    return { job: job.id };
  });
  app.post('/bad', async () => {
    await thumbnail.enqueue({ image: '', width: -1 });
    return 'unreachable';
  });
  app.get('/thumbnails/{id}', { params: { id: z.string() } }, async ({ id }) => (await thumbnail.get(id)) ?? { state: 'unknown' });

  let client: TestClient;
  beforeAll(async () => {
    client = await TestClient.start(app);
  });
  afterAll(async () => {
    await client?.close();
    await app.shutdown();
  });

  it('an endpoint answers 202 with a job id; the job runs in a worker and get() reports its result', async () => {
    const res = await client.request('POST', '/thumbnails', { json: { image: 'cat.png', width: 64 } });
    expect(res.status).toBe(202);
    const { job } = res.json<{ job: string }>();
    expect(typeof job).toBe('string');
    const done = await eventually(async () => {
      const info = (await client.request('GET', `/thumbnails/${job}`)).json<{ state: string }>();
      return info.state === 'completed' ? info : undefined;
    });
    expect(done).toEqual({ id: job, state: 'completed', attempt: 1, result: { thumb: 'cat.png@64' } });
    expect(seen.find((s) => s.id === job)).toEqual({ payload: { image: 'cat.png', width: 64 }, attempt: 1, id: job });
    // job.logger carries jobId and job on every line.
    const line = lines.find((l) => l.msg === 'resizing' && l.jobId === job);
    expect(line).toMatchObject({ job: 'thumbnail', image: 'cat.png' });
  });

  it('enqueue validates the payload: JobPayloadError with issues, a 500 when the handler does not catch it', async () => {
    const error = await thumbnail.enqueue({ image: '', width: 1.5 } as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobPayloadError);
    const issues = (error as JobPayloadError).issues;
    expect(issues.map((i) => i.path)).toEqual([['image'], ['width']]);
    expect(issues.every((i) => typeof i.message === 'string' && typeof i.code === 'string')).toBe(true);
    expect(issues[0]!.code).toBe('too_small');
    const res = await client.request('POST', '/bad');
    expect(res.status).toBe(500);
  });

  it('refuses a payload over 512 KiB of JSON', async () => {
    const error = await thumbnail.enqueue({ image: 'x'.repeat(600 * 1024), width: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobPayloadError);
    expect((error as JobPayloadError).issues[0]!.code).toBe('too_big');
  });

  it('a key makes enqueueing idempotent while the job is kept', async () => {
    const first = await thumbnail.enqueue({ image: 'k.png', width: 8 }, { key: 'thumb:k.png' });
    const second = await thumbnail.enqueue({ image: 'k.png', width: 8 }, { key: 'thumb:k.png' });
    expect(second.id).toBe(first.id);
    await eventually(async () => ((await thumbnail.get(first.id))?.state === 'completed' ? true : undefined));
    const third = await thumbnail.enqueue({ image: 'k.png', width: 8 }, { key: 'thumb:k.png' });
    expect(third.id).toBe(first.id);
    expect(seen.filter((s) => (s.payload as { image: string }).image === 'k.png')).toHaveLength(1);
  });

  it('delay holds a job back; priority is accepted', async () => {
    const job = await thumbnail.enqueue({ image: 'later.png', width: 2 }, { delay: 0.5, priority: 5 });
    expect((await thumbnail.get(job.id))?.state).toBe('delayed');
    const started = Date.now();
    await eventually(async () => ((await thumbnail.get(job.id))?.state === 'completed' ? true : undefined));
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });

  it('retries with backoff, counting attempts', async () => {
    const job = await flaky.enqueue(undefined);
    const info = await eventually(async () => {
      const i = await flaky.get(job.id);
      return i?.state === 'completed' ? i : undefined;
    });
    expect(info).toMatchObject({ state: 'completed', attempt: 3, result: { attempt: 3 } });
    expect(flakyCalls).toBe(3);
  });

  it('after its attempts a job is failed, with the last error, and logged', async () => {
    const job = await doomed.enqueue({});
    const info = await eventually(async () => {
      const i = await doomed.get(job.id);
      return i?.state === 'failed' ? i : undefined;
    });
    expect(info).toMatchObject({ state: 'failed', attempt: 2, error: 'the disk is full' });
    await eventually(() => (lines.some((l) => l.jobId === job.id && l.level === 50) ? true : undefined));
  });

  it('timeout aborts job.signal and fails the attempt', async () => {
    const job = await slow.enqueue(null);
    const info = await eventually(async () => {
      const i = await slow.get(job.id);
      return i?.state === 'failed' ? i : undefined;
    });
    expect(info.error).toMatch(/timed out after 0.2 s/);
    expect((aborted as Error).name).toBe('JobTimeoutError');
  });

  it('a schedule with every runs on its ticks', async () => {
    await eventually(() => (ticks >= 2 ? true : undefined), 5000, 'two ticks');
  });

  it('runs each job in a CONSUMER span linked to the enqueuing request span', async () => {
    const tracer = trace.getTracer('test');
    const parent = tracer.startSpan('POST /thumbnails');
    const job = await context.with(trace.setSpan(context.active(), parent), () => thumbnail.enqueue({ image: 't.png', width: 3 }));
    parent.end();
    const span = await eventually(() =>
      exporter.getFinishedSpans().find((s) => s.name === 'thumbnail process' && s.attributes['messaging.message.id'] === job.id),
    );
    expect(span.kind).toBe(4); // SpanKind.CONSUMER
    expect(span.links[0]?.context.spanId).toBe(parent.spanContext().spanId);
    expect(span.links[0]?.context.traceId).toBe(parent.spanContext().traceId);
  });

  it('records jobs_total and job_duration_seconds in the MetricsMiddleware registry; stats() counts per kind', async () => {
    const text = await eventually(async () => {
      const t = await registry.metrics();
      return t.includes('jobs_total{job="thumbnail",state="completed"}') && t.includes('jobs_total{job="doomed",state="failed"}')
        ? t
        : undefined;
    });
    expect(text).toMatch(/job_duration_seconds_count\{job="thumbnail"\} \d+/);
    const stats = await jobs.stats();
    expect(stats.thumbnail!.completed).toBeGreaterThanOrEqual(3);
    expect(stats.doomed!.failed).toBeGreaterThanOrEqual(1);
    expect(Object.keys(stats.thumbnail!).sort()).toEqual(['active', 'completed', 'delayed', 'failed', 'waiting']);
  });

  it('get() of an unknown id is undefined', async () => {
    expect(await thumbnail.get('no-such-job')).toBeUndefined();
  });
}
