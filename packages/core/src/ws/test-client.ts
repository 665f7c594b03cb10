import type { IncomingMessage } from 'node:http';
import type * as WS from 'ws';
import type { CloseInfo } from './connection.js';

export interface TestSocketOptions {
  headers?: Record<string, string>;
  /** Appended to the path as a query string. */
  query?: Record<string, string | number | boolean>;
  /** Subprotocols offered. */
  protocols?: string[];
}

/** An upgrade the server refused: the ordinary HTTP answer it gave instead (401, 403, 404, 422, 426 …). */
export class WebSocketRefusedError extends Error {
  constructor(
    readonly status: number,
    readonly headers: Record<string, string | string[]>,
    readonly body: string,
  ) {
    super(`WebSocket refused with ${status}: ${body.slice(0, 200)}`);
    this.name = 'WebSocketRefusedError';
  }
  json<T = unknown>(): T {
    return JSON.parse(this.body) as T;
  }
}

const DONE = Symbol('done');

/**
 * What a test socket uses of `ws`'s client: written out here so that the published types do not need
 * `@types/ws` (the `ws` package ships none).
 */
export interface TestSocketConnection {
  readonly readyState: number;
  /** The subprotocol the server chose; `''` for none. */
  readonly protocol: string;
  send(data: string | Uint8Array, options: { binary: boolean }, callback: (error?: Error) => void): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
  on(event: 'close', listener: (code: number, reason: Buffer) => void): unknown;
  on(event: 'message', listener: (data: Buffer, isBinary: boolean) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/**
 * A WebSocket client for tests (`await client.ws(path)`): `send(message)` (objects as JSON), `next()`
 * resolving to the next message (text frames holding JSON are parsed, other text stays a string,
 * binary frames are `Uint8Array`s) or undefined once closed, async iteration, `close()` and `closed`.
 */
export class TestWebSocket implements AsyncIterable<unknown> {
  /** Resolves with the close code and reason once the connection has closed. */
  readonly closed: Promise<CloseInfo>;
  private readonly queue: unknown[] = [];
  private waiter: ((value: unknown) => void) | undefined;
  private ended = false;

  constructor(readonly socket: TestSocketConnection) {
    this.closed = new Promise((resolve) => {
      socket.on('close', (code: number, reason: Buffer) => {
        this.ended = true;
        this.deliver(DONE);
        resolve({ code, reason: reason.toString('utf8') });
      });
    });
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      if (isBinary) return this.deliver(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
      const text = data.toString('utf8');
      try {
        this.deliver(JSON.parse(text));
      } catch {
        this.deliver(text);
      }
    });
    socket.on('error', () => {});
  }

  private deliver(value: unknown): void {
    const waiter = this.waiter;
    if (waiter !== undefined) {
      this.waiter = undefined;
      waiter(value);
    } else if (value !== DONE) {
      this.queue.push(value);
    }
  }

  /** The subprotocol the server chose (`Sec-WebSocket-Protocol` of its answer); `''` for none. */
  get protocol(): string {
    return this.socket.protocol;
  }

  /** Sends a message: a string as text, bytes as binary, anything else as JSON text. Resolves once written. */
  send(message: unknown): Promise<void> {
    const data = typeof message === 'string' || message instanceof Uint8Array ? message : JSON.stringify(message);
    return new Promise((resolve, reject) => {
      this.socket.send(data, { binary: typeof data !== 'string' }, (error) => (error ? reject(error) : resolve()));
    });
  }

  /** The next message, or undefined once the connection has closed and every message was read. */
  next(): Promise<unknown> {
    if (this.queue.length > 0) return Promise.resolve(this.queue.shift());
    if (this.ended) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.waiter = (value) => resolve(value === DONE ? undefined : value);
    });
  }

  async *[Symbol.asyncIterator](): AsyncIterator<unknown> {
    for (;;) {
      if (this.queue.length === 0 && this.ended) return;
      const value = await this.next();
      if (value === undefined && this.ended && this.queue.length === 0) return;
      yield value;
    }
  }

  /** Starts the closing handshake; resolves once closed. */
  close(code = 1000, reason?: string): Promise<CloseInfo> {
    this.socket.close(code, reason);
    return this.closed;
  }

  /** Drops the connection without a closing handshake (a client that vanished). */
  terminate(): void {
    this.socket.terminate();
  }
}

/** Opens a WebSocket to `base + path`; a refused upgrade rejects with a `WebSocketRefusedError`. */
export async function connectTestSocket(base: string, path: string, options: TestSocketOptions = {}): Promise<TestWebSocket> {
  const ws = (await import('ws')) as unknown as Partial<typeof WS> & { default?: typeof WS };
  const WebSocket = ws.WebSocket ?? ws.default!.WebSocket;
  let target = base.replace(/^http/, 'ws') + path;
  if (options.query) {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(options.query)) search.append(name, String(value));
    target += `${path.includes('?') ? '&' : '?'}${search}`;
  }
  const socket = new WebSocket(target, options.protocols, { headers: options.headers, perMessageDeflate: false });
  const client = new TestWebSocket(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('unexpected-response', (_request: unknown, response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const headers: Record<string, string | string[]> = {};
        for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) headers[name] = value;
        reject(new WebSocketRefusedError(response.statusCode ?? 0, headers, Buffer.concat(chunks).toString('utf8')));
        socket.terminate();
      });
    });
    socket.once('error', (error) => reject(error));
  });
  return client;
}
