import { type BodyChunk, type CallNext, FileResponse, type Logger, type Request, type Response, StreamingResponse } from '@fnapi/core';
import { defaultLogger, roundMs, statusOf, webSocketEnded } from '@fnapi/core/extend';
import type { Level } from 'pino';
import { Middleware } from './base.js';
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
 * and `route` the matched template (`/users/{user_id}`), absent when no route matched. A streamed
 * answer (event stream, JSON Lines, `StreamingResponse`) is logged when its stream ends, with the
 * whole `duration` and the body's `size` in bytes (and `err` if it failed). A request whose
 * exception passes through is logged with the status it will get and `err`, then re-thrown.
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
      // A file answered by a middleware inside this one is settled first (its 304, 206, 404 or 416),
      // as the runtime would, so the line has its real status and the file keeps its framing.
      if (response instanceof FileResponse && !response.prepared) response = await response.prepare(request);
    } catch (error) {
      this.write(request, statusOf(error), started, error);
      throw error;
    }
    // A WebSocket's line is written when the connection ends, with its whole duration.
    const ended = webSocketEnded(response);
    if (ended !== undefined) {
      void ended.then((end) => this.write(request, 101, started, undefined, { items: end.sent, bytes: end.bytes, code: end.code }));
      return response;
    }
    const stream = response.stream();
    if (stream === undefined || !this.logger.isLevelEnabled(this.level)) {
      this.write(request, response.statusCode, started);
      return response;
    }
    const status = response.statusCode;
    const counted = new CountedStream((stream as AsyncIterable<BodyChunk>)[Symbol.asyncIterator](), (size, error) =>
      this.write(request, status, started, error, undefined, size),
    );
    // Observing never changes framing: the body's length, known in advance (a file, a sized stream), is
    // still sent as `Content-Length`.
    return new ObservedResponse(counted, response.streamLength(), {
      statusCode: status,
      headers: response.headersIfAny ?? {},
      mediaType: response.contentType(),
    });
  }

  private write(request: Request, status: number, started: number, error?: unknown, extra?: Record<string, unknown>, size?: number): void {
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
    if (size !== undefined) line.size = size;
    if (error !== undefined) line.err = error;
    if (extra !== undefined) Object.assign(line, extra);
    logger[this.level](line, extra === undefined ? 'request completed' : 'websocket closed');
  }
}

/** A response's body stream as it was, with the length it announced. */
class ObservedResponse extends StreamingResponse {
  constructor(
    source: AsyncIterable<BodyChunk>,
    private readonly length: number | undefined,
    options: ConstructorParameters<typeof StreamingResponse>[1],
  ) {
    super(source, options);
  }

  override streamLength(): number | undefined {
    return this.length;
  }
}

/** A body stream passed through as it is, counting its bytes; `end` is called once, when it ends. */
class CountedStream implements AsyncIterableIterator<BodyChunk> {
  private size = 0;
  private ended = false;

  constructor(
    private readonly inner: AsyncIterator<BodyChunk>,
    private readonly end: (size: number, error?: unknown) => void,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<BodyChunk>> {
    let result: IteratorResult<BodyChunk>;
    try {
      result = await this.inner.next();
    } catch (error) {
      this.finish(error);
      throw error;
    }
    if (result.done) this.finish();
    else this.size += typeof result.value === 'string' ? Buffer.byteLength(result.value) : result.value.byteLength;
    return result;
  }

  /** The writer stopped reading (the client went away, the server drains). */
  async return(): Promise<IteratorResult<BodyChunk>> {
    this.finish();
    await this.inner.return?.();
    return { done: true, value: undefined };
  }

  private finish(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.end(this.size, error);
  }
}
