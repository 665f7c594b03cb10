import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * The logger core uses when none is given: pino to stdout at `FNAPI_LOG_LEVEL` (default `info`).
 * Written synchronously: core logs only lifecycle lines and errors, never once per request, and an
 * asynchronous stdout writes the lines still queued at `process.exit` ahead of one being written
 * (a stopping server's "fnapi stopped" before its "shutting down").
 */
export function defaultLogger(): Logger {
  return pino({ name: 'fnapi', level: process.env.FNAPI_LOG_LEVEL ?? 'info' }, pino.destination({ dest: 1, sync: true }));
}

export function silentLogger(): Logger {
  return pino({ enabled: false });
}
