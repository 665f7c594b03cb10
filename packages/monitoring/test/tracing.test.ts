/**
 * TracingMiddleware with the real OpenTelemetry SDK (in-memory exporter, async-hooks context manager,
 * W3C propagator): the SERVER span and its attributes, the caller's traceparent continued, errors,
 * ConnectionPool queries and RedisCacheStore calls as CLIENT children (real PostgreSQL and Redis), and
 * trace ids in the request's log lines. First, with no SDK registered, nothing records.
 */
import { CacheMiddleware } from '@fnapi/middleware';
import { RedisCacheStore } from '@fnapi/cache';
import { API, HTTPError, z } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { ConnectionPool } from '@fnapi/performance';
import { DATABASE_URL, jsonLines, REDIS_URL, serviceAvailable } from '@fnapi/test-support';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger, TracingMiddleware } from '../src/index.js';

const postgres = await serviceAvailable('PostgreSQL', DATABASE_URL);
const redis = await serviceAvailable('Redis', REDIS_URL);

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

function tracedApp() {
  const { stream, lines } = jsonLines();
  const app = new API({ logger: createLogger({ level: 'info' }, stream) });
  app.addMiddleware(new TracingMiddleware());
  app.get('/items/{id}', { params: { id: z.int() } }, ({ id }, request) => {
    request.logger.info({ id }, 'looking the item up');
    return { id };
  });
  app.get('/boom', () => {
    throw new Error('kaboom');
  });
  app.get('/unavailable', () => {
    throw new HTTPError(503, 'down for maintenance');
  });
  return { app, lines };
}

describe('TracingMiddleware without an SDK', () => {
  it('serves as before and records nothing', async () => {
    const { app } = tracedApp();
    const client = await TestClient.start(app);
    try {
      const res = await client.request('GET', '/items/7', { headers: { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` } });
      expect(res.status).toBe(200);
      expect(res.json()).toEqual({ id: 7 });
      expect(trace.getActiveSpan()).toBeUndefined();
      // Left out of the compiled chain: nothing runs per request.
      expect(new TracingMiddleware().isActive()).toBe(false);
    } finally {
      await client.close();
    }
  });
});

describe('TracingMiddleware with the OpenTelemetry SDK', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  let client: TestClient;
  let lines: Record<string, unknown>[];
  let pool: ConnectionPool | undefined;
  let store: RedisCacheStore | undefined;

  beforeAll(async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(provider);
    const traced = tracedApp();
    lines = traced.lines;
    if (postgres) {
      pool = new ConnectionPool(DATABASE_URL, { minSize: 0, maxSize: 2 });
      const db = pool;
      traced.app.get('/db', async () => {
        const { rows } = await db.query<{ n: number }>("select 40 + $1::int as n, 'secret' as word", [2]);
        return { n: rows[0]!.n };
      });
    }
    if (redis) {
      store = new RedisCacheStore({ url: REDIS_URL, keyPrefix: `fnapi:test:tracing:${process.pid}:`, timeout: 2 });
    }
    client = await TestClient.start(traced.app);
  });
  afterAll(async () => {
    await client?.close();
    await pool?.close();
    await store?.close();
    trace.disable();
    propagation.disable();
    context.disable();
  });
  beforeEach(() => exporter.reset());

  it('is in the chain once an SDK is registered', () => {
    expect(new TracingMiddleware().isActive()).toBe(true);
  });

  const spans = async (): Promise<ReadableSpan[]> => {
    await provider.forceFlush();
    return exporter.getFinishedSpans();
  };

  it('makes each request a SERVER span named after its route, continuing the caller’s traceparent', async () => {
    const res = await client.request('GET', '/items/7', {
      headers: { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01`, 'user-agent': 'probe/1.0' },
    });
    expect(res.status).toBe(200);
    const [span, ...rest] = await spans();
    expect(rest).toEqual([]);
    expect(span!.name).toBe('GET /items/{id}');
    expect(span!.kind).toBe(SpanKind.SERVER);
    expect(span!.spanContext().traceId).toBe(TRACE_ID);
    expect(span!.parentSpanContext?.spanId).toBe(CALLER_SPAN);
    expect(span!.status.code).toBe(SpanStatusCode.UNSET);
    expect(span!.attributes).toMatchObject({
      'http.request.method': 'GET',
      'http.route': '/items/{id}',
      'url.path': '/items/7',
      'url.scheme': 'http',
      'http.response.status_code': 200,
      'server.address': '127.0.0.1',
      'client.address': '127.0.0.1',
      'user_agent.original': 'probe/1.0',
    });
  });

  it('starts a new trace without a traceparent, and names an unmatched request by its method', async () => {
    expect((await client.request('GET', '/nowhere')).status).toBe(404);
    const [span] = await spans();
    expect(span!.name).toBe('GET');
    expect(span!.parentSpanContext).toBeUndefined();
    expect(span!.attributes['http.response.status_code']).toBe(404);
    expect(span!.attributes['http.route']).toBeUndefined();
    expect(span!.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('marks a thrown error as an error and records the exception', async () => {
    expect((await client.request('GET', '/boom')).status).toBe(500);
    const [span] = await spans();
    expect(span!.status.code).toBe(SpanStatusCode.ERROR);
    expect(span!.attributes['http.response.status_code']).toBe(500);
    const exception = span!.events.find((event) => event.name === 'exception');
    expect(exception?.attributes?.['exception.message']).toBe('kaboom');
  });

  it('marks a 5xx answer as an error', async () => {
    expect((await client.request('GET', '/unavailable')).status).toBe(503);
    const [span] = await spans();
    expect(span!.status.code).toBe(SpanStatusCode.ERROR);
    expect(span!.attributes['http.response.status_code']).toBe(503);
  });

  it('puts the request id and the trace id in the request’s log lines', async () => {
    const res = await client.request('GET', '/items/9', {
      headers: { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01`, 'x-request-id': 'ticket-4711' },
    });
    expect(res.headers['x-request-id']).toBe('ticket-4711');
    const [span] = await spans();
    const line = lines.find((l) => l.msg === 'looking the item up' && l.id === 9);
    expect(line?.reqId).toBe('ticket-4711');
    expect(line?.trace_id).toBe(TRACE_ID);
    expect(line?.span_id).toBe(span!.spanContext().spanId);
  });

  it('puts the trace id in the log lines of an app given its own pino logger', async () => {
    const { stream, lines: own } = jsonLines();
    const app = new API({ logger: pino(stream) });
    app.addMiddleware(new TracingMiddleware());
    app.get('/own/{id}', { params: { id: z.int() } }, ({ id }, request) => {
      request.logger.info({ id }, 'own logger line');
      return { id };
    });
    const ownClient = await TestClient.start(app);
    try {
      await ownClient.request('GET', '/own/3', { headers: { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` } });
      const [span] = await spans();
      const line = own.find((l) => l.msg === 'own logger line');
      expect(line?.trace_id).toBe(TRACE_ID);
      expect(line?.span_id).toBe(span!.spanContext().spanId);
      expect(typeof line?.reqId).toBe('string');
      // createLogger's lines carry the ids once, not twice.
      await client.request('GET', '/items/11', { headers: { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` } });
      expect(lines.some((l) => l.msg === 'looking the item up' && l.id === 11 && l.trace_id === TRACE_ID)).toBe(true);
    } finally {
      await ownClient.close();
    }
  });

  it.skipIf(!postgres)('makes ConnectionPool queries CLIENT children, with the query text but not its values', async () => {
    const res = await client.request('GET', '/db');
    expect(res.json()).toEqual({ n: 42 });
    const all = await spans();
    const server = all.find((s) => s.kind === SpanKind.SERVER)!;
    const query = all.find((s) => s.kind === SpanKind.CLIENT)!;
    expect(query.name).toBe('SELECT');
    expect(query.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    expect(query.spanContext().traceId).toBe(server.spanContext().traceId);
    expect(query.attributes).toEqual({
      'db.system.name': 'postgresql',
      'db.operation.name': 'SELECT',
      'db.query.text': 'select ? + $1::int as n, ? as word',
    });
  });

  it.skipIf(!redis)('makes RedisCacheStore calls CLIENT children', async () => {
    const cached = new API({ logger: false });
    cached.addMiddleware(new TracingMiddleware());
    cached.addMiddleware(new CacheMiddleware({ store: store!, ttl: 30 }));
    cached.get('/cached/{n}', ({ n }: { n: string }) => ({ n }));
    const cachedClient = await TestClient.start(cached);
    try {
      const path = `/cached/${Date.now()}`;
      expect((await cachedClient.request('GET', path)).status).toBe(200);
      const all = await spans();
      const server = all.find((s) => s.kind === SpanKind.SERVER)!;
      const commands = all.filter((s) => s.kind === SpanKind.CLIENT);
      expect(commands.map((s) => s.name)).toEqual(['GET', 'SET']);
      for (const command of commands) {
        expect(command.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
        expect(command.attributes['db.system.name']).toBe('redis');
      }
      expect(commands[0]!.attributes).toMatchObject({ 'db.operation.name': 'GET', 'db.query.text': 'GET ?' });
    } finally {
      await cachedClient.close();
    }
  });
});
