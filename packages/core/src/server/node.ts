import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tooLarge } from '../http/body.js';
import { BadRequestError } from '../http/errors.js';
import type { RawHeaders } from '../http/headers.js';
import type { ClientInfo, Request } from '../http/request.js';
import type { Response } from '../http/response.js';
import type { Runtime } from '../serve/runtime-contract.js';
import { afterAnswer, finish } from '../wire/answer.js';
import { type Abandoned, abandon, abandoned } from '../http/deferred.js';
import { drainingReason } from '../http/interrupted.js';
import { type NodeWriteOptions, writeNode } from '../wire/node-writer.js';
import { refuse, splitTarget } from '../wire/refuse.js';
import { type RequestParts, requestFrom } from '../wire/request-from.js';
import type { Serialized } from '../wire/serialize.js';
import { answerClientErrors } from './client-error.js';
import { listen } from './listen.js';
import { nodeUpgrades } from '../ws/node.js';
import { builtin } from '../platform/platform.js';

export interface RunOptions {
  /** Default: the `HOST` environment variable, else `127.0.0.1`; `0.0.0.0` listens on every interface. */
  host?: string;
  /** Default: the `PORT` environment variable, else 8000; 0 picks a free port. */
  port?: number;
  /** Drain and close on SIGTERM/SIGINT, then exit 0; default true. */
  handleSignals?: boolean;
  /**
   * Serve from this many processes (`node:cluster`, one port); `'auto'` is one per available CPU.
   * Default 1 (no cluster).
   */
  workers?: number | 'auto';
}

export interface RunningServer {
  url: string;
  port: number;
  host: string;
  /** The node:http server; undefined in the primary of `workers`, which serves nothing itself. */
  server: Server | undefined;
  /** Stops accepting, lets in-flight requests finish, runs shutdown callbacks. */
  close(): Promise<void>;
}

type BodyDone = (error: unknown, bytes: Uint8Array | undefined) => void;
const BODY_UNREAD = 0;
const BODY_READING = 1;
const BODY_READ = 2;

/**
 * What node:http gives of a request, as `requestFrom` parts: the body is streamed in on first use,
 * with the size limit; headers are built (by node) only if read. Its hooks are methods, so a request
 * costs no closure, and `requestFrom` takes the parts as they are.
 */
class NodeParts implements RequestParts {
  /** Set when the body was refused unread, so the connection must not be reused. */
  bodyRefused = false;
  /** `Expect: 100-continue` and the client not invited to send the body yet. */
  awaitingContinue = false;
  /** The request built from these parts (set by the server). */
  request!: Request;
  /** When serving it began (`performance.now()`), for a drain that abandons it. */
  started = 0;
  /** Its neighbours among the requests being served (`InFlight`). */
  previous: NodeParts | undefined = undefined;
  next: NodeParts | undefined = undefined;
  tracked = false;
  /** The body's reading (`readBody`): not begun, under way, or over with its outcome. */
  private bodyState = BODY_UNREAD;
  private bodyDone: BodyDone | undefined = undefined;
  private bodyBytes: Buffer | undefined = undefined;
  private bodyError: unknown = undefined;
  /** The request target's path and query, set by `splitTarget`. */
  path = '';
  query = '';
  constructor(
    readonly raw: IncomingMessage,
    readonly res: ServerResponse,
    readonly method: string,
    readonly bodyLimit: number,
  ) {}
  // node:http builds `headers` from the raw list on first access; only routes that read them pay.
  get headers(): RawHeaders {
    return this.raw.headers;
  }
  get client(): ClientInfo {
    return { address: this.raw.socket.remoteAddress, port: this.raw.socket.remotePort };
  }
  headerValue(name: string): string | undefined {
    return rawHeaderValue(this.raw.rawHeaders, name);
  }
  body(limit: number): Promise<Uint8Array> {
    return new Promise((resolve, reject) => {
      this.readBody(limit, (error, bytes) => {
        if (bytes === undefined) reject(error);
        else resolve(bytes);
      });
    });
  }
  /**
   * Reads the whole body (one chunk is kept as it is, more are joined) and calls `done` once; a reader
   * that comes while it is read, or after, gets the same outcome. Two listeners, as few as reading a
   * body takes, and they stay on the request once it has closed (nothing more arrives, and it is
   * dropped with its answer): adding and removing them costs more than the answer's serialization.
   */
  readBody(limit: number, done: BodyDone): void {
    const state = this.bodyState;
    if (state === BODY_READ) {
      done(this.bodyError, this.bodyBytes);
      return;
    }
    if (state === BODY_READING) {
      const first = this.bodyDone!;
      this.bodyDone = (error, bytes) => {
        first(error, bytes);
        done(error, bytes);
      };
      return;
    }
    this.bodyState = BODY_READING;
    this.bodyDone = done;
    this.sendContinue();
    const raw = this.raw;
    let first: Buffer | undefined;
    let more: Buffer[] | undefined;
    let size = 0;
    const onData = (chunk: Buffer) => {
      if (this.bodyState === BODY_READ) return;
      size += chunk.length;
      if (size > limit) {
        raw.off('data', onData);
        // The rest is discarded as it arrives; the connection closes after the 413.
        raw.resume();
        this.bodyRefused = true;
        this.bodyRead(tooLarge(limit), undefined);
        return;
      }
      if (first === undefined) first = chunk;
      else if (more === undefined) more = [first, chunk];
      else more.push(chunk);
    };
    // One listener for both outcomes: a request closes after its 'end' (every chunk delivered), or
    // when it is destroyed before it (the client went away, a timeout), node's error in `errored`.
    const onClose = () => {
      if (raw.readableEnded) this.bodyRead(undefined, more !== undefined ? Buffer.concat(more, size) : (first ?? Buffer.alloc(0)));
      else {
        const cause = raw.errored ?? new Error('request aborted');
        this.bodyRead(new BadRequestError('The request body could not be read', undefined, { cause }), undefined);
      }
    };
    raw.on('data', onData);
    raw.on('close', onClose);
  }
  /** The body's reading ended: its outcome is kept, and whoever waits for it is called. */
  private bodyRead(error: unknown, bytes: Buffer | undefined): void {
    if (this.bodyState === BODY_READ) return;
    this.bodyState = BODY_READ;
    this.bodyError = error;
    this.bodyBytes = bytes;
    const done = this.bodyDone!;
    this.bodyDone = undefined;
    done(error, bytes);
  }
  onBodyRefused(): void {
    this.bodyRefused = true;
    // Whatever the client still sends is read and dropped, so the answer can be written.
    if (!this.awaitingContinue) this.raw.resume();
  }
  bodyStream(): AsyncIterable<Uint8Array> {
    this.sendContinue();
    return this.raw;
  }
  onFinished(fn: () => void): boolean {
    if (this.res.closed) queueMicrotask(fn);
    else this.res.once('close', fn);
    return true;
  }
  onDisconnect(abort: (reason: unknown) => void): void {
    const res = this.res;
    if (res.writableFinished) return;
    if (res.destroyed) {
      abort(new Error('client disconnected'));
      return;
    }
    res.once('close', () => {
      if (!res.writableFinished) abort(new Error('client disconnected'));
    });
  }
  /** `Expect: 100-continue`: the client is invited to send the body only when it is read. */
  private sendContinue(): void {
    if (!this.awaitingContinue) return;
    this.awaitingContinue = false;
    this.res.writeContinue();
  }
}

/**
 * The requests being served, linked through their parts: a drain waits for them and names those it
 * abandons. Adding and removing one hashes nothing and allocates nothing (a `Map` keyed by request
 * gives each request an identity hash and grows and shrinks its table as traffic comes and goes).
 */
class InFlight {
  size = 0;
  private first: NodeParts | undefined = undefined;
  add(parts: NodeParts): void {
    const first = this.first;
    parts.next = first;
    if (first !== undefined) first.previous = parts;
    this.first = parts;
    parts.tracked = true;
    this.size++;
  }
  delete(parts: NodeParts): void {
    if (!parts.tracked) return;
    parts.tracked = false;
    const { previous, next } = parts;
    if (previous === undefined) this.first = next;
    else previous.next = next;
    if (next !== undefined) next.previous = previous;
    parts.previous = undefined;
    parts.next = undefined;
    this.size--;
  }
  *[Symbol.iterator](): IterableIterator<NodeParts> {
    for (let parts = this.first; parts !== undefined; parts = parts.next) yield parts;
  }
}

/** One header from node's raw list (repeats joined), without building the whole header object. */
function rawHeaderValue(raw: string[], name: string): string | undefined {
  let value: string | undefined;
  const length = name.length;
  for (let i = 0; i < raw.length; i += 2) {
    const key = raw[i]!;
    if (key.length === length && sameLowerCase(key, name)) value = value === undefined ? raw[i + 1] : `${value}, ${raw[i + 1]}`;
  }
  return value;
}

/**
 * `key.toLowerCase() === name` for a lower-case header `name`, without making a string: setting bit
 * 0x20 folds an ASCII capital onto its letter, and maps only control bytes (never in a header name)
 * onto any other character a name may hold.
 */
function sameLowerCase(key: string, name: string): boolean {
  for (let i = 0; i < name.length; i++) {
    const c = key.charCodeAt(i);
    const n = name.charCodeAt(i);
    if (c !== n && (c | 0x20) !== n) return false;
  }
  return true;
}

function portFromEnvironment(): number {
  const value = process.env.PORT;
  if (value === undefined || value === '') return 8000;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError(`PORT must be a port number, got "${value}"`);
  return port;
}

/**
 * Serves an app with node:http, with the documented timeouts, limits and graceful shutdown. By
 * default it listens, then runs startup (probes answer meanwhile) and resolves once startup has
 * finished; a failure closes the server and rejects; with `startupPerRequest` (TestClient)
 * the first requests run it instead and a failure answers 503, as on every other transport.
 */
export async function runNodeServer(app: Runtime, options: RunOptions, startupPerRequest = false): Promise<RunningServer> {
  const host = options.host ?? (process.env.HOST || '127.0.0.1');
  const port = options.port ?? portFromEnvironment();
  const handleSignals = options.handleSignals ?? true;
  const limits = app.limits;
  const bodyLimit = limits.bodyLimit;
  const context = { debug: app.debug, logger: app.logger };
  const keepOpen: NodeWriteOptions = { logger: context.logger, debug: context.debug };
  const closeAfter: NodeWriteOptions = { logger: context.logger, debug: context.debug, close: true };
  let draining = false;
  const inFlight = new InFlight();
  // Read once: `performance` is a global behind a getter, looked up anew on every read.
  const clock = performance;
  let drained: (() => void) | undefined;
  /** Requests whose answer is being streamed: a drain aborts them so their streams end at once. */
  const streaming = new Set<Request>();

  const finished = (parts: NodeParts) => {
    inFlight.delete(parts);
    if (inFlight.size === 0 && drained) drained();
  };

  const write = (out: Serialized, parts: NodeParts) => {
    // A body never invited (100-continue) or refused part-way may still be on its way: do not reuse the connection.
    const close = parts.bodyRefused || draining || parts.awaitingContinue;
    const streamed = writeNode(parts.res, out, close ? closeAfter : keepOpen);
    const request = parts.request;
    if (streamed === undefined) {
      finished(parts);
      afterAnswer(request);
      return;
    }
    streaming.add(request);
    void streamed.then(() => {
      streaming.delete(request);
      finished(parts);
      afterAnswer(request);
    });
  };

  /** The app's response to a request, written: one function for every request, so none costs a closure. */
  const respond = (response: Response, parts: NodeParts) => write(finish(app, parts.request, response), parts);

  /** An answer given before any request exists (draining, a malformed target): the wire's refusal. */
  const refuseEarly = (res: ServerResponse, error: unknown) => {
    writeNode(res, refuse(error, context), closeAfter);
  };

  const listener = (req: IncomingMessage, res: ServerResponse, expectsContinue = false) => {
    if (draining) {
      refuseEarly(res, drainingReason());
      return;
    }
    const parts = new NodeParts(req, res, req.method ?? 'GET', bodyLimit);
    if (!splitTarget(req.url ?? '/', parts)) {
      refuseEarly(res, new BadRequestError('Malformed request target'));
      return;
    }
    if (expectsContinue) parts.awaitingContinue = true;
    const request = requestFrom(parts);
    parts.request = request;
    parts.started = clock.now();
    inFlight.add(parts);
    app.serve(request, respond, parts);
  };

  // node:http from the built-in registry when a server starts, not imported: a bundler hoists a
  // static import of a built-in to the top of a single-file bundle, so serverless functions that
  // never start a server would load node:http (and net, stream) at start all the same.
  const server = builtin('node:http').createServer(
    {
      headersTimeout: limits.headersTimeout,
      requestTimeout: limits.requestTimeout,
      // node:http looks for timed-out requests this often (30 s by default, which would let a 10 s
      // headersTimeout run to 40 s): a quarter of the shorter timeout, within 250 ms–30 s.
      connectionsCheckingInterval: Math.max(250, Math.min(30_000, Math.floor(Math.min(limits.headersTimeout, limits.requestTimeout) / 4))),
      keepAliveTimeout: limits.keepAliveTimeout,
      maxHeaderSize: 16 * 1024,
    },
    listener,
  );
  server.keepAliveTimeout = limits.keepAliveTimeout;
  answerClientErrors(server, context);
  // `Expect: 100-continue`: the request goes through the pipeline like any other (plugins, middleware,
  // guards: CORS headers, metrics, logs, 401 first), and `100 Continue` is sent only when the endpoint
  // reads the body; a declared body over the endpoint's limit (`bodyLimit`, or `uploadLimit` for forms)
  // is refused with 413 without the client ever being asked for it.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    listener(req, res, true);
  });
  // WebSocket endpoints: upgrade requests run the same pipeline, then `ws` completes the handshake.
  const upgrades = app.hasWebSockets ? nodeUpgrades(app, () => draining) : undefined;
  if (upgrades !== undefined) server.on('upgrade', upgrades.listener);

  app.emit('server_starting', {});
  await listen(server, port, host);
  const address = server.address() as AddressInfo;
  const boundHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${boundHost === '0.0.0.0' ? '127.0.0.1' : boundHost === '[::]' ? '[::1]' : boundHost}:${address.port}`;
  app.logger.info({ address: address.address, port: address.port, url }, `fnapi listening on ${boundHost}:${address.port} (${url})`);
  if (!startupPerRequest) {
    // Listening while startup runs, so probes answer at once (`/readyz`: 503 starting); other
    // requests wait for the same startup. A failed startup closes the server and rejects.
    try {
      await app.startup();
    } catch (error) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      throw error;
    }
  }
  app.emit('server_started', { url });

  let closing: Promise<void> | undefined;
  const shutdown = (exit: boolean, delay = 0): Promise<void> => {
    closing ??= (async () => {
      app.serving.to('stopping');
      // shutdownDelay: readiness already fails, but serving goes on until the balancer has noticed.
      if (delay > 0) await new Promise<void>((resolve) => setTimeout(resolve, delay));
      app.emit('server_stopping', {});
      draining = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      for (const request of streaming) request.abort(drainingReason());
      // One time limit for the whole drain: requests, sockets, then the deferred work (app.shutdown).
      const deadline = performance.now() + limits.shutdownTimeout;
      const socketsClosed = upgrades?.drain(limits.shutdownTimeout);
      if (inFlight.size > 0) {
        const timeout = limits.shutdownTimeout;
        await new Promise<void>((resolve) => {
          drained = resolve;
          setTimeout(resolve, timeout).unref();
        });
      }
      // Never dropped silently: what the time limit ended while it still ran is named in the drain's
      // one warning line, with the deferred work `app.shutdown()` finds still running.
      const left: Abandoned[] = [];
      for (const parts of inFlight) left.push(abandoned('request', parts.request, parts.started));
      left.push(...((await socketsClosed) ?? []));
      abandon(app, left);
      server.closeAllConnections();
      await closed;
      await app.shutdown(deadline);
      // Exiting: keep the handlers until then, so a second SIGINT (a terminal's Ctrl-C also reaches the
      // process through pnpm, which forwards it) cannot kill the process by the default action.
      if (!exit) removeSignals();
      app.emit('server_stopped', {});
      app.logger.info('fnapi stopped');
      if (exit) process.exit(0);
    })();
    return closing;
  };

  const onSignal = (signal: NodeJS.Signals) => {
    const delay = app.limits.shutdownDelay;
    app.logger.info(
      { signal, shutdownDelay: delay / 1000 },
      delay > 0
        ? `shutting down: serving ${delay / 1000} s more while not ready, then draining`
        : 'shutting down: draining in-flight requests',
    );
    void shutdown(true, delay);
  };
  const removeSignals = () => {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  };
  if (handleSignals) {
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  }

  return { url, port: address.port, host, server, close: () => shutdown(false) };
}
