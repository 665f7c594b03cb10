/**
 * WebSockets, in one run: echo round trips per second and memory per idle connection for fnapi
 * against a bare `ws` server (each server in its own process, the clients in this one), the RSS of
 * an fnapi server holding 10,000 idle connections, and the latency (p50/p99) from one publish to its
 * arrival at 1,000 subscribers spread over two instances sharing a RedisHub.
 *
 *   pnpm --filter @fnapi/bench bench:websocket [-- --seconds 5 --clients 64 --idle 2000 --many 10000]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createInterface, type Interface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { WebSocket } from 'ws';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    seconds: { type: 'string', default: '5' },
    clients: { type: 'string', default: '64' },
    idle: { type: 'string', default: '2000' },
    many: { type: 'string', default: '10000' },
    subscribers: { type: 'string', default: '1000' },
    messages: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '2' },
  },
});
const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const now = () => performance.timeOrigin + performance.now();

interface Server {
  url: string;
  child: ChildProcess;
  lines: Interface;
  memory(): Promise<{ rss: number; heapUsed: number }>;
  /** CPU time (user + system) the server has used, in microseconds. */
  cpu(): Promise<number>;
  stop(): Promise<void>;
}

async function start(file: string, env: Record<string, string> = {}): Promise<Server> {
  const child = spawn(
    process.execPath,
    ['--expose-gc', '--conditions=@fnapi/source', '--import', 'tsx', fileURLToPath(new URL(file, import.meta.url))],
    {
      cwd: repoRoot,
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, ...env },
    },
  );
  const lines = createInterface({ input: child.stdout! });
  const queue: ((line: string) => void)[] = [];
  lines.on('line', (line) => queue.shift()?.(line));
  const next = () => new Promise<string>((resolve) => queue.push(resolve));
  const url = (JSON.parse(await next()) as { url: string }).url;
  return {
    url,
    child,
    lines,
    async memory() {
      const answer = next();
      child.stdin!.write('mem\n');
      return JSON.parse(await answer) as { rss: number; heapUsed: number };
    },
    async cpu() {
      const answer = next();
      child.stdin!.write('cpu\n');
      return (JSON.parse(await answer) as { cpu: number }).cpu;
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(15_000).then(() => child.kill('SIGKILL'))]);
    },
  };
}

async function open(url: string, count: number, onMessage?: (data: Buffer) => void): Promise<WebSocket[]> {
  const sockets: WebSocket[] = [];
  for (let i = 0; i < count; i += 200) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(200, count - i) }, async () => {
        const socket = new WebSocket(url, { perMessageDeflate: false });
        if (onMessage) socket.on('message', onMessage);
        socket.on('error', () => {});
        await new Promise((resolve, reject) => {
          socket.once('open', resolve);
          socket.once('error', reject);
        });
        return socket;
      }),
    );
    sockets.push(...batch);
  }
  return sockets;
}

async function closeAll(sockets: WebSocket[]): Promise<void> {
  await Promise.all(
    sockets.map(
      (s) =>
        new Promise<void>((resolve) => {
          if (s.readyState === WebSocket.CLOSED) return resolve();
          s.once('close', () => resolve());
          s.terminate();
        }),
    ),
  );
}

/**
 * Echo round trips per second: `clients` sockets, each sending its next message when the last came
 * back; and the server's CPU time per round trip (µs), which other load on the machine disturbs less.
 */
async function echo(server: Server, url: string): Promise<{ rate: number; cpuPerTrip: number }> {
  const seconds = Number(values.seconds);
  const payload = JSON.stringify({ text: 'x'.repeat(24) });
  let count = 0;
  let running = true;
  const sockets = await open(url, Number(values.clients));
  for (const socket of sockets) {
    socket.on('message', () => {
      count++;
      if (running) socket.send(payload);
    });
  }
  await sleep(200);
  for (const socket of sockets) socket.send(payload);
  await sleep(500); // warm-up
  const started = count;
  const cpu0 = await server.cpu();
  const t0 = performance.now();
  await sleep(seconds * 1000);
  const done = count - started;
  const elapsed = (performance.now() - t0) / 1000;
  const cpu1 = await server.cpu();
  running = false;
  await sleep(100);
  await closeAll(sockets);
  return { rate: done / elapsed, cpuPerTrip: (cpu1 - cpu0) / done };
}

/** Memory per idle connection: the server's RSS and heap with `n` idle sockets, less without. */
async function idleMemory(server: Server, path: string, n: number) {
  await sleep(300);
  const before = await server.memory();
  const sockets = await open(server.url + path, n);
  await sleep(1000);
  const after = await server.memory();
  await closeAll(sockets);
  return { rss: after.rss, rssPerConnection: (after.rss - before.rss) / n, heapPerConnection: (after.heapUsed - before.heapUsed) / n };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

// 1. Echo throughput and memory per idle connection, bare ws against fnapi, alternating rounds.
const rates = { bare: [] as number[], fnapi: [] as number[] };
const cpu = { bare: [] as number[], fnapi: [] as number[] };
const memory: Record<string, Awaited<ReturnType<typeof idleMemory>>> = {};
for (let round = 0; round < Number(values.rounds); round++) {
  for (const [name, file, path] of [
    ['bare', './servers/ws-bare.ts', '/'],
    ['fnapi', './servers/fnapi-ws.ts', '/echo'],
  ] as const) {
    const server = await start(file);
    const result = await echo(server, server.url + path);
    rates[name].push(result.rate);
    cpu[name].push(result.cpuPerTrip);
    if (round === 0) memory[name] = await idleMemory(server, path, Number(values.idle));
    await server.stop();
  }
}
const bestBare = Math.max(...rates.bare);
const bestFnapi = Math.max(...rates.fnapi);
console.log(`echo round trips/s (${values.clients} clients, ${values.seconds} s, best of ${values.rounds}):`);
console.log(`  bare ws  ${bestBare.toFixed(0)}   (rounds ${rates.bare.map((r) => r.toFixed(0)).join(', ')})`);
console.log(
  `  fnapi    ${bestFnapi.toFixed(0)}   (rounds ${rates.fnapi.map((r) => r.toFixed(0)).join(', ')})   ratio ${(bestFnapi / bestBare).toFixed(2)}`,
);
const bestCpu = { bare: Math.min(...cpu.bare), fnapi: Math.min(...cpu.fnapi) };
console.log(
  `server CPU per round trip (best): bare ws ${bestCpu.bare.toFixed(2)} µs, fnapi ${bestCpu.fnapi.toFixed(2)} µs ` +
    `(messages/s per server CPU second: ratio ${(bestCpu.bare / bestCpu.fnapi).toFixed(2)})`,
);
console.log(`memory per idle connection (${values.idle} connections):`);
for (const name of ['bare', 'fnapi']) {
  const m = memory[name]!;
  console.log(`  ${name.padEnd(6)} RSS ${kib(m.rssPerConnection)}/connection, heap ${kib(m.heapPerConnection)}/connection`);
}
console.log(`  ratio (RSS) ${(memory.fnapi!.rssPerConnection / memory.bare!.rssPerConnection).toFixed(2)}`);

// 2. 10,000 idle connections on one fnapi server.
{
  const server = await start('./servers/fnapi-ws.ts');
  await sleep(300);
  const before = await server.memory();
  const sockets = await open(`${server.url}/echo`, Number(values.many));
  await sleep(1500);
  const after = await server.memory();
  console.log(
    `${values.many} idle connections on fnapi: RSS ${mib(after.rss)} (${mib(before.rss)} without; ${kib((after.rss - before.rss) / Number(values.many))}/connection)`,
  );
  await closeAll(sockets);
  await server.stop();
}

// 3. Fan-out: one publish to `subscribers` sockets over two instances sharing a RedisHub.
{
  const env = { REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', HUB_PREFIX: `bench:ws:${randomBytes(4).toString('hex')}:` };
  const a = await start('./servers/fnapi-ws.ts', env);
  const b = await start('./servers/fnapi-ws.ts', env);
  const latencies: number[] = [];
  const onMessage = (data: Buffer) => {
    latencies.push(now() - (JSON.parse(String(data)) as { at: number }).at);
  };
  const half = Number(values.subscribers) / 2;
  const sockets = [...(await open(`${a.url}/feed`, half, onMessage)), ...(await open(`${b.url}/feed`, half, onMessage))];
  await sleep(500);
  const messages = Number(values.messages);
  const publishUrl = `${a.url.replace('ws', 'http')}/publish`;
  for (let i = 0; i < messages; i++) {
    const expected = (i + 1) * sockets.length;
    await fetch(publishUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ at: now() }) });
    const deadline = Date.now() + 5000;
    while (latencies.length < expected && Date.now() < deadline) await sleep(2);
    await sleep(50);
  }
  const sorted = [...latencies].sort((x, y) => x - y);
  console.log(
    `fan-out of one publish to ${sockets.length} subscribers on two instances (RedisHub), ${messages} publishes: ` +
      `${latencies.length}/${messages * sockets.length} delivered, p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms`,
  );
  await closeAll(sockets);
  await a.stop();
  await b.stop();
}
process.exit(0);
