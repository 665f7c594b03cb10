import type { API, Request, Response } from '@fnapi/core';
import { isCredentialHeader, isCredentialQueryParam, isTextContentType, type PluginMetadata, roundMs } from '@fnapi/core/extend';
import { pino, type DestinationStream, type Level, type Logger } from 'pino';
import { Plugin } from './plugin.js';

export interface LoggingPluginOptions {
  /** Adds the request body (as text) to each request line. Default false. */
  logRequestBody?: boolean | undefined;
  /** Adds the response body (as text) to each response line. Default false. */
  logResponseBody?: boolean | undefined;
  /**
   * Least severe level written: `TRACE`, `DEBUG`, `INFO`, `WARNING` (or `WARN`), `ERROR`,
   * `CRITICAL` (or `FATAL`), any case. Default `INFO`.
   */
  logLevel?: string | undefined;
  /**
   * `'json'` (default): one JSON object per line. Anything else is a text template whose `{field}`
   * placeholders (or Python-style `%(field)s`) are filled from the line, e.g.
   * `'{time} {level} {method} {path} {status} {duration}ms'`; `'text'` is that template.
   */
  logFormat?: string | undefined;
  /** Writes to stdout. Default true. */
  logToConsole?: boolean | undefined;
  /** Writes to `logFile`. Default true when `logFile` is given, else false. */
  logToFile?: boolean | undefined;
  /** File to append to (created with its directory if missing). Default `fnapi.log` when `logToFile`. */
  logFile?: string | undefined;
  /** Another destination to write to (anything with `write(line)`), e.g. for tests. */
  stream?: DestinationStream | undefined;
  /** Bodies longer than this many characters are cut. Default 10 000. */
  maxBodyLength?: number | undefined;
  /** More header names whose values are replaced by `[REDACTED]`. */
  redactHeaders?: readonly string[] | undefined;
  /** More query parameter names whose values are replaced by `[REDACTED]`. */
  redactQueryParams?: readonly string[] | undefined;
}

export const DEFAULT_TEXT_FORMAT = '{time} {level} {method} {path} {status} {duration}ms';
const REDACTED = '[REDACTED]';

const LEVELS: Record<string, Level> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  WARNING: 'warn',
  ERROR: 'error',
  CRITICAL: 'fatal',
  FATAL: 'fatal',
};

/** Python logging attribute names a template may use, mapped to this plugin's fields. */
const ALIASES: Record<string, string> = { asctime: 'time', levelname: 'level', message: 'msg', name: 'name' };

/**
 * Logs every request and response through pino, to stdout and/or a file: a `request` line when a
 * request arrives and a `response` line (with `status`, `route` and `duration` in ms) once the
 * response is final. Credentials in headers are replaced by `[REDACTED]`. Response lines of 4xx are
 * written at `warn`, of 5xx at `error`, everything else at `info`.
 */
export class LoggingPlugin extends Plugin {
  readonly options: Readonly<LoggingPluginOptions>;
  readonly level: Level;
  readonly format: 'json' | { template: string };
  /** The logger request and response lines go to. */
  readonly requestLogger: Logger;
  private readonly redacted: ReadonlySet<string>;
  private readonly redactedQuery: ReadonlySet<string>;
  private readonly maxBodyLength: number;
  private readonly destinations: DestinationStream[];

  constructor(options: LoggingPluginOptions = {}) {
    super();
    this.options = { ...options };
    const level = LEVELS[(options.logLevel ?? 'INFO').toUpperCase()];
    if (level === undefined) {
      throw new TypeError(`LoggingPlugin: unknown logLevel "${options.logLevel}"; use one of ${Object.keys(LEVELS).join(', ')}`);
    }
    this.level = level;
    const format = options.logFormat ?? 'json';
    this.format = format.toLowerCase() === 'json' ? 'json' : { template: format.toLowerCase() === 'text' ? DEFAULT_TEXT_FORMAT : format };
    // Beside these, core's lists of credential headers and parameters, read per request: an auth
    // function's `header` or `queryParam` made after this plugin is redacted too.
    this.redacted = new Set((options.redactHeaders ?? []).map((h) => h.toLowerCase()));
    this.redactedQuery = new Set((options.redactQueryParams ?? []).map((q) => q.toLowerCase()));
    this.maxBodyLength = options.maxBodyLength ?? 10_000;

    this.destinations = [];
    if (options.logToConsole ?? true) this.destinations.push(pino.destination({ dest: 1, sync: true }));
    if (options.logToFile ?? options.logFile !== undefined) {
      this.destinations.push(pino.destination({ dest: options.logFile ?? 'fnapi.log', mkdir: true, append: true, sync: true }));
    }
    if (options.stream) this.destinations.push(options.stream);

    this.requestLogger =
      this.destinations.length === 0
        ? pino({ enabled: false })
        : pino(
            {
              name: 'fnapi',
              level,
              timestamp: pino.stdTimeFunctions.isoTime,
              formatters: { level: (label) => ({ level: label }) },
            },
            fanOut(this.destinations, this.format === 'json' ? undefined : this.format.template),
          );

    this.registerHook('response_sent', (payload) => this.logResponse(payload));
  }

  getMetadata(): PluginMetadata {
    return { name: 'logging', version: '0.1.0', description: 'Logs requests and responses through pino' };
  }

  override initialize(api: API): void {
    super.initialize(api);
    api.onShutdown(() => this.flush());
  }

  /** Logs the request as it arrives (its body too, when asked). */
  async preRequest(request: Request): Promise<void> {
    const logger = this.requestLogger;
    if (!logger.isLevelEnabled('info')) return;
    const line: Record<string, unknown> = {
      event: 'request',
      method: request.method,
      path: request.path,
    };
    const query = this.redactQuery(request.queryParams);
    if (query) line.query = query;
    line.headers = this.redactRequestHeaders(request);
    if (request.client.address !== undefined) line.client = request.client.address;
    if (this.options.logRequestBody && request.hasBody) {
      try {
        line.body = this.cut(await request.text());
      } catch (error) {
        line.body = `[unreadable: ${error instanceof Error ? error.message : String(error)}]`;
      }
    }
    logger.info(line, 'request');
  }

  /** Writes anything still buffered; file destinations are written synchronously, so this is cheap. */
  flush(): void {
    for (const destination of this.destinations) {
      const flushable = destination as { flushSync?: () => void };
      try {
        flushable.flushSync?.();
      } catch {
        // nothing buffered, or already closed
      }
    }
  }

  private logResponse(payload: Record<string, unknown>): void {
    const request = payload.request as Request;
    const response = payload.response as Response;
    const status = response.statusCode;
    const level: Level = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
    const logger = this.requestLogger;
    if (!logger.isLevelEnabled(level)) return;
    const line: Record<string, unknown> = {
      event: 'response',
      method: request.method,
      path: request.path,
      route: request.route,
      status,
      duration: roundMs(payload.duration as number),
      headers: this.redactResponseHeaders(response),
    };
    if (this.options.logResponseBody) line.body = this.responseBody(response);
    logger[level](line, 'response');
  }

  private redactQuery(params: URLSearchParams): string {
    const shown = new URLSearchParams();
    for (const [name, value] of params) {
      shown.append(name, this.redactedQuery.has(name.toLowerCase()) || isCredentialQueryParam(name) ? REDACTED : value);
    }
    return shown.toString();
  }

  private redactsHeader(name: string): boolean {
    return this.redacted.has(name) || isCredentialHeader(name);
  }

  private redactRequestHeaders(request: Request): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of request.headers) {
      const key = name.toLowerCase();
      const shown = this.redactsHeader(key) ? REDACTED : value;
      out[key] = out[key] === undefined ? shown : `${out[key]}, ${shown}`;
    }
    return out;
  }

  private redactResponseHeaders(response: Response): Record<string, string | string[]> {
    const headers = response.headersIfAny;
    if (headers === undefined) return {};
    const out: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(headers.toJSON())) {
      out[name] = this.redactsHeader(name) ? (Array.isArray(value) ? value.map(() => REDACTED) : REDACTED) : value;
    }
    return out;
  }

  private responseBody(response: Response): string | undefined {
    if (response.stream() !== undefined) return '[stream]';
    let rendered: string | Uint8Array | null;
    try {
      rendered = response.render();
    } catch (error) {
      return `[unrenderable: ${error instanceof Error ? error.message : String(error)}]`;
    }
    if (rendered === null) return undefined;
    if (typeof rendered === 'string') return this.cut(rendered);
    const type = response.headers.get('content-type') ?? response.contentType() ?? '';
    if (isTextContentType(type)) return this.cut(Buffer.from(rendered).toString('utf8'));
    return `[${rendered.byteLength} bytes]`;
  }

  private cut(text: string): string {
    return text.length > this.maxBodyLength ? `${text.slice(0, this.maxBodyLength)}…[truncated]` : text;
  }
}

/** A pino destination that writes each line to every target, as JSON or through a text template. */
function fanOut(targets: DestinationStream[], template: string | undefined): DestinationStream {
  if (template === undefined && targets.length === 1) return targets[0]!;
  return {
    write(line: string) {
      const out = template === undefined ? line : `${renderTemplate(template, JSON.parse(line) as Record<string, unknown>)}\n`;
      for (const target of targets) target.write(out);
    },
  };
}

/** Fills `{field}`, `{a.b}` and `%(field)s` placeholders from a log line; absent fields become `-`. */
export function renderTemplate(template: string, line: Record<string, unknown>): string {
  const lookup = (name: string): string => {
    const path = (ALIASES[name] ?? name).split('.');
    let value: unknown = line;
    for (const part of path) {
      if (value === null || typeof value !== 'object') {
        value = undefined;
        break;
      }
      value = (value as Record<string, unknown>)[part];
    }
    if (value === undefined || value === null) return '-';
    if (path[0] === 'level' && typeof value === 'string') return value.toUpperCase();
    return typeof value === 'object' ? JSON.stringify(value) : String(value);
  };
  return template
    .replace(/%\(([\w.-]+)\)[-#0 +]*\d*(?:\.\d+)?[sdfr]/g, (_, name: string) => lookup(name))
    .replace(/\{([\w.-]+)\}/g, (_, name: string) => lookup(name));
}
