/**
 * Event streams at scale: a server process (servers/fnapi-events.ts) with N event-stream clients
 * connected over loopback, each fed one event per second. Reports the server's RSS before and with
 * the clients (and so memory per connection), and the time from the generator's `yield` to the
 * client receiving the event (median, p99), both clocks being this machine's.
 *
 *   pnpm bench:streams [-- --clients 1000 --seconds 20 --mode spread|burst]
 */
import { spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    clients: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '20' },
    // spread: each stream on its own one-second timer; burst: all woken at once (a broadcast).
    mode: { type: 'string', default: 'spread' },
  },
});
const clients = Number(values.clients);
const seconds = Number(values.seconds);
const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const serverFile = fileURLToPath(new URL('./servers/fnapi-events.ts', import.meta.url));

const child = spawn(process.execPath, ['--conditions=@fnapi/source', '--import', 'tsx', serverFile], {
  cwd: repoRoot,
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, TICK_MODE: values.mode },
});
const url = new URL(
  await new Promise<string>((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => resolve((JSON.parse(chunk.toString()) as { url: string }).url));
    child.once('exit', (code) => reject(new Error(`server exited (${code})`)));
  }),
);

interface Stats {
  rss: number;
  heapUsed: number;
  open: number;
}
const stats = async (): Promise<Stats> => (await fetch(new URL('/stats', url))).json() as Promise<Stats>;
const now = () => performance.timeOrigin + performance.now();
const MiB = 1024 * 1024;

await sleep(1000);
const before = await stats();

const latencies: number[] = [];
let measuring = false;
let events = 0;
const sockets: Socket[] = [];
function open(): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port) }, () => {
      socket.write(`GET /ticks HTTP/1.1\r\nHost: ${url.host}\r\nAccept: text/event-stream\r\n\r\n`);
    });
    let headers = true;
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => {
      const received = now();
      if (headers) {
        headers = false;
        resolve();
      }
      for (const match of text.matchAll(/"sent":([0-9.e+]+)/g)) {
        events++;
        if (measuring) latencies.push(received - Number(match[1]));
      }
    });
    socket.once('error', reject);
    sockets.push(socket);
  });
}

// Connect in batches (the listen backlog is finite); a stream's headers come with its first event.
const started = now();
for (let i = 0; i < clients; i += 100) {
  await Promise.race([Promise.all(Array.from({ length: Math.min(100, clients - i) }, open)), sleep(30_000)]);
}
const connected = await stats();
console.log(`connected ${connected.open} streams in ${((now() - started) / 1000).toFixed(1)} s`);

measuring = true;
let peak = connected.rss;
for (let s = 0; s < seconds; s++) {
  await sleep(1000);
  peak = Math.max(peak, (await stats()).rss);
}
measuring = false;
const during = await stats();

for (const socket of sockets) socket.destroy();
await sleep(1500);
const after = await stats();
child.kill('SIGTERM');

latencies.sort((a, b) => a - b);
const pick = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
const perConnection = (during.rss - before.rss) / clients;
const report = {
  clients,
  seconds,
  mode: values.mode,
  eventsReceived: events,
  eventsMeasured: latencies.length,
  serverRssBeforeMiB: +(before.rss / MiB).toFixed(1),
  serverRssWithClientsMiB: +(during.rss / MiB).toFixed(1),
  serverRssPeakMiB: +(peak / MiB).toFixed(1),
  serverRssAfterDisconnectMiB: +(after.rss / MiB).toFixed(1),
  openAfterDisconnect: after.open,
  perConnectionKiB: +(perConnection / 1024).toFixed(1),
  yieldToClientMs: { median: +pick(0.5).toFixed(2), p90: +pick(0.9).toFixed(2), p99: +pick(0.99).toFixed(2), max: +pick(1).toFixed(2) },
};
console.log(JSON.stringify(report, null, 2));
process.exit(0);
