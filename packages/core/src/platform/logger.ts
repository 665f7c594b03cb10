import type * as Pino from 'pino';
// pino where the runtime has its Node streams (Node, Bun, Deno); elsewhere (workerd) the same JSON
// lines through `console`: chosen by the package's `imports` conditions, so a Worker's bundle never
// contains pino's Node transport.
import { createDefaultLogger, createSilentLogger } from '#fnapi/logger-backend';

export type Logger = Pino.Logger;

/** The logger core uses when none is given: JSON lines to stdout at `FNAPI_LOG_LEVEL` (default `info`). */
export function defaultLogger(): Logger {
  return createDefaultLogger();
}

export function silentLogger(): Logger {
  return createSilentLogger();
}

/** Milliseconds to three decimals: the `duration` of log lines and timing headers. */
export function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
