/**
 * WebSockets under faults: a client that stops reading (the handler's sends wait: server memory
 * stays bounded), a client that vanishes without a close frame (the handler's iteration ends, its
 * subscription is gone), and SIGTERM with 1,000 open sockets in a child process (every socket
 * closed with 1001 after shutdownDelay, every handler returned, exit 0).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { API, Hub } from '../src/index.js';
import { TestClient } from '../src/server/testing.js';

describe('a client that stops reading', () => {
  it('holds the sender back: what is buffered stays bounded', async () => {
    const app = new API({ logger: false });
    const progress = { sent: 0 };
    const chunk = 'x'.repeat(16 * 1024);
    app.ws('/firehose', {}, async (_input, socket) => {
      while (socket.open) {
        await socket.send(chunk);
        progress.sent++;
      }
    });
    const client = await TestClient.start(app);
    try {
      const ws = await client.ws('/firehose');
      // Stop reading from the network: the kernel's buffers fill, then the server's writes wait.
      (ws.socket as unknown as { _socket: { pause(): void } })._socket.pause();
      let previous = -1;
      await vi.waitUntil(
        () => {
          const still = progress.sent === previous;
          previous = progress.sent;
          return still;
        },
        { timeout: 10_000, interval: 200 },
      );
      const stalled = progress.sent;
      // A window in which a sender that ignored back-pressure would go on.
      await sleep(1000);
      const later = progress.sent;
      // Stalled: no more than a few messages moved in that second, and what was produced is bounded
      // by socket buffers plus the 64 KiB high-water mark, not by time.
      expect(later - stalled).toBeLessThanOrEqual(8);
      expect(later * chunk.length).toBeLessThan(32 * 1024 * 1024);
      ws.terminate();
    } finally {
      await client.close();
    }
  });
});

describe('a client that vanishes', () => {
  it("ends the handler's iteration, aborts socket.signal and drops its subscription", async () => {
    const hub = new Hub({ logger: false });
    const app = new API({ logger: false });
    const seen = { ended: 0, aborted: false };
    app.ws('/room', {}, async (_input, socket) => {
      void socket.forward(hub.subscribe('room', { signal: socket.signal }));
      for await (const _ of socket) {
        // read
      }
      seen.ended++;
      seen.aborted = socket.signal.aborted;
    });
    const client = await TestClient.start(app);
    try {
      const sockets = await Promise.all(Array.from({ length: 20 }, () => client.ws('/room')));
      await vi.waitUntil(() => hub.stats().subscriptions === 20);
      for (const ws of sockets) {
        // Gone without a close frame: the TCP connection is destroyed.
        (ws.socket as unknown as { _socket: { destroy(): void } })._socket.destroy();
      }
      await vi.waitUntil(() => seen.ended === 20, { timeout: 3000, interval: 20 });
      expect(seen.aborted).toBe(true);
      expect(hub.stats()).toMatchObject({ topics: 0, subscriptions: 0 });
      await hub.publish('room', 'nobody');
      expect(hub.stats().delivered).toBe(0);
    } finally {
      await client.close();
    }
  });
});

describe('SIGTERM with 1,000 open sockets', () => {
  it('closes every socket with 1001 after shutdownDelay, waits for the handlers, exits 0', async () => {
    const fixture = fileURLToPath(new URL('./fixtures/ws-server.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@fnapi/source', fixture], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, SHUTDOWN_DELAY: '0.3' },
    });
    const lines: Record<string, unknown>[] = [];
    const listening = new Promise<string>((resolve) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const parsed = JSON.parse(line) as Record<string, unknown>;
        lines.push(parsed);
        if (parsed.event === 'listening') resolve(String(parsed.url));
      });
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const url = await listening;
      const { WebSocket } = await import('ws');
      const sockets: InstanceType<typeof WebSocket>[] = [];
      const codes: number[] = [];
      for (let batch = 0; batch < 10; batch++) {
        await Promise.all(
          Array.from({ length: 100 }, (_, i) => {
            const ws = new WebSocket(`${url.replace('http', 'ws')}/rooms/r${(batch * 100 + i) % 10}`);
            sockets.push(ws);
            ws.on('close', (code) => codes.push(code));
            ws.on('error', () => {});
            return new Promise((resolve, reject) => {
              ws.once('open', resolve);
              ws.once('error', reject);
            });
          }),
        );
      }
      expect(sockets.filter((s) => s.readyState === WebSocket.OPEN)).toHaveLength(1000);
      const signalled = Date.now();
      child.kill('SIGTERM');
      // During shutdownDelay the sockets stay open and keep working: a window within that delay.
      await sleep(100);
      expect(codes).toHaveLength(0);
      sockets[0]!.send(JSON.stringify({ text: 'still here' }));
      const code = await exited;
      expect(code).toBe(0);
      await vi.waitUntil(() => codes.length === 1000, { timeout: 5000, interval: 20 });
      expect(new Set(codes)).toEqual(new Set([1001]));
      expect(Date.now() - signalled).toBeGreaterThanOrEqual(300);
      expect(lines.find((l) => l.event === 'shutdown-callback')?.handlersEnded).toBe(1000);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 30_000);
});
