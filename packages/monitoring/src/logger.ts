import { CREDENTIAL_FIELDS, CREDENTIAL_HEADERS, isCredentialHeader } from '@fnapi/core/extend';
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
 * `[REDACTED]`, and so are headers an auth function marks (`apiKeyRequired({ header })`), whenever it
 * is made. `destination` is pino's (default stdout).
 */
export function createLogger(options: CreateLoggerOptions = {}, destination?: DestinationStream): Logger {
  const { redactPaths = [], ...rest } = options;
  const own = rest.mixin;
  const log = rest.formatters?.log;
  const serializers = rest.serializers === undefined ? undefined : { ...rest.serializers };
  // A serializer's output (`req` → `{ headers }`) is written after `formatters.log` has run.
  for (const [field, serialize] of Object.entries(serializers ?? {})) {
    serializers![field] = (value: unknown) => withoutMarkedHeaders(serialize(value), 1);
  }
  const settings: LoggerOptions = {
    name: 'fnapi',
    level: process.env.FNAPI_LOG_LEVEL ?? 'info',
    ...rest,
    mixin: (base, level, logger) => {
      const extra = own ? own(base, level, logger) : {};
      return withTraceIds(extra);
    },
    formatters: {
      ...rest.formatters,
      log: (fields) => withoutMarkedHeaders(log ? log(fields) : fields, 0),
    },
    ...(serializers === undefined ? {} : { serializers }),
    redact: { paths: [...REDACTED_PATHS, ...redactPaths], censor: '[REDACTED]' },
  };
  const logger = destination === undefined ? pino(settings) : pino(settings, destination);
  // Its children inherit the mark: `TracingMiddleware` need not bind the ids a second time.
  (logger as unknown as Record<symbol, boolean>)[ADDS_TRACE_IDS] = true;
  return logger;
}

/**
 * The same places `REDACTED_PATHS` covers (top level, one object deep, and under `headers` one object
 * deep), for headers core's list did not have when the paths were fixed: asked per line through
 * `isCredentialHeader`, so a header an auth function marks after the logger was made is redacted too.
 * Copies only what it changes; `depth` is how deep `value` already sits in the line.
 */
function withoutMarkedHeaders<T>(value: T, depth: number): T {
  if (!isPlainObject(value)) return value;
  let out: Record<string, unknown> | undefined;
  for (const [name, field] of Object.entries(value)) {
    let shown = field;
    if (field !== undefined && isCredentialHeader(name)) shown = '[REDACTED]';
    else if (depth === 0 || (depth === 1 && name === 'headers')) shown = withoutMarkedHeaders(field, depth + 1);
    if (shown === field) continue;
    out ??= { ...value };
    out[name] = shown;
  }
  return (out ?? value) as T;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
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
