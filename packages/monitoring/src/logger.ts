import { type DestinationStream, type Logger, type LoggerOptions, pino } from 'pino';

/** Credential fields redacted by default, wherever a log line carries request headers or bodies. */
export const REDACTED_PATHS = [
  'authorization',
  'cookie',
  'password',
  'token',
  'secret',
  'apiKey',
  'api_key',
  '*.authorization',
  '*.cookie',
  '*.password',
  '*.token',
  '*.secret',
  '*.apiKey',
  '*.api_key',
  '*["x-api-key"]',
  '*["set-cookie"]',
  '*.headers.authorization',
  '*.headers.cookie',
  '*.headers["x-api-key"]',
  '*.headers["set-cookie"]',
];

export interface CreateLoggerOptions extends LoggerOptions {
  /** More paths to redact (pino's `redact` syntax), added to the credential fields. */
  redactPaths?: string[] | undefined;
}

/**
 * The pino logger the other packages accept (`new API({ logger })`, `LoggingMiddleware`, …), at
 * `FNAPI_LOG_LEVEL` (default `info`), with credentials (`authorization`, `cookie`, `x-api-key`,
 * `password`, `token`, `secret`, …, top level or one object deep, and in `headers`) replaced by
 * `[REDACTED]`. `destination` is pino's (default stdout).
 */
export function createLogger(options: CreateLoggerOptions = {}, destination?: DestinationStream): Logger {
  const { redactPaths = [], ...rest } = options;
  const settings: LoggerOptions = {
    name: 'fnapi',
    level: process.env.FNAPI_LOG_LEVEL ?? 'info',
    ...rest,
    redact: { paths: [...REDACTED_PATHS, ...redactPaths], censor: '[REDACTED]' },
  };
  return destination === undefined ? pino(settings) : pino(settings, destination);
}
