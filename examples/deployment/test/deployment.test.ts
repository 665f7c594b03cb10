/**
 * The deployment for real: two instances of the example app behind Debian's HAProxy (health checks
 * on /readyz), sharing Redis and PostgreSQL. Load flows through HAProxy while each instance in turn
 * takes SIGTERM and is started again: not one request fails. A rate limit of N per window holds
 * across both instances: N + k requests spread over them, exactly k refused. (`pnpm loadtest` runs
 * a longer version.)
 */
import { randomBytes } from 'node:crypto';
import { DATABASE_URL, freePort, REDIS_URL, REQUIRE_SERVICES, serviceAvailable } from '@fnapi/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Balancer,
  driveLoad,
  haproxyPath,
  type Instance,
  rollingRestart,
  sendEach,
  startBalancer,
  startInstance,
} from '../src/local.js';

const services = (await serviceAvailable('PostgreSQL', DATABASE_URL)) && (await serviceAvailable('Redis', REDIS_URL));
const haproxy = haproxyPath() !== undefined;
if (!haproxy) {
  if (REQUIRE_SERVICES) throw new Error('FNAPI_REQUIRE_SERVICES=1 but HAProxy is not installed (apt-get install haproxy)');
  console.warn('!!! SKIPPED: HAProxy is not installed (apt-get install haproxy)');
}

const LIMIT = 20;
const EXTRA = 5;

describe.skipIf(!services || !haproxy)('two instances behind HAProxy', () => {
  let balancer: Balancer;
  let instances: Instance[] = [];
  const env = {
    // Longer than HAProxy's detection (fall 2 × 200 ms, plus a check in flight), with margin for a busy machine.
    SHUTDOWN_DELAY: '2',
    SHUTDOWN_TIMEOUT: '10',
    RATE_LIMIT: String(LIMIT),
    RATE_WINDOW: '60',
    RATE_LIMIT_PREFIX: `fnapi:test:deployment:${randomBytes(6).toString('hex')}:`,
    REDIS_URL,
    DATABASE_URL,
  };

  beforeAll(async () => {
    const ports = [await freePort(), await freePort()];
    instances = await Promise.all(ports.map((port) => startInstance(port, env)));
    balancer = await startBalancer(await freePort(), await freePort(), ports, 0.2);
    for (const port of ports) await balancer.waitFor(port, 'UP');
  }, 60_000);

  afterAll(async () => {
    await balancer?.stop();
    for (const instance of instances) {
      if (instance.child.exitCode === null) {
        instance.child.kill('SIGKILL');
        await instance.exited;
      }
    }
  });

  it('restarts both instances one at a time under load without a failed request', async () => {
    const load = driveLoad(balancer.url, ['/hello/Ada?greeting=Hi', '/users/1/posts/2', '/db/now'], 8);
    const restarted = await rollingRestart(balancer, instances, env);
    instances = restarted.instances;
    const report = await load.stop();
    console.log(
      `rolling restart: ${report.sent} requests sent, ${report.failed} failed, statuses ${JSON.stringify(report.statuses)}, ` +
        `${report.pids.size} instance processes answered`,
    );
    expect(report.failures).toEqual([]);
    expect(report.failed).toBe(0);
    expect(report.sent).toBeGreaterThan(100);
    expect(restarted.exitCodes).toEqual([0, 0]);
    // The two original instances and their two replacements all served.
    expect(report.pids.size).toBe(4);
  }, 120_000);

  it(`holds a rate limit of ${LIMIT} per minute across both instances: ${LIMIT} + ${EXTRA} requests, exactly ${EXTRA} refused`, async () => {
    const { statuses, pids } = await sendEach(balancer.url, '/quota/ping', LIMIT + EXTRA);
    console.log(`rate limit: ${LIMIT + EXTRA} requests sent, ${statuses[200] ?? 0} served, ${statuses[429] ?? 0} refused (429)`);
    expect(statuses).toEqual({ 200: LIMIT, 429: EXTRA });
    // Spread over both instances.
    expect(pids.size).toBe(2);
  }, 60_000);

  it('answers the probes and keeps them out of the document', async () => {
    const { statuses } = await sendEach(balancer.url, '/readyz', 2);
    expect(statuses).toEqual({ 200: 2 });
    const { statuses: doc } = await sendEach(balancer.url, '/openapi.json', 1);
    expect(doc).toEqual({ 200: 1 });
  });
});
