import { pino, type Logger } from 'pino';

export type { Logger };

/** The logger core uses when none is given: pino to stdout at `FNAPI_LOG_LEVEL` (default `info`). */
export function defaultLogger(): Logger {
  return pino({ name: 'fnapi', level: process.env.FNAPI_LOG_LEVEL ?? 'info' });
}

export function silentLogger(): Logger {
  return pino({ enabled: false });
}
