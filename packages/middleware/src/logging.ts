import { defaultLogger, HTTPError, type CallNext, type Logger, type Request, type Response, webSocketEnded } from '@fnapi/core';
import type { Level } from 'pino';
import { Middleware } from './base.js';
import { roundMs } from './duration.js';
import { isUnobserved } from './unobserved.js';

export interface LoggingMiddlewareOptions {
  /** The pino logger to write to; default core's logger (stdout, `FNAPI_LOG_LEVEL`). */
  logger?: Logger | undefined;
  /** Level of the per-request line; default `info`. */
  level?: Level | undefined;
}

/**
 * One structured line per request, written when the response is known:
 * `{ method, path, route, status, duration, reqId, msg: 'request completed' }`, `duration` in milliseconds
 * and `route` the matched template (`/users/{user_id}`), absent when no route matched. A request
 * whose exception passes through is logged with the status it will get and `err`, then re-thrown.
 */
export class LoggingMiddleware extends Middleware {
  readonly logger: Logger;
  readonly level: Level;

  constructor(options: LoggingMiddlewareOptions = {}) {
    super();
    this.logger = options.logger ?? defaultLogger();
    this.level = options.level ?? 'info';
  }

  async dispatch(request: Request, callNext: CallNext): Promise<Response> {
    const started = performance.now();
    let response: Response;
    try {
      response = await callNext(request);
    } catch (error) {
      const status = error instanceof HTTPError ? error.statusCode : 500;
      this.write(request, status, started, error);
      throw error;
    }
    // A WebSocket's line is written when the connection ends, with its whole duration.
    const ended = webSocketEnded(response);
    if (ended !== undefined) {
      void ended.then((end) => this.write(request, 101, started, undefined, { items: end.sent, bytes: end.bytes, code: end.code }));
      return response;
    }
    this.write(request, response.statusCode, started);
    return response;
  }

  private write(request: Request, status: number, started: number, error?: unknown, extra?: Record<string, unknown>): void {
    const logger = this.logger;
    if (!logger.isLevelEnabled(this.level) || isUnobserved(request)) return;
    const line: Record<string, unknown> = {
      method: request.method,
      path: request.path,
      route: request.route,
      status,
      duration: roundMs(performance.now() - started),
      reqId: request.id,
    };
    if (error !== undefined) line.err = error;
    if (extra !== undefined) Object.assign(line, extra);
    logger[this.level](line, extra === undefined ? 'request completed' : 'websocket closed');
  }
}
