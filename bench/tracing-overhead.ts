// What TracingMiddleware costs with no OpenTelemetry SDK registered: GET /hello with and without it,
// in alternating short rounds (so drift on a shared machine hits both alike). Prints, per round, req/s
// and the server's CPU time per request (from /proc: steadier than req/s on a busy machine, and what
// bounds req/s on an idle one), then the medians. Goal: at most 3 % fewer req/s.
//
//   pnpm --filter @fnapi/bench tracing-overhead [-- --rounds 6 --seconds 3]
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

const here = dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({
  args: process.argv.slice(2).filter((a, i) => !(i === 0 && a === '--')),
  options: { rounds: { type: 'string', default: '6' }, seconds: { type: 'string', default: '3' } },
});

async function start(tracing: boolean): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--conditions=@fnapi/source', '--import', 'tsx', join(here, 'tracing/server.ts')], {
    env: { ...process.env, TRACING: tracing ? '1' : '0', NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve((JSON.parse(String(d)) as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  return { port, child };
}

/** CPU seconds (user + system) the process has used so far. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface Round {
  rps: number;
  /** Server CPU microseconds per request. */
  cpu: number;
}

async function load(server: { port: number; child: ChildProcess }, seconds: number): Promise<Round> {
  const before = cpuSeconds(server.child.pid!);
  const result = await autocannon({ url: `http://127.0.0.1:${server.port}/hello`, connections: 50, pipelining: 1, duration: seconds });
  const cpu = cpuSeconds(server.child.pid!) - before;
  if (result.errors > 0 || result.non2xx > 0) throw new Error(`errors during the run: ${result.errors} errors, ${result.non2xx} non-2xx`);
  return { rps: result.requests.average, cpu: (cpu * 1e6) / result.requests.total };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const plain = await start(false);
const traced = await start(true);
try {
  const seconds = Number(args.seconds);
  await load(plain, 1);
  await load(traced, 1);
  const without: Round[] = [];
  const withTracing: Round[] = [];
  for (let round = 0; round < Number(args.rounds); round++) {
    // Alternate which goes first.
    const order = round % 2 === 0 ? [false, true] : [true, false];
    for (const tracing of order) (tracing ? withTracing : without).push(await load(tracing ? traced : plain, seconds));
    const [w, t] = [without.at(-1)!, withTracing.at(-1)!];
    console.log(
      `round ${round + 1}: without ${w.rps.toFixed(0)} req/s ${w.cpu.toFixed(1)} µs CPU/req, ` +
        `with ${t.rps.toFixed(0)} req/s ${t.cpu.toFixed(1)} µs CPU/req`,
    );
  }
  const rpsRatio = median(without.map((w, i) => withTracing[i]!.rps / w.rps));
  const cpuRatio = median(without.map((w, i) => withTracing[i]!.cpu / w.cpu));
  console.log(
    `median: without ${median(without.map((r) => r.rps)).toFixed(0)} req/s, ${median(without.map((r) => r.cpu)).toFixed(1)} µs CPU/req; ` +
      `with TracingMiddleware ${median(withTracing.map((r) => r.rps)).toFixed(0)} req/s, ${median(withTracing.map((r) => r.cpu)).toFixed(1)} µs CPU/req`,
  );
  console.log(
    `median per-round ratios: req/s ${(rpsRatio * 100).toFixed(1)} %, CPU per request ${(cpuRatio * 100).toFixed(1)} % ` +
      `(CPU-bound req/s cost ≈ ${((1 - 1 / cpuRatio) * 100).toFixed(1)} %)`,
  );
} finally {
  plain.child.kill();
  traced.child.kill();
}
