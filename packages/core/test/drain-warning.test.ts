/**
 * The drain's warning line: what its time limit ended while still running — a handler, a WebSocket
 * handler, deferred work — is named (kind, method, path, route, request id, how long it ran), never
 * abandoned without a word.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { API } from '../src/index.js';

describe('a drain whose time limit passes', () => {
  it('names the requests, sockets and deferred work it abandons', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    // Seconds, as every duration: a little time for what finishes, none for what hangs.
    const app = new API({ logger, shutdownTimeout: 0.5 });
    let release!: () => void;
    const hang = new Promise<void>((resolve) => {
      release = resolve;
    });
    const started: string[] = [];
    app.get('/reports/{id}', async () => {
      started.push('request');
      await hang;
      return { done: true };
    });
    app.get('/quick', () => ({ quick: true }));
    app.post('/later', {}, (_input, request) => {
      request.defer(() => hang);
      return { accepted: true };
    });
    app.ws('/hold', {}, async () => {
      started.push('websocket');
      // Ignores the 1001 the drain closes it with: its handler is still running when time is up.
      await hang;
    });
    const server = await app.run({ port: 0, handleSignals: false });
    try {
      expect((await fetch(`${server.url}/later`, { method: 'POST', headers: { 'x-request-id': 'defer-1' } })).status).toBe(200);
      void fetch(`${server.url}/reports/7`, { headers: { 'x-request-id': 'slow-1' } }).catch(() => {});
      const socket = new WebSocket(`${server.url.replace('http', 'ws')}/hold`, { headers: { 'x-request-id': 'ws-1' } });
      socket.on('error', () => {});
      await expect.poll(() => started.length).toBe(2);
      expect((await fetch(`${server.url}/quick`)).status).toBe(200);

      const closing = performance.now();
      await server.close();
      // One time limit for the whole drain: the deferred work gets what the requests left of it, not
      // a second shutdownTimeout (0.5 s each; two would be 1 s).
      expect(performance.now() - closing).toBeLessThan(900);
      const warnings = lines.filter((line) => line.level === 40);
      // One line, never one per thing abandoned.
      expect(warnings).toHaveLength(1);
      const line = warnings[0] as { count: number; abandoned: Record<string, unknown>[]; msg: string };
      expect(line.count).toBe(3);
      expect(line.abandoned).toEqual([
        expect.objectContaining({ kind: 'request', method: 'GET', path: '/reports/7', route: '/reports/{id}', reqId: 'slow-1' }),
        expect.objectContaining({ kind: 'websocket', method: 'GET', path: '/hold', route: '/hold', reqId: 'ws-1' }),
        expect.objectContaining({ kind: 'deferred', method: 'POST', path: '/later', route: '/later', reqId: 'defer-1' }),
      ]);
      for (const entry of line.abandoned) expect(entry.running).toBeGreaterThan(0);
      expect(line.msg).toMatch(/^shutdown timeout passed: abandoning 3 still running: /);
      expect(line.msg).toContain('request GET /reports/7 (slow-1, ');
      expect(line.msg).toContain('websocket GET /hold (ws-1, ');
      expect(line.msg).toContain('deferred POST /later (defer-1, ');
      // What finished in time is never named.
      expect(JSON.stringify(warnings)).not.toContain('/quick');
    } finally {
      release();
    }
  });

  it('writes no warning when everything finishes in time', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    // Seconds: far more than the request needs; the drain ends as soon as it has finished.
    const app = new API({ logger, shutdownTimeout: 3 });
    let started = false;
    app.get('/brief', async () => {
      started = true;
      await new Promise((resolve) => setTimeout(resolve, 100));
      return { ok: true };
    });
    const server = await app.run({ port: 0, handleSignals: false });
    const answer = fetch(`${server.url}/brief`);
    // Closed while the request is in flight: the drain waits for it, and names nothing.
    await expect.poll(() => started).toBe(true);
    await server.close();
    expect((await answer).status).toBe(200);
    expect(lines.filter((line) => line.level === 40)).toEqual([]);
  });
});
