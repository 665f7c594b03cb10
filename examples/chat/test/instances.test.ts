/**
 * The chat as two instances behind HAProxy sharing a RedisHub on a private redis-server: a message
 * sent to instance A reaches a client of instance B. Then Redis is stopped under the chat: publishing
 * answers 503 (HTTP) or a notice (WebSocket) while it is away, the sockets stay open, and once Redis is
 * started again the rooms carry messages across instances by themselves.
 */
import { randomBytes } from 'node:crypto';
import { freePort, REQUIRE_SERVICES } from '@fnapi/test-support';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { PrivateRedis, redisServerInstalled } from '@fnapi/test-support/private-redis';
import { haproxyPath, type Instance, startHaproxy, startInstance } from './support.js';

const ready = haproxyPath() !== undefined && redisServerInstalled;
if (!ready) {
  if (REQUIRE_SERVICES) throw new Error('FNAPI_REQUIRE_SERVICES=1 but HAProxy or redis-server is not installed');
  console.warn('!!! SKIPPED: HAProxy or redis-server is not installed (apt-get install haproxy redis-server)');
}

const secret = 'instances-test-secret-long-enough-for-hs256';

/** A WebSocket client that keeps every message it receives. */
async function member(url: string): Promise<{ socket: WebSocket; lines: { from: string; text: string }[]; closed: Promise<number> }> {
  const socket = new WebSocket(url);
  const lines: { from: string; text: string }[] = [];
  socket.on('message', (data) => lines.push(JSON.parse(String(data))));
  const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  return { socket, lines, closed };
}

async function until(check: () => boolean, ms = 5000): Promise<void> {
  await vi.waitUntil(check, { timeout: ms, interval: 20 });
}

describe.skipIf(!ready)('examples/chat: two instances behind HAProxy sharing a RedisHub', () => {
  let redis: PrivateRedis;
  let instances: Instance[] = [];
  let balancer: { url: string; stop(): Promise<void> };

  beforeAll(async () => {
    redis = new PrivateRedis(await freePort());
    await redis.start();
    const env = { REDIS_URL: redis.url, JWT_SECRET: secret, HUB_PREFIX: `chat:${randomBytes(4).toString('hex')}:` };
    const ports = [await freePort(), await freePort()];
    instances = await Promise.all(ports.map((port, i) => startInstance(port, { ...env, INSTANCE: `i${i}` })));
    balancer = await startHaproxy(await freePort(), ports);
  }, 30_000);

  afterAll(async () => {
    await balancer?.stop();
    for (const instance of instances) {
      instance.child.kill('SIGTERM');
      await instance.exited;
    }
    await redis?.dispose();
  });

  async function token(name: string): Promise<string> {
    const res = await fetch(`${balancer.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name }),
    });
    return ((await res.json()) as { token: string }).token;
  }
  const wsUrl = (room: string, t: string) => `${balancer.url.replace('http', 'ws')}/rooms/${room}?token=${t}`;

  it('a message sent to instance A reaches a client of instance B; Redis away and back under the chat', async () => {
    const instanceOf = (m: { lines: { text: string }[] }) => /instance (\S+)/.exec(m.lines[0]!.text)![1];
    const ada = await member(wsUrl('lobby', await token('ada')));
    await until(() => ada.lines.length > 0);
    const bobToken = await token('bob');
    // HAProxy balances round robin (logins included): join until bob is on the other instance.
    let bob = await member(wsUrl('lobby', bobToken));
    await until(() => bob.lines.length > 0);
    for (let tries = 0; tries < 4 && instanceOf(bob) === instanceOf(ada); tries++) {
      bob.socket.close();
      bob = await member(wsUrl('lobby', bobToken));
      await until(() => bob.lines.length > 0);
    }
    expect(instanceOf(ada)).not.toBe(instanceOf(bob));
    // The welcome comes once the member's hub subscription is ready: no wait needed before sending.
    ada.socket.send(JSON.stringify({ text: 'across instances' }));
    await until(() => bob.lines.some((l) => l.text === 'across instances'));
    expect(bob.lines.at(-1)).toMatchObject({ from: 'ada', text: 'across instances' });

    // Redis goes away under the chat.
    await redis.stop();
    const bot = await token('bot');
    const posted = await fetch(`${balancer.url}/rooms/lobby/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${bot}` },
      body: JSON.stringify({ text: 'while away' }),
    });
    expect(posted.status).toBe(503);
    expect(posted.headers.get('content-type')).toBe('application/problem+json');
    ada.socket.send(JSON.stringify({ text: 'lost' }));
    await until(() => ada.lines.some((l) => l.from === 'server' && l.text.startsWith('not delivered')));
    expect(ada.socket.readyState).toBe(WebSocket.OPEN);
    expect(bob.socket.readyState).toBe(WebSocket.OPEN);

    // Back: the subscriptions resume by themselves; nothing published meanwhile is replayed.
    await redis.start();
    // Sent until it arrives: each instance reconnects to Redis in its own time.
    await vi.waitFor(
      () => {
        if (!bob.lines.some((l) => l.text === 'after')) {
          ada.socket.send(JSON.stringify({ text: 'after' }));
          throw new Error("'after' has not reached bob yet");
        }
      },
      { timeout: 15_000, interval: 300 },
    );
    expect(bob.lines.some((l) => l.text === 'lost' || l.text === 'while away')).toBe(false);
    ada.socket.close(1000);
    bob.socket.close(1000);
    expect(await ada.closed).toBe(1000);
  }, 60_000);
});
