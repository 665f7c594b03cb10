// `fnapi deploy haproxy`: the balancer configuration for several instances of an app.

import { type Duration, durationMs, HOUR } from '@fnapi/core/extend';

export interface HaproxyOptions {
  /** Port the balancer listens on; default 8080. */
  port?: number | undefined;
  /** Address the balancer binds; default 127.0.0.1 (`0.0.0.0` to face the network). */
  bind?: string | undefined;
  /** `host:port` of each instance; default 127.0.0.1:8001 and 127.0.0.1:8002. */
  servers?: string[] | undefined;
  /** The readiness path each instance serves (`healthEndpoints`); default `/readyz`. */
  health?: string | undefined;
  /** Seconds (or `'500ms'`) between readiness checks of each instance; default 0.5. */
  checkInterval?: Duration;
  /** Failed checks before an instance leaves the pool; default 2. */
  fall?: number;
  /** Passed checks before it comes back; default 2. */
  rise?: number;
  /** Port of the statistics page (`/stats`), if any. */
  statsPort?: number;
  /**
   * The apps' WebSocket `heartbeat` (seconds, or `'30s'`); default 30, fnapi's. `timeout client` and
   * `timeout server` are twice it, so a connection idle between two pings is never cut.
   */
  heartbeat?: Duration;
  /**
   * How long an upgraded connection (a WebSocket) may stay idle before HAProxy closes it: its `timeout
   * tunnel` (seconds, or `'1h'`); default an hour. Pings keep a live one well within it.
   */
  tunnelTimeout?: Duration;
}

/**
 * An HAProxy configuration for instances of an app: round robin, a readiness check every
 * `checkInterval`, `option forwardfor`, an `X-Request-ID` where none came in.
 *
 * An instance leaves the pool `fall × checkInterval` after its /readyz turns 503 — which it does at
 * SIGTERM; `shutdownDelay` must be longer than that (plus one interval for a check in flight), so
 * the instance only drains once nothing new reaches it.
 */
export function haproxyConfig(options: HaproxyOptions = {}): string {
  const inter = durationMs('checkInterval', options.checkInterval ?? 0.5, { maxNumber: HOUR, zero: false });
  const fall = options.fall ?? 2;
  const rise = options.rise ?? 2;
  const port = options.port ?? 8080;
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`the balancer's port must be 1–65535, not ${port}`);
  const servers = options.servers ?? ['127.0.0.1:8001', '127.0.0.1:8002'];
  for (const server of servers) {
    if (!/^[^\s:]+:[0-9]{1,5}$/.test(server) && !/^\[[0-9a-fA-F:.]+\]:[0-9]{1,5}$/.test(server))
      throw new Error(`a server is host:port, not "${server}"`);
  }
  // Twice the heartbeat: an idle WebSocket (before its upgrade is seen) or an event stream between two
  // pings (every 15 s) never meets HAProxy's timeout, with a whole heartbeat of margin.
  const idle = 2 * durationMs('heartbeat', options.heartbeat ?? 30, { maxNumber: HOUR, zero: false });
  const tunnel = durationMs('tunnelTimeout', options.tunnelTimeout ?? '1h', { maxNumber: HOUR, zero: false });
  const health = options.health ?? '/readyz';
  if (!/^\/[^\s]*$/.test(health)) throw new Error(`the health path starts with / and has no spaces, not "${health}"`);
  const lines = [
    'global',
    '  maxconn 4096',
    '',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    `  timeout client ${haproxyTime(idle)}`,
    `  timeout server ${haproxyTime(idle)}`,
    // Once a connection is upgraded (WebSockets), this replaces client and server: long-lived on purpose.
    `  timeout tunnel ${haproxyTime(tunnel)}`,
    '  timeout http-keep-alive 10s',
    // Without it a check must answer within `inter`: a busy instance would be taken out for being slow.
    '  timeout check 2s',
    // No redispatch to another instance: losing nothing in a restart is shutdownDelay's job, and the
    // deployment test shows it does it (with SHUTDOWN_DELAY=0 requests fail).
    '',
    'frontend web',
    `  bind ${options.bind ?? '127.0.0.1'}:${port}`,
    '  option forwardfor',
    // One id per request, the same in HAProxy's log and the app's (an incoming one is kept).
    '  http-request set-header X-Request-ID %[uuid()] unless { req.hdr(x-request-id) -m found }',
    '  default_backend app',
    '',
    'backend app',
    '  balance roundrobin',
    `  option httpchk GET ${health}`,
    '  http-check expect status 200',
    `  default-server check inter ${inter}ms fastinter ${inter}ms downinter ${inter}ms fall ${fall} rise ${rise}`,
    ...servers.map((server, i) => `  server app${i + 1} ${server}`),
  ];
  if (options.statsPort !== undefined) {
    lines.push('', 'listen stats', `  bind 127.0.0.1:${options.statsPort}`, '  stats enable', '  stats uri /stats');
  }
  return `${lines.join('\n')}\n`;
}

/** A time as HAProxy reads it: whole seconds, minutes or hours where exact, else milliseconds. */
function haproxyTime(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0 && ms >= 600_000) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}
