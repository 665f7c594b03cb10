// Load generator, run as its own process (pinned to CPU 0 by run.ts where taskset exists):
// one warm-up run, then one measured run against a single endpoint. Prints one JSON line.
import autocannon from 'autocannon';

export interface LoadJob {
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  pipelining: number;
  duration: number;
  warmup: number;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  /** Mean latency, ms. */
  latencyAvg: number;
  /** Mean bytes per second received (headers and bodies). */
  throughput: number;
  /** Bytes received over the measured run. */
  bytes: number;
  total: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  /** CPU used by this load-generator process during the measured run, as a share of one core. */
  cpu: number;
}

const job = JSON.parse(process.argv[2] ?? '{}') as LoadJob;

function fire(duration: number): Promise<autocannon.Result> {
  return autocannon({
    url: job.url,
    method: job.method,
    headers: job.headers,
    body: job.body,
    connections: job.connections,
    pipelining: job.pipelining,
    duration,
  });
}

if (job.warmup > 0) await fire(job.warmup);
// Tell the runner the measured part starts now (it samples the server's CPU time here).
process.stdout.write('measure\n');
const cpuBefore = process.cpuUsage();
const started = process.hrtime.bigint();
const r = await fire(job.duration);
const cpu = process.cpuUsage(cpuBefore);
const wallUs = Number(process.hrtime.bigint() - started) / 1000;

const out: LoadResult = {
  rps: r.requests.average,
  p50: r.latency.p50,
  p99: r.latency.p99,
  latencyAvg: r.latency.average,
  throughput: r.throughput.average,
  bytes: r.throughput.total,
  total: r.requests.total,
  errors: r.errors,
  timeouts: r.timeouts,
  non2xx: r.non2xx,
  cpu: (cpu.user + cpu.system) / wallUs,
};
process.stdout.write(`${JSON.stringify(out)}\n`);
