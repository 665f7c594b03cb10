// Writes an HAProxy configuration for instances of the app: round robin, health checks on /readyz.
//
//   pnpm --filter @fnapi/example-deployment haproxy-config -- --port 8080 127.0.0.1:8001 127.0.0.1:8002
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

export interface HaproxyOptions {
  /** Port the balancer listens on. */
  port: number;
  /** `host:port` of each instance. */
  servers: string[];
  /** Milliseconds between readiness checks of each instance; default 500. */
  checkInterval?: number;
  /** Failed checks before an instance leaves the pool; default 2. */
  fall?: number;
  /** Passed checks before it comes back; default 2. */
  rise?: number;
  /** Port of the statistics page (`/stats`), if any. */
  statsPort?: number;
}

/**
 * An instance leaves the pool `fall × checkInterval` after its /readyz turns 503 — which it does at
 * SIGTERM; `shutdownDelay` must be longer than that (plus one interval for a check in flight), so
 * the instance only drains once nothing new reaches it.
 */
export function haproxyConfig(options: HaproxyOptions): string {
  const inter = options.checkInterval ?? 500;
  const fall = options.fall ?? 2;
  const rise = options.rise ?? 2;
  const lines = [
    'global',
    '  maxconn 4096',
    '',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 30s',
    '  timeout server 30s',
    '  timeout http-keep-alive 10s',
    // Without it a check must answer within `inter`: a busy instance would be taken out for being slow.
    '  timeout check 2s',
    // No redispatch to another instance: losing nothing in a restart is shutdownDelay's job, and the
    // deployment test shows it does it (with SHUTDOWN_DELAY=0 requests fail).
    '',
    'frontend web',
    `  bind 127.0.0.1:${options.port}`,
    '  option forwardfor',
    // One id per request, the same in HAProxy's log and the app's (an incoming one is kept).
    '  http-request set-header X-Request-ID %[uuid()] unless { req.hdr(x-request-id) -m found }',
    '  default_backend app',
    '',
    'backend app',
    '  balance roundrobin',
    '  option httpchk GET /readyz',
    '  http-check expect status 200',
    `  default-server check inter ${inter}ms fastinter ${inter}ms downinter ${inter}ms fall ${fall} rise ${rise}`,
    ...options.servers.map((server, i) => `  server app${i + 1} ${server}`),
  ];
  if (options.statsPort !== undefined) {
    lines.push('', 'listen stats', `  bind 127.0.0.1:${options.statsPort}`, '  stats enable', '  stats uri /stats');
  }
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values, positionals } = parseArgs({
    args: process.argv.slice(2).filter((a, i) => !(i === 0 && a === '--')),
    options: { port: { type: 'string', default: '8080' } },
    allowPositionals: true,
  });
  process.stdout.write(
    haproxyConfig({ port: Number(values.port), servers: positionals.length ? positionals : ['127.0.0.1:8001', '127.0.0.1:8002'] }),
  );
}
