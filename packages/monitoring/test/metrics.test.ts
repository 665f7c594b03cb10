/**
 * /metrics over real HTTP, parsed as Prometheus text: exact counts per route template, bounded
 * labels (10,000 random unknown paths add no series), default process metrics, redaction in logs.
 */
import { Writable } from 'node:stream';
import { API, UnauthorizedError, z } from '@fnapi/core';
import { METRICS_REGISTRY, provided } from '@fnapi/core/extend';
import { TestClient } from '@fnapi/core/testing';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, MetricsMiddleware, metricsEndpoint } from '../src/index.js';

interface Family {
  name: string;
  type: string;
  metrics: { labels?: Record<string, string>; value?: string; buckets?: Record<string, string>; count?: string }[];
}

function family(text: string, name: string): Family | undefined {
  return (parsePrometheusTextFormat(text) as Family[]).find((f) => f.name === name);
}

function counts(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const metric of family(text, 'http_requests_total')?.metrics ?? []) {
    const { method, route, status } = metric.labels!;
    out[`${method} ${route} ${status}`] = Number(metric.value);
  }
  return out;
}

describe('metrics', () => {
  let app: API;
  let client: TestClient;
  const registry = new Registry();

  beforeAll(async () => {
    app = new API({ logger: false });
    app.addMiddleware(new MetricsMiddleware({ registry }));
    // Throws past the metrics: the request's status is the error's (401), as logs and traces say.
    app.addMiddleware((request, callNext) => {
      if (request.path === '/private') throw new UnauthorizedError('Log in first');
      return callNext(request);
    });
    app.get('/private', () => ({ secret: true }));
    app.get('/items/{id}', { params: { id: z.int() } }, ({ id }) => ({ id }));
    app.post('/items', { params: { name: z.string() }, statusCode: 201 }, ({ name }) => ({ name }));
    app.get('/boom', () => {
      throw new Error('boom');
    });
    metricsEndpoint(app, { registry });
    client = await TestClient.start(app);
  });
  afterAll(() => client?.close());

  it('counts exactly the requests sent, per route template, method and status', async () => {
    for (const id of [1, 2, 3]) await client.get(`/items/${id}`);
    await client.get('/items/abc');
    await client.post('/items', { json: { name: 'x' } });
    await client.post('/items', { json: { name: 'y' } });
    await client.get('/nowhere');
    await client.get('/boom');
    await client.request('PROPFIND', '/items/1');
    expect((await client.get('/private')).status).toBe(401);
    const res = await client.get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(counts(res.body)).toEqual({
      'GET /items/{id} 200': 3,
      'GET /items/{id} 422': 1,
      'POST /items 201': 2,
      'GET unmatched 404': 1,
      'GET /boom 500': 1,
      'other unmatched 404': 1,
      // App middleware runs before routing: the route is not known yet.
      'GET unmatched 401': 1,
    });
    const duration = family(res.body, 'http_request_duration_seconds')!;
    expect(duration.type).toBe('HISTOGRAM');
    // The parser keeps no labels on histogram lines (prom-client writes `le` first): count from the text.
    expect(res.body).toMatch(/^http_request_duration_seconds_count\{method="GET",route="\/items\/\{id\}",status="200"\} 3$/m);
    expect(family(res.body, 'process_cpu_user_seconds_total')).toBeDefined();
    expect(app.openapi()).not.toHaveProperty(['paths', '/metrics']);
  });

  it('adds no series for 10,000 requests to random unknown paths', async () => {
    const before = await registry.getMetricsAsJSON();
    const series = (metrics: Awaited<ReturnType<Registry['getMetricsAsJSON']>>) =>
      metrics.filter((m) => m.name.startsWith('http_')).reduce((n, m) => n + (m.values as unknown[]).length, 0);
    await app.inject('/unknown/first');
    const afterOne = series(await registry.getMetricsAsJSON());
    for (let i = 0; i < 10_000; i++)
      await app.inject({ method: i % 7 === 0 ? 'BREW' : 'GET', url: `/${Math.random().toString(36).slice(2)}/${i}` });
    const afterAll = series(await registry.getMetricsAsJSON());
    expect(afterAll).toBeLessThanOrEqual(afterOne + 20); // at most the "other" method's series appear
    expect(afterAll).toBeGreaterThanOrEqual(series(before));
    const text = (await client.get('/metrics')).body;
    expect(counts(text)['GET unmatched 404']).toBeGreaterThan(8000);
    expect(Object.keys(counts(text)).every((key) => !/\/[a-z0-9]{6,}\//.test(key))).toBe(true);
  });
});

describe('MetricsMiddleware on an app', () => {
  it('leaves its registry on the app when added, for other packages (jobs) to find', () => {
    const app = new API({ logger: false });
    const registry = new Registry();
    expect(provided(app, METRICS_REGISTRY)).toBeUndefined();
    app.addMiddleware(new MetricsMiddleware({ registry, defaultMetrics: false }));
    expect(provided(app, METRICS_REGISTRY)).toBe(registry);
  });

  it('app.extend(middleware) adds it to the chain too, once, and counts requests', async () => {
    const app = new API({ logger: false });
    const registry = new Registry();
    const metrics = new MetricsMiddleware({ registry, defaultMetrics: false });
    app.extend(metrics);
    expect(app.middleware).toEqual([metrics]);
    expect(provided(app, METRICS_REGISTRY)).toBe(registry);
    app.get('/ping', () => 'pong');
    expect((await app.inject('/ping')).status).toBe(200);
    expect(counts(await registry.metrics())).toEqual({ 'GET /ping 200': 1 });
  });
});

describe('createLogger', () => {
  it('redacts credentials by default', () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    const captured = createLogger({ redactPaths: ['card.number'] }, sink);
    captured.info(
      {
        headers: { authorization: 'Bearer abc', cookie: 'sid=1', 'x-api-key': 'k', accept: 'json' },
        password: 'p',
        user: { token: 't', name: 'ada' },
      },
      'request',
    );
    const line = lines[0]!;
    expect(line.headers).toEqual({ authorization: '[REDACTED]', cookie: '[REDACTED]', 'x-api-key': '[REDACTED]', accept: 'json' });
    expect(line.password).toBe('[REDACTED]');
    expect(line.user).toEqual({ token: '[REDACTED]', name: 'ada' });
    captured.info({ card: { number: '4111', brand: 'visa' } }, 'payment');
    expect(lines[1]!.card).toEqual({ number: '[REDACTED]', brand: 'visa' });
  });
});
