import type * as Pino from 'pino';
import { builtin, envVar } from './platform.js';

let pinoModule: typeof Pino | undefined;

/**
 * pino, loaded when the first logger is made rather than with core: an app that never logs (a
 * Lambda answering its events, a test with `logger: false`) never loads it. Synchronous, so making a
 * logger stays synchronous; `require` is the bundler's (which then inlines pino) or, unbundled, one
 * made for this module.
 */
function pino(): typeof Pino.pino {
  pinoModule ??= (
    typeof require === 'function' ? require('pino') : builtin('node:module').createRequire(import.meta.url)('pino')
  ) as typeof Pino;
  return pinoModule.pino;
}

/**
 * The logger core uses when none is given: pino to stdout at `FNAPI_LOG_LEVEL` (default `info`).
 * Written synchronously: core logs only lifecycle lines and errors, never once per request, and an
 * asynchronous stdout writes the lines still queued at `process.exit` ahead of one being written
 * (a stopping server's "fnapi stopped" before its "shutting down").
 */
export function createDefaultLogger(): Pino.Logger {
  const create = pino();
  return create({ name: 'fnapi', level: envVar('FNAPI_LOG_LEVEL') ?? 'info' }, create.destination({ dest: 1, sync: true }));
}

export function createSilentLogger(): Pino.Logger {
  return pino()({ enabled: false });
}
