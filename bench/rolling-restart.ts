// The long version of examples/deployment's test: two instances of the example app behind HAProxy,
// sharing Redis and PostgreSQL; load through HAProxy for the whole run while every instance is
// restarted with SIGTERM, one at a time, `--restarts` rounds; then a rate limit of N per minute
// checked across both instances (N + k requests → exactly k refused). Prints the figures.
//
//   pnpm loadtest            (runs loadtest.ts, then this)
//   pnpm --filter @fnapi/bench rolling-restart [-- --restarts 3 --concurrency 32 --limit 100 --extra 20]
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { driveLoad, rollingRestart, sendEach, startBalancer, startInstance } from '@fnapi/example-deployment/local';
import { freePort } from '@fnapi/test-support';

const { values: args } = parseArgs({
  args: process.argv.slice(2).filter((a, i) => !(i === 0 && a === '--')),
  options: {
    restarts: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '32' },
    limit: { type: 'string', default: '100' },
    extra: { type: 'string', default: '20' },
  },
});
const limit = Number(args.limit);
const extra = Number(args.extra);
const env = {
  SHUTDOWN_DELAY: '2',
  SHUTDOWN_TIMEOUT: '10',
  RATE_LIMIT: String(limit),
  RATE_WINDOW: '60',
  RATE_LIMIT_PREFIX: `fnapi:loadtest:${randomBytes(6).toString('hex')}:`,
  NODE_ENV: 'production',
};

const ports = [await freePort(), await freePort()];
let instances = await Promise.all(ports.map((port) => startInstance(port, env)));
const balancer = await startBalancer(await freePort(), await freePort(), ports, 200);
let failedRun = false;
try {
  for (const port of ports) await balancer.waitFor(port, 'UP');
  const started = performance.now();
  const load = driveLoad(balancer.url, ['/hello/Ada?greeting=Hi', '/users/1/posts/2', '/db/now'], Number(args.concurrency));
  const exitCodes: (number | null)[] = [];
  for (let round = 0; round < Number(args.restarts); round++) {
    const restarted = await rollingRestart(balancer, instances, env);
    instances = restarted.instances;
    exitCodes.push(...restarted.exitCodes);
    console.log(`round ${round + 1}: both instances restarted (exit codes ${restarted.exitCodes.join(', ')})`);
  }
  const report = await load.stop();
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `rolling restarts: ${exitCodes.length} restarts in ${seconds.toFixed(0)} s; ${report.sent} requests sent ` +
      `(${(report.sent / seconds).toFixed(0)} req/s), ${report.failed} failed; statuses ${JSON.stringify(report.statuses)}; ` +
      `${report.pids.size} instance processes answered`,
  );
  for (const failure of report.failures) console.log(`  failure: ${failure}`);
  const { statuses, pids } = await sendEach(balancer.url, '/quota/ping', limit + extra);
  console.log(
    `rate limit ${limit}/min across ${pids.size} instances: ${limit + extra} requests sent, ${statuses[200] ?? 0} served, ` +
      `${statuses[429] ?? 0} refused (expected ${extra})`,
  );
  failedRun = report.failed > 0 || exitCodes.some((code) => code !== 0) || statuses[429] !== extra || statuses[200] !== limit;
} finally {
  await balancer.stop();
  for (const instance of instances) {
    instance.child.kill('SIGTERM');
    await instance.exited;
  }
}
if (failedRun) {
  console.error('FAILED: requests were lost, an instance did not exit 0, or the limit did not hold');
  process.exit(1);
}
