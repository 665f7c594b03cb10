// The event-stream server measured by streams.ts, in its own process: every connected client's
// generator yields one event a second, stamped with the time of the yield. TICK_MODE=burst wakes
// every generator at the same moment (a broadcast); the default, spread, gives each its own timer.
import { setTimeout as sleep } from 'node:timers/promises';
import { API, z } from '@fnapi/core';

const burst = process.env.TICK_MODE === 'burst';
const period = Number(process.env.TICK_MS ?? 1000);

const Tick = z.object({ n: z.int(), sent: z.number() });
const app = new API({ logger: false, docsUrl: null, redocUrl: null, openapiUrl: null });
let tick = 0;
let wake!: () => void;
const nextTick = () => new Promise<void>((resolve) => (wake = resolve));
let next = nextTick();
setInterval(() => {
  tick++;
  const current = wake;
  next = nextTick();
  current();
}, period);

let open = 0;
app.get('/ticks', { events: Tick }, async function* (_input, request) {
  open++;
  try {
    while (!request.signal.aborted) {
      if (burst) await next;
      else await sleep(period, undefined, { signal: request.signal }).catch(() => undefined);
      yield { n: tick, sent: performance.timeOrigin + performance.now() };
    }
  } finally {
    open--;
  }
});
app.get('/stats', () => ({ rss: process.memoryUsage().rss, heapUsed: process.memoryUsage().heapUsed, open }));

const server = await app.run({ host: '127.0.0.1', port: 0, handleSignals: true });
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
