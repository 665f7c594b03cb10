import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type * as WS from 'ws';
import type { Abandoned } from '../http/deferred.js';
import { BadRequestError } from '../http/errors.js';
import type { RawHeaders } from '../http/headers.js';
import { drainingReason } from '../http/interrupted.js';
import type { Response } from '../http/response.js';
import type { Runtime } from '../serve/runtime-contract.js';
import { closeStream, finish } from '../wire/answer.js';
import { refuse, splitTarget, writeRaw } from '../wire/refuse.js';
import { requestFrom } from '../wire/request-from.js';
import { serialize } from '../wire/serialize.js';
import type { WebSocketConnection, WireSocket } from './connection.js';
import { offerUpgrade, WebSocketUpgrade } from './endpoint.js';
import { WebSocketHost } from './host.js';

type WSModule = typeof WS;
let wsModule: Promise<WSModule> | undefined;

/** The `ws` library, loaded when a server with a WebSocket endpoint starts (never with core). */
function loadWs(): Promise<WSModule> {
  wsModule ??= import('ws').then((m) => {
    const named = m as unknown as Partial<WSModule> & { default?: WSModule };
    return (named.WebSocketServer === undefined ? named.default : named) as WSModule;
  });
  return wsModule;
}

/** What node:http's 'upgrade' event needs: the listener, and the drain on shutdown. */
export interface NodeUpgrades {
  listener(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Closes open WebSockets with 1001 and waits for their handlers, at most `timeoutMs`; then drops the rest. */
  drain(timeoutMs: number): Promise<Abandoned[]>;
  readonly host: WebSocketHost;
}

const NO_COUNTS = { sent: 0, received: 0, bytesSent: 0 };
/** Headers of the 101 answer that `ws` writes itself. */
const HANDSHAKE_HEADERS = new Set(['content-length', 'content-type', 'connection', 'upgrade', 'sec-websocket-accept', 'transfer-encoding']);

/**
 * Serves WebSocket upgrades for a node:http server: every `Upgrade` request runs the app's pipeline
 * (plugins, middleware, guards, validation); an accepted one (101) is completed by the `ws` library,
 * anything else is written out as an ordinary HTTP answer by the wire's raw writer, and the
 * connection closed. `isDraining` is the server's own check: it answers 503 as the server does.
 */
export function nodeUpgrades(app: Runtime, isDraining: () => boolean): NodeUpgrades {
  const host = new WebSocketHost();
  const servers = new Map<number, WS.WebSocketServer>();
  const sockets = new Set<WS.WebSocket>();
  let extraHeaders: string[] | undefined;
  // Loaded while the server starts, so the first upgrade does not wait for it.
  void loadWs().catch(() => {});

  const serverFor = (ws: WSModule, maxPayload: number): WS.WebSocketServer => {
    let server = servers.get(maxPayload);
    if (server === undefined) {
      // `handleProtocols`: `ws` would echo the client's first offer; the endpoint's choice (already
      // made, or the request refused) is in the 101's own headers.
      server = new ws.WebSocketServer({
        noServer: true,
        maxPayload,
        perMessageDeflate: false,
        clientTracking: false,
        handleProtocols: () => false,
      });
      server.on('headers', (headers: string[]) => {
        if (extraHeaders !== undefined) headers.push(...extraHeaders);
      });
      servers.set(maxPayload, server);
    }
    return server;
  };

  const accept = (socket: WS.WebSocket, upgrade: WebSocketUpgrade) => {
    sockets.add(socket);
    const connection = host.start(upgrade, new NodeWire(socket));
    // Listeners shared by every socket (`this` is the socket): no closures per connection.
    (socket as Attached)[CONNECTION] = connection;
    (socket as Attached)[SOCKETS] = sockets;
    socket.on('message', onMessage);
    socket.on('pong', onPong);
    socket.on('error', onError);
    socket.on('close', onClose);
  };

  const serve = async (req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> => {
    if (isDraining()) {
      writeRaw(socket, refuse(drainingReason(), app));
      return;
    }
    const target = { path: '', query: '' };
    if (!splitTarget(req.url ?? '/', target)) {
      writeRaw(socket, refuse(new BadRequestError('Malformed request target'), app));
      return;
    }
    const request = requestFrom({
      method: req.method ?? 'GET',
      path: target.path,
      query: target.query,
      headers: req.headers as RawHeaders,
      body: null,
      hasBody: false,
      client: { address: req.socket.remoteAddress, port: req.socket.remotePort },
      bodyLimit: app.limits.bodyLimit,
      onDisconnect: (abort) => socket.once('close', () => abort(new Error('client disconnected'))),
    });
    offerUpgrade(request);
    const response = await new Promise<Response>((resolve) => app.serve(request, resolve, undefined));
    if (!(response instanceof WebSocketUpgrade)) {
      // A stream is not written on a socket that asked for an upgrade: closed unread.
      const out = finish(app, request, response);
      if (out.stream !== undefined) void closeStream(out.stream);
      writeRaw(socket, out);
      return;
    }
    if (socket.destroyed) {
      response.end({ code: 1006, reason: '' }, NO_COUNTS);
      return;
    }
    const ws = await loadWs();
    const server = serverFor(ws, response.settings.maxPayload);
    const abandoned = () => response.end({ code: 1006, reason: '' }, NO_COUNTS);
    socket.once('close', abandoned);
    const headers = serialize(response, app).headers;
    const lines: string[] = [];
    for (let i = 0; i < headers.length; i += 2) {
      const name = String(headers[i]).toLowerCase();
      if (!HANDSHAKE_HEADERS.has(name)) lines.push(`${name}: ${String(headers[i + 1])}`);
    }
    extraHeaders = lines;
    try {
      server.handleUpgrade(req, socket, head, (client) => {
        socket.off('close', abandoned);
        accept(client, response);
      });
    } finally {
      extraHeaders = undefined;
    }
  };

  return {
    host,
    listener: (req, socket, head) => {
      socket.on('error', destroyOnError);
      serve(req, socket, head).catch((error: unknown) => writeRaw(socket, refuse(error, app)));
    },
    async drain(timeoutMs) {
      const left = await host.drain(timeoutMs);
      for (const socket of sockets) socket.terminate();
      return left;
    },
  };
}

const CONNECTION = Symbol('connection');
const SOCKETS = Symbol('sockets');
type Attached = WS.WebSocket & { [CONNECTION]?: WebSocketConnection; [SOCKETS]?: Set<WS.WebSocket> };

// Called rather than looked up on each frame: optimized code leaves the lookup of `toString` on a
// received Buffer generic (about 80 instructions a frame). Read through globalThis: this module is
// also loaded where there is no Buffer (Workers), and runs only where there is.
const bufferToString = (globalThis as { Buffer?: typeof Buffer }).Buffer?.prototype.toString as Buffer['toString'];

function onMessage(this: Attached, data: Buffer, isBinary: boolean): void {
  this[CONNECTION]!.received(isBinary ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : bufferToString.call(data));
}
function onPong(this: Attached): void {
  this[CONNECTION]!.pong();
}
function onError(): void {
  // A protocol error (a frame past maxPayload: 1009, invalid UTF-8: 1007) is closed by `ws` itself.
}
function onClose(this: Attached, code: number, reason: Buffer): void {
  this[SOCKETS]!.delete(this);
  this[CONNECTION]!.ended(code, reason.toString('utf8'));
}
function destroyOnError(this: Duplex): void {
  this.destroy();
}

const TEXT = { binary: false };
const BINARY = { binary: true };

/** A `ws` socket as a connection's wire; back-pressure is read from the TCP socket below it. */
class NodeWire implements WireSocket {
  /** `ws` closes with 1009 past the server's `maxPayload` (one server per limit). */
  readonly limitsPayload = true;
  constructor(private readonly socket: WS.WebSocket) {}
  send(data: string | Uint8Array): number {
    if (typeof data !== 'string') {
      this.socket.send(data, BINARY);
      return data.byteLength;
    }
    // Encoded here: a string handed to `ws` reaches node's writev as a string chunk, the slow mixed
    // path. The encoded size is the count, so the text is not measured twice.
    const bytes = Buffer.from(data);
    this.socket.send(bytes, TEXT);
    // `length`, the same for bytes: `byteLength` stays a generic load here (about 150 instructions).
    return bytes.length;
  }
  bufferedAmount(): number {
    return this.socket.bufferedAmount;
  }
  onDrain(fn: () => void): void {
    const raw = (this.socket as unknown as { _socket?: Duplex })._socket;
    if (raw === undefined || raw.destroyed) fn();
    else raw.once('drain', fn);
  }
  close(code: number, reason: string): void {
    this.socket.close(code, reason);
  }
  terminate(): void {
    this.socket.terminate();
  }
  ping(): void {
    this.socket.ping();
  }
  pause(): void {
    this.socket.pause();
  }
  resume(): void {
    this.socket.resume();
  }
}
