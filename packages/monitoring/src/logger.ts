import { CREDENTIAL_FIELDS, CREDENTIAL_HEADERS } from '@fnapi/core/extend';
import { isSpanContextValid, trace } from '@opentelemetry/api';
import { type DestinationStream, type Logger, type LoggerOptions, pino } from 'pino';

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const key = (name: string) => (IDENTIFIER.test(name) ? `.${name}` : `["${name}"]`);

/**
 * Credential fields redacted by default, wherever a log line carries request headers or bodies: core's
 * one list of credential headers and fields, top level, one object deep and under `headers`.
 */
export const REDACTED_PATHS: string[] = [
  ...[...CREDENTIAL_HEADERS, ...CREDENTIAL_FIELDS].filter((name) => IDENTIFIER.test(name)),
  ...[...CREDENTIAL_HEADERS, ...CREDENTIAL_FIELDS].map((name) => `*${key(name)}`),
  ...CREDENTIAL_HEADERS.map((name) => `*.headers${key(name)}`),
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
  const own = rest.mixin;
  const settings: LoggerOptions = {
    name: 'fnapi',
    level: process.env.FNAPI_LOG_LEVEL ?? 'info',
    ...rest,
    mixin: (base, level, logger) => {
      const extra = own ? own(base, level, logger) : {};
      return withTraceIds(extra);
    },
    redact: { paths: [...REDACTED_PATHS, ...redactPaths], censor: '[REDACTED]' },
  };
  const logger = destination === undefined ? pino(settings) : pino(settings, destination);
  // Its children inherit the mark: `TracingMiddleware` need not bind the ids a second time.
  (logger as unknown as Record<symbol, boolean>)[ADDS_TRACE_IDS] = true;
  return logger;
}

/** Marks a logger whose lines already carry the active span's ids (through `createLogger`'s mixin). */
export const ADDS_TRACE_IDS: unique symbol = Symbol.for('fnapi.addsTraceIds') as never;

/** Adds the active span's `trace_id` and `span_id` (inside a traced request), for joining logs to traces. */
function withTraceIds(fields: object): object {
  const span = trace.getActiveSpan();
  if (span === undefined) return fields;
  const spanContext = span.spanContext();
  if (!isSpanContextValid(spanContext)) return fields;
  const { traceId, spanId, traceFlags } = spanContext;
  return { ...fields, trace_id: traceId, span_id: spanId, trace_flags: traceFlags };
}
