/**
 * Metrics, logs and traces see a WebSocket's upgrade (status 101) and its end: the counter at the
 * upgrade, the duration histogram and the log line when the connection closes, the span ending then.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { API } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { LoggingMiddleware } from '@fnapi/middleware';
import { jsonLines } from '@fnapi/test-support';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import { MetricsMiddleware, metricsEndpoint } from '../src/index.js';

describe('WebSocket observability', () => {
  it('counts the upgrade as 101, logs and times the connection at its end', async () => {
    const registry = new Registry();
    const { stream, lines } = jsonLines();
    const app = new API({ logger: false });
    app.addMiddleware(new MetricsMiddleware({ registry, defaultMetrics: false }));
    app.addMiddleware(new LoggingMiddleware({ logger: pino(stream) }));
    metricsEndpoint(app, { registry });
    app.ws('/echo/{id}', {}, async (_input, socket) => {
      for await (const message of socket) await socket.send(message);
    });
    const client = await TestClient.start(app);
    try {
      const ws = await client.ws('/echo/7');
      const metricsWhileOpen = (await client.get('/metrics')).body;
      expect(metricsWhileOpen).toMatch(/http_requests_total\{[^}]*route="\/echo\/\{id\}"[^}]*status="101"[^}]*\} 1/);
      expect(lines.filter((l) => l.route === '/echo/{id}')).toHaveLength(0);
      await ws.send('a');
      await ws.next();
      // A connection that lasts a known time: its logged duration must cover it.
      await sleep(200);
      await ws.send('bb');
      await ws.next();
      await ws.close();
      const line = await vi.waitUntil(() => lines.find((l) => l.route === '/echo/{id}'));
      expect(line).toMatchObject({ status: 101, msg: 'websocket closed', items: 2, bytes: 3, code: 1000, path: '/echo/7' });
      expect(line.duration as number).toBeGreaterThanOrEqual(200);
      const metrics = (await client.get('/metrics')).body;
      expect(metrics).toMatch(/http_request_duration_seconds_count\{[^}]*route="\/echo\/\{id\}"[^}]*status="101"[^}]*\} 1/);
    } finally {
      await client.close();
    }
  });
});
