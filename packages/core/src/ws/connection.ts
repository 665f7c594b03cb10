import { firstReport } from '../http/errors.js';
import type { Logger } from '../platform/logger.js';
import { closeReason, type MessageValidator } from './messages.js';

/**
 * What a transport gives of an accepted WebSocket: the `ws` library's socket under `app.run`, Bun's
 * `ServerWebSocket`, a Web `WebSocket` on Deno and Workers. Everything else is the connection's.
 */
export interface WireSocket {
  /** Sends one frame; returns its size in bytes (for the connection's counts). */
  send(data: string | Uint8Array): number;
  /** Bytes sent but not yet handed to the network. */
  bufferedAmount(): number;
  /** Calls `fn` once what is buffered has been handed to the network (or the socket closed). */
  onDrain(fn: () => void): void;
  /** Starts the closing handshake. */
  close(code: number, reason: string): void;
  /** Drops the connection without a handshake (a peer that stopped answering pings). */
  terminate(): void;
  /** Sends a ping, where the transport can (the server's heartbeat). */
  ping?(): void;
  /** True when the transport itself refuses frames over the endpoint's `maxPayload` (with 1009). */
  readonly limitsPayload?: boolean;
  /** Stops reading from the network while the handler has unread messages, where the transport can. */
  pause?(): void;
  resume?(): void;
}

/** How a connection ended: the close code and reason. */
export interface CloseInfo {
  code: number;
  reason: string;
}

/** A message a handler tried to send that does not fit the endpoint's `send` schema: a server bug. */
export class MessageValidationError extends Error {
  constructor(message: string) {
    super(`A WebSocket message does not match the endpoint's send schema: ${message}`);
    this.name = 'MessageValidationError';
  }
}

/** An endpoint's message settings, shared by its connections. */
export interface ConnectionSettings {
  receive: MessageValidator | undefined;
  send: MessageValidator | undefined;
  maxPayload: number;
}

let counter = 0;
function connectionId(): string {
  return globalThis.crypto?.randomUUID?.() ?? `ws-${Date.now().toString(36)}-${(counter++).toString(36)}`;
}

/** Bytes handed to a connection and not yet to the network, past which `send` waits. */
export const HIGH_WATER_MARK = 64 * 1024;
/** Client messages held unread before the connection stops reading from the network. */
const QUEUE_LIMIT = 64;

const decoder = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();
const DONE: IteratorResult<never> = { done: true, value: undefined };
const RESOLVED: Promise<void> = Promise.resolve();

type State = 'open' | 'closing' | 'closed';

/**
 * `{ done: false, value }` as V8's own iterator result: resolving a promise with one skips the lookup
 * of `then` that an object literal costs (optimized code makes it without the array or the iterator).
 */
function nextResult<T>(value: T): IteratorResult<T> {
  return [value].values().next();
}

/**
 * The socket a WebSocket handler receives: an async iterable of the client's messages (parsed and
 * validated by `receive`), `send` with back-pressure (validated by `send`), `forward`, `close`,
 * `closed`, `signal` and `id`.
 */
export class WebSocketConnection<In = unknown, Out = unknown> implements AsyncIterable<In> {
  /** Messages sent and received, and bytes sent, for the connection's log line. */
  readonly counts = { sent: 0, received: 0, bytesSent: 0 };
  /** Set by the heartbeat: false after a ping until the pong comes. */
  alive = true;
  /** Called once when the connection has ended (the host's bookkeeping). */
  onEnded: ((info: CloseInfo) => void) | undefined = undefined;
  /** The subprotocol chosen at the handshake (the endpoint's `protocols`); `''` when none. */
  protocol = '';
  private state: State = 'open';
  // Made on first use: an echo handler never asks for a signal or the `closed` promise.
  private abortController: AbortController | undefined = undefined;
  private closedPromise: Promise<CloseInfo> | undefined = undefined;
  private resolveClosed: ((info: CloseInfo) => void) | undefined = undefined;
  private readonly settings: ConnectionSettings;
  private wire: WireSocket;
  private queue: In[] | undefined = undefined;
  private reader: ((result: IteratorResult<In>) => void) | undefined = undefined;
  private paused = false;
  private drainWaiters: (() => void)[] | undefined = undefined;
  private closeInfo: CloseInfo | undefined = undefined;

  private connectionId: string | undefined = undefined;
  /** Where errors are logged: the upgrade request's logger (with its id), made when a line is written. */
  private readonly logs: { readonly logger: Logger };

  constructor(wire: WireSocket, settings: ConnectionSettings, logs: { readonly logger: Logger }) {
    this.wire = wire;
    this.settings = settings;
    this.logs = logs;
  }

  /** A unique id of this connection (made on first use). */
  get id(): string {
    return (this.connectionId ??= connectionId());
  }

  /** Resolves with the close code and reason once the connection has closed, whoever closed it. */
  get closed(): Promise<CloseInfo> {
    if (this.closedPromise === undefined) {
      const info = this.closeInfo;
      this.closedPromise =
        info !== undefined
          ? Promise.resolve(info)
          : new Promise((resolve) => {
              this.resolveClosed = resolve;
            });
    }
    return this.closedPromise;
  }

  /** Aborted when the connection closes (or starts closing). */
  get signal(): AbortSignal {
    if (this.abortController === undefined) {
      this.abortController = new AbortController();
      if (this.state !== 'open') this.abortController.abort(new Error('WebSocket closed'));
    }
    return this.abortController.signal;
  }

  private abort(reason: string): void {
    const controller = this.abortController;
    if (controller !== undefined && !controller.signal.aborted) controller.abort(new Error(reason));
  }

  /** Whether the connection is still open (neither side has started to close it). */
  get open(): boolean {
    return this.state === 'open';
  }

  /**
   * Sends one message, parsed through the endpoint's `send` schema (unknown keys dropped). Resolves
   * once it is handed to the connection below its high-water mark, so a slow client slows its sender.
   * A message that does not fit the schema closes the connection with 1011 and rejects. After the
   * connection has closed, messages are dropped.
   */
  send(message: Out): Promise<void> {
    if (this.state !== 'open') return Promise.resolve();
    let data: string | Uint8Array;
    const validate = this.settings.send;
    if (validate !== undefined) {
      const checked = validate(message);
      if (!checked.ok) {
        const error = new MessageValidationError(checked.message);
        this.logs.logger.error({ err: error, wsId: this.id }, 'websocket message does not match its send schema');
        firstReport(this, error);
        this.close(1011, 'Internal error');
        return Promise.reject(error);
      }
      data = JSON.stringify(checked.value);
    } else if (typeof message === 'string' || message instanceof Uint8Array) {
      data = message;
    } else if (message instanceof ArrayBuffer) {
      data = new Uint8Array(message);
    } else {
      data = JSON.stringify(message);
    }
    const counts = this.counts;
    const wire = this.wire;
    counts.sent++;
    counts.bytesSent += wire.send(data);
    if (wire.bufferedAmount() <= HIGH_WATER_MARK) return RESOLVED;
    return new Promise((resolve) => {
      const waiters = (this.drainWaiters ??= []);
      waiters.push(resolve);
      if (waiters.length === 1) wire.onDrain(() => this.releaseSenders());
    });
  }

  /**
   * Sends every item of an iterable (a hub subscription) with `send`'s back-pressure, until the
   * iterable or the connection ends. Resolves then; never rejects (a failure closes the connection).
   * Items are checked by the `send` schema as they go, so a hub's untyped messages are taken.
   */
  async forward(source: AsyncIterable<unknown> | Iterable<unknown>): Promise<void> {
    const iterator =
      Symbol.asyncIterator in source
        ? (source as AsyncIterable<Out>)[Symbol.asyncIterator]()
        : (source as Iterable<Out>)[Symbol.iterator]();
    const stop = () => void Promise.resolve(iterator.return?.()).catch(() => {});
    if (this.state === 'closed') return stop();
    this.signal.addEventListener('abort', stop, { once: true });
    try {
      while (this.state === 'open') {
        const next = await iterator.next();
        if (next.done || this.state !== 'open') break;
        await this.send(next.value);
      }
    } catch (error) {
      if (firstReport(this, error)) {
        this.logs.logger.error({ err: error, wsId: this.id }, 'websocket forward failed');
        this.close(1011, 'Internal error');
      }
    } finally {
      this.signal.removeEventListener('abort', stop);
      if (this.state !== 'open') stop();
    }
  }

  /** Starts closing the connection (default 1000); `closed` resolves once it has. */
  close(code = 1000, reason = ''): void {
    if (this.state !== 'open') return;
    this.state = 'closing';
    this.endReading();
    this.abort(`WebSocket closing (${code})`);
    try {
      this.wire.close(code, closeReason(reason));
    } catch {
      this.wire.terminate();
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<In> {
    return {
      next: () => this.next(),
      return: async () => DONE,
    };
  }

  /** The next client message; done once the connection is closing or closed. */
  next(): Promise<IteratorResult<In>> {
    const queue = this.queue;
    if (queue !== undefined && queue.length > 0) {
      const value = queue.shift()!;
      if (this.paused && queue.length <= QUEUE_LIMIT / 2) {
        this.paused = false;
        this.wire.resume?.();
      }
      return Promise.resolve(nextResult(value));
    }
    if (this.state !== 'open') return Promise.resolve(DONE);
    return new Promise((resolve) => {
      this.reader = resolve;
    });
  }

  // ---- called by transports -------------------------------------------------------------------

  /** A frame from the client. */
  received(data: string | Uint8Array): void {
    if (this.state !== 'open') return;
    this.alive = true;
    if (this.wire.limitsPayload !== true) {
      const size = frameSize(data);
      if (size > this.settings.maxPayload) {
        this.close(1009, `Message too big: over ${this.settings.maxPayload} bytes`);
        return;
      }
    }
    let value: unknown = data;
    const validate = this.settings.receive;
    if (validate !== undefined) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(typeof data === 'string' ? data : decoder.decode(data));
      } catch {
        this.close(1007, 'Invalid message: not JSON');
        return;
      }
      const checked = validate(parsed);
      if (!checked.ok) {
        this.close(1007, `Invalid message: ${checked.message}`);
        return;
      }
      value = checked.value;
    }
    this.counts.received++;
    const reader = this.reader;
    if (reader !== undefined) {
      this.reader = undefined;
      reader(nextResult(value as In));
      return;
    }
    const queue = (this.queue ??= []);
    queue.push(value as In);
    if (!this.paused && queue.length >= QUEUE_LIMIT && this.wire.pause !== undefined) {
      this.paused = true;
      this.wire.pause();
    }
  }

  /** Sends a heartbeat ping. */
  ping(): void {
    try {
      this.wire.ping?.();
    } catch {
      // A socket failing here is closing; its end arrives through `ended`.
    }
  }

  /** Drops the connection without a closing handshake (a peer that stopped answering). */
  terminate(): void {
    if (this.state === 'closed') return;
    this.state = 'closing';
    this.endReading();
    this.abort('WebSocket dropped');
    this.wire.terminate();
  }

  /** The peer answered a ping. */
  pong(): void {
    this.alive = true;
  }

  /** The connection has closed (handshake done, or dropped). */
  ended(code: number, reason: string): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    const info = { code, reason };
    this.closeInfo = info;
    this.endReading();
    this.queue = undefined;
    this.releaseSenders();
    this.abort(`WebSocket closed (${code})`);
    this.resolveClosed?.(info);
    this.onEnded?.(info);
  }

  /** How it ended, once it has. */
  get endedWith(): CloseInfo | undefined {
    return this.closeInfo;
  }

  private endReading(): void {
    const reader = this.reader;
    this.reader = undefined;
    reader?.(DONE);
  }

  private releaseSenders(): void {
    const waiters = this.drainWaiters;
    if (waiters === undefined || waiters.length === 0) return;
    this.drainWaiters = undefined;
    for (const resolve of waiters) resolve();
  }
}

// Node's and Bun's Buffer counts UTF-8 bytes without encoding; elsewhere the text is encoded.
const NodeBuffer = (globalThis as { Buffer?: { byteLength(text: string): number } }).Buffer;

/** The UTF-8 size of a text frame, or a binary one's size. */
export function frameSize(data: string | Uint8Array): number {
  return typeof data === 'string' ? byteLength(data) : data.byteLength;
}

function byteLength(text: string): number {
  return NodeBuffer !== undefined ? NodeBuffer.byteLength(text) : encoder.encode(text).byteLength;
}
