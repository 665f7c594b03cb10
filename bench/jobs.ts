// Jobs through @fnapi/jobs against BullMQ used directly, on Redis and on PostgreSQL, in one run:
// - enqueue: N jobs added with 32 in flight (fnapi validates each payload with zod first);
// - process: the N jobs run by one worker of concurrency 16 (no-op handler), from start to the last;
// - latency: POST requests to an endpoint that enqueues (app.run, 8 connections): the enqueue call's
//   time inside the handler and the request's round trip, p50 and p99.
// Each comparison alternates BullMQ and fnapi (--rounds, default 3) and keeps each side's best, on fresh
// prefixes; processing is also given per second of this process's CPU time, steadier on a busy machine.
//
//   pnpm --filter @fnapi/bench bench:jobs [-- --redis N --postgres N --requests N]
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { API, z } from '@fnapi/core';
import { silentLogger } from '@fnapi/core/extend';
import { Jobs } from '@fnapi/jobs';
import { createPostgresBackend, Queue, Worker } from 'bullmq';
import pg from 'pg';
import { createClient } from 'redis';
import { Pool } from 'undici';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    redis: { type: 'string' },
    postgres: { type: 'string' },
    requests: { type: 'string' },
    rounds: { type: 'string' },
    only: { type: 'string' },
  },
});
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const COUNTS = { redis: Number(values.redis ?? 4000), postgres: Number(values.postgres ?? 2000) };
const REQUESTS = Number(values.requests ?? 2000);
const ROUNDS = Number(values.rounds ?? 3);
const STORES = (values.only ? [values.only] : ['redis', 'postgres']) as StoreName[];
const IN_FLIGHT = 32;
const CONCURRENCY = 16;
type StoreName = 'redis' | 'postgres';

interface Round {
  enqueuePerSecond: number;
  processPerSecond: number;
  /** Jobs processed per second of this process's CPU time (user + system): steadier on a busy machine. */
  processPerCpuSecond: number;
}

function cpuSeconds(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
}

const made: { store: StoreName; prefix: string }[] = [];
function prefixFor(store: StoreName): string {
  const prefix = store === 'redis' ? `bench-jobs-${randomBytes(4).toString('hex')}` : `bench_jobs_${randomBytes(4).toString('hex')}`;
  made.push({ store, prefix });
  return prefix;
}

async function inFlight(count: number, limit: number, task: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

function counter(count: number): { tick(): void; done: Promise<number> } {
  let seen = 0;
  let resolve!: (at: number) => void;
  const done = new Promise<number>((r) => {
    resolve = r;
  });
  return {
    tick() {
      if (++seen === count) resolve(performance.now());
    },
    done,
  };
}

async function bullmqRound(store: StoreName, count: number): Promise<Round> {
  const prefix = prefixFor(store);
  const clients: { close(): Promise<unknown> }[] = [];
  let queue: Queue;
  // The worker's side is set up inside the timed window, its connection included, as fnapi's
  // `workers.start()` is: both are timed from a process that has no worker yet.
  let makeWorker: (processor: () => Promise<unknown>) => Promise<Worker>;
  if (store === 'redis') {
    const producer = createClient({ url: REDIS_URL });
    await producer.connect();
    clients.push(producer);
    queue = new Queue('noop', { connection: producer as never, prefix });
    makeWorker = async (processor) => {
      const consumer = createClient({ url: REDIS_URL });
      await consumer.connect();
      clients.push(consumer);
      return new Worker('noop', processor, { connection: consumer as never, prefix, concurrency: CONCURRENCY, autorun: false });
    };
  } else {
    const connection = { connectionString: DATABASE_URL, schema: prefix, migrate: true };
    queue = new Queue('noop', { connection: { ...connection, max: 8 } }, createPostgresBackend) as unknown as Queue;
    makeWorker = async (processor) =>
      new Worker(
        'noop',
        processor,
        { connection: { ...connection, max: CONCURRENCY + 3 }, concurrency: CONCURRENCY, autorun: false },
        createPostgresBackend,
      ) as unknown as Worker;
  }
  const options = { attempts: 1, removeOnComplete: { count: 1000 }, removeOnFail: { count: 1000 } };
  await queue.add('noop', { i: -1 }, options); // connects (and on PostgreSQL migrates) before timing
  const enqueueStart = performance.now();
  await inFlight(count, IN_FLIGHT, (i) => queue.add('noop', { i }, options));
  const enqueueSeconds = (performance.now() - enqueueStart) / 1000;
  const done = counter(count + 1);
  const processStart = performance.now();
  const cpu = process.cpuUsage();
  const worker = await makeWorker(async () => {
    done.tick();
    return null;
  });
  void worker.run();
  const end = await done.done;
  const cpuUsed = cpuSeconds(cpu);
  await worker.close();
  await queue.close();
  for (const client of clients) await client.close();
  return {
    enqueuePerSecond: count / enqueueSeconds,
    processPerSecond: (count + 1) / ((end - processStart) / 1000),
    processPerCpuSecond: (count + 1) / cpuUsed,
  };
}

async function fnapiRound(store: StoreName, count: number): Promise<Round> {
  const prefix = prefixFor(store);
  const producer = new Jobs({ [store]: store === 'redis' ? REDIS_URL : DATABASE_URL, prefix, logger: silentLogger() });
  const payload = z.object({ i: z.int() });
  const noop = producer.define('noop', { payload }, () => null);
  await noop.enqueue({ i: -1 });
  const enqueueStart = performance.now();
  await inFlight(count, IN_FLIGHT, (i) => noop.enqueue({ i }));
  const enqueueSeconds = (performance.now() - enqueueStart) / 1000;
  const done = counter(count + 1);
  const workers = new Jobs({ [store]: store === 'redis' ? REDIS_URL : DATABASE_URL, prefix, logger: silentLogger() });
  workers.define('noop', { payload, concurrency: CONCURRENCY }, () => {
    done.tick();
    return null;
  });
  const processStart = performance.now();
  const cpu = process.cpuUsage();
  await workers.start();
  const end = await done.done;
  const cpuUsed = cpuSeconds(cpu);
  await workers.close();
  await producer.close();
  return {
    enqueuePerSecond: count / enqueueSeconds,
    processPerSecond: (count + 1) / ((end - processStart) / 1000),
    processPerCpuSecond: (count + 1) / cpuUsed,
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function latency(store: StoreName): Promise<{ enqueue: [number, number]; request: [number, number] }> {
  const jobs = new Jobs({ [store]: store === 'redis' ? REDIS_URL : DATABASE_URL, prefix: prefixFor(store), logger: silentLogger() });
  const welcome = jobs.define('welcome', { payload: z.object({ userId: z.int(), email: z.email() }) }, () => null);
  const app = new API({ logger: false, docsUrl: null, redocUrl: null, openapiUrl: null });
  const inside: number[] = [];
  app.post('/users', { params: { userId: z.int(), email: z.email() }, statusCode: 202 }, async (user) => {
    const started = performance.now();
    const job = await welcome.enqueue(user);
    inside.push(performance.now() - started);
    return { job: job.id };
  });
  const server = await app.run({ port: 0, handleSignals: false });
  const pool = new Pool(server.url, { connections: 8 });
  const round: number[] = [];
  const send = async (i: number) => {
    const started = performance.now();
    const res = await pool.request({
      method: 'POST',
      path: '/users',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userId: i, email: `u${i}@example.com` }),
    });
    await res.body.text();
    if (res.statusCode !== 202) throw new Error(`answered ${res.statusCode}`);
    return performance.now() - started;
  };
  await inFlight(200, 8, (i) => send(i)); // warm-up
  inside.length = 0;
  await inFlight(REQUESTS, 8, async (i) => round.push(await send(i)));
  await pool.close();
  await server.close();
  await jobs.close();
  inside.sort((a, b) => a - b);
  round.sort((a, b) => a - b);
  return { enqueue: [percentile(inside, 50), percentile(inside, 99)], request: [percentile(round, 50), percentile(round, 99)] };
}

async function cleanup(): Promise<void> {
  const redis = createClient({ url: REDIS_URL });
  await redis.connect();
  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  for (const { store, prefix } of made) {
    if (store === 'redis') {
      const keys: string[] = [];
      for await (const batch of redis.scanIterator({ MATCH: `${prefix}:*`, COUNT: 1000 })) keys.push(...batch);
      if (keys.length) await redis.del(keys);
    } else {
      await db.query(`drop schema if exists "${prefix}" cascade`);
    }
  }
  await redis.close();
  await db.end();
}

const best = (rounds: Round[], key: keyof Round) => Math.max(...rounds.map((r) => r[key]));
const fmt = (n: number) => n.toFixed(0).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

try {
  console.log(
    `| store | jobs | BullMQ enqueue/s | fnapi enqueue/s | ratio | BullMQ processed/s | fnapi processed/s | ratio | BullMQ per CPU-s | fnapi per CPU-s | ratio |`,
  );
  console.log(`|---|---|---|---|---|---|---|---|---|---|---|`);
  for (const store of STORES) {
    const bull: Round[] = [];
    const ours: Round[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      bull.push(await bullmqRound(store, COUNTS[store]));
      ours.push(await fnapiRound(store, COUNTS[store]));
    }
    const e = [best(bull, 'enqueuePerSecond'), best(ours, 'enqueuePerSecond')] as const;
    const p = [best(bull, 'processPerSecond'), best(ours, 'processPerSecond')] as const;
    const c = [best(bull, 'processPerCpuSecond'), best(ours, 'processPerCpuSecond')] as const;
    console.log(
      `| ${store} | ${COUNTS[store]} | ${fmt(e[0])} | ${fmt(e[1])} | ${(e[1] / e[0]).toFixed(2)} | ${fmt(p[0])} | ${fmt(p[1])} | ${(p[1] / p[0]).toFixed(2)} | ${fmt(c[0])} | ${fmt(c[1])} | ${(c[1] / c[0]).toFixed(2)} |`,
    );
  }
  console.log('');
  console.log(`| store | requests | enqueue in the handler p50 / p99 | request round trip p50 / p99 |`);
  console.log(`|---|---|---|---|`);
  for (const store of STORES) {
    const l = await latency(store);
    console.log(
      `| ${store} | ${REQUESTS} | ${l.enqueue[0].toFixed(2)} / ${l.enqueue[1].toFixed(2)} ms | ${l.request[0].toFixed(2)} / ${l.request[1].toFixed(2)} ms |`,
    );
  }
} finally {
  await cleanup();
}
process.exit(0);
