import type { RawHeaders } from '../http/headers.js';
import type { Response } from '../http/response.js';
import type { Runtime } from '../serve/runtime-contract.js';
import { requestFrom } from '../wire/request-from.js';
import { type Serialized, serialize, toWebStream } from '../wire/serialize.js';
import { frameSize, HIGH_WATER_MARK, type WebSocketConnection, type WireSocket } from './connection.js';
import { offerUpgrade, WebSocketUpgrade } from './endpoint.js';
import { WebSocketHost } from './host.js';

/** One host per app for the runtimes that serve through `app.fetch` (Bun, Deno, Workers). */
const hosts = new WeakMap<object, WebSocketHost>();
function hostOf(app: object): WebSocketHost {
  let host = hosts.get(app);
  if (host === undefined) {
    host = new WebSocketHost();
    hosts.set(app, host);
  }
  return host;
}

/** What Bun's `ServerWebSocket` offers that the connection uses. */
interface BunSocket {
  data: BunSocketData;
  send(data: string | Uint8Array): number;
  close(code?: number, reason?: string): void;
  terminate(): void;
  ping(data?: string): number;
}
interface BunSocketData {
  upgrade: WebSocketUpgrade;
  connection?: WebSocketConnection;
  pressured?: boolean;
  pending?: (() => void)[];
}
/** What Bun's server offers for an upgrade. */
interface BunServer {
  upgrade(request: globalThis.Request, options: { headers?: HeadersInit; data: BunSocketData }): boolean;
}

/** The handler object `Bun.serve({ websocket })` takes: `app.websocket`. */
export interface BunWebSocketHandler {
  open(ws: BunSocket): void;
  message(ws: BunSocket, message: string | Uint8Array): void;
  close(ws: BunSocket, code: number, reason: string): void;
  drain(ws: BunSocket): void;
  pong(ws: BunSocket): void;
  /** Bun's own cap on a frame; each endpoint's `maxPayload` is checked below it (1009). */
  maxPayloadLength: number;
}

export function bunWebSocketHandler(app: object): BunWebSocketHandler {
  const host = hostOf(app);
  return {
    maxPayloadLength: 64 * 1024 * 1024,
    open(ws) {
      const data = ws.data;
      const wire: WireSocket = {
        send(message) {
          // -1: queued under back-pressure, written once Bun calls `drain`.
          if (ws.send(message) === -1) data.pressured = true;
          return frameSize(message);
        },
        bufferedAmount: () => (data.pressured ? Number.MAX_SAFE_INTEGER : 0),
        onDrain: (fn) => {
          (data.pending ??= []).push(fn);
        },
        close: (code, reason) => ws.close(code, reason),
        terminate: () => ws.terminate(),
        ping: () => void ws.ping(),
      };
      data.connection = host.start(data.upgrade, wire);
    },
    message(ws, message) {
      ws.data.connection?.received(typeof message === 'string' ? message : new Uint8Array(message));
    },
    close(ws, code, reason) {
      const pending = ws.data.pending;
      ws.data.pending = undefined;
      for (const done of pending ?? []) done();
      ws.data.connection?.ended(code, reason);
    },
    drain(ws) {
      ws.data.pressured = false;
      const pending = ws.data.pending;
      ws.data.pending = undefined;
      for (const done of pending ?? []) done();
    },
    pong(ws) {
      ws.data.connection?.pong();
    },
  };
}

type Kind = 'bun' | 'deno' | 'workerd' | undefined;

function upgradeKind(platform: unknown): Kind {
  if (typeof (platform as BunServer | undefined)?.upgrade === 'function') return 'bun';
  const g = globalThis as { Deno?: { upgradeWebSocket?: unknown }; WebSocketPair?: unknown };
  if (typeof g.Deno?.upgradeWebSocket === 'function') return 'deno';
  if (typeof g.WebSocketPair === 'function') return 'workerd';
  return undefined;
}

/** Headers of the 101 answer besides the handshake's own (request id, cookies, CORS). */
function extraHeaders(out: Serialized): [string, string][] {
  const list: [string, string][] = [];
  for (let i = 0; i < out.headers.length; i += 2) {
    const name = String(out.headers[i]).toLowerCase();
    if (name !== 'content-length' && name !== 'content-type' && name !== 'connection' && name !== 'upgrade')
      list.push([name, String(out.headers[i + 1])]);
  }
  return list;
}

function webResponse(out: Serialized, head: boolean): globalThis.Response {
  const headers = new Headers();
  for (let i = 0; i < out.headers.length; i += 2) headers.append(String(out.headers[i]), String(out.headers[i + 1]));
  const body = head ? null : out.stream !== undefined ? toWebStream(out.stream) : (out.body as BodyInit | null);
  return new globalThis.Response(body, { status: out.status, headers });
}

/**
 * A WebSocket upgrade through `app.fetch`: the request runs the pipeline, and an accepted one is
 * completed with the runtime's own API — Bun's `server.upgrade`, `Deno.upgradeWebSocket`, Workers'
 * `WebSocketPair`. Where there is none (Node's `app.fetch`, the serverless adapters) the answer is 426.
 */
export async function fetchUpgrade(app: Runtime, web: globalThis.Request, platform: unknown): Promise<globalThis.Response> {
  const url = new URL(web.url);
  const headers: RawHeaders = {};
  web.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const request = requestFrom({ method: web.method, url, headers, body: null, hasBody: false, bodyLimit: app.limits.bodyLimit });
  const kind = upgradeKind(platform);
  if (kind !== undefined) offerUpgrade(request);
  const response = await new Promise<Response>((resolve) => app.serve(request, resolve, undefined));
  const out = serialize(response, app);
  if (!(response instanceof WebSocketUpgrade)) return webResponse(out, web.method === 'HEAD');
  const host = hostOf(app);
  const extra = extraHeaders(out);
  if (kind === 'bun') {
    (platform as BunServer).upgrade(web, { headers: extra, data: { upgrade: response } });
    // Bun completes the handshake itself; the fetch handler returns nothing.
    return undefined as unknown as globalThis.Response;
  }
  if (kind === 'deno') {
    const deno = (
      globalThis as unknown as { Deno: { upgradeWebSocket(r: globalThis.Request): { socket: WebSocket; response: globalThis.Response } } }
    ).Deno;
    // The chosen subprotocol goes with the other headers: Deno's own `protocol` option reads the offer
    // split at ", " only, and refuses one a client wrote as `a,b`.
    const { socket, response: answer } = deno.upgradeWebSocket(web);
    attachStandard(socket, host, response, false);
    for (const [name, value] of extra) {
      try {
        answer.headers.append(name, value);
      } catch {
        // Immutable headers on this runtime: the handshake goes without them.
      }
    }
    return answer;
  }
  const Pair = (globalThis as unknown as { WebSocketPair: new () => Record<0 | 1, WebSocket> }).WebSocketPair;
  const pair = new Pair();
  const client = pair[0];
  const server = pair[1] as WebSocket & { accept(): void };
  server.accept();
  attachStandard(server, host, response, true);
  return new globalThis.Response(null, { status: 101, headers: extra, webSocket: client } as ResponseInit);
}

/** A Web-standard `WebSocket` (Deno's, a Worker's server end) as the connection's wire. */
function attachStandard(socket: WebSocket, host: WebSocketHost, upgrade: WebSocketUpgrade, open: boolean): void {
  socket.binaryType = 'arraybuffer';
  let connection: WebSocketConnection | undefined;
  const start = () => {
    const wire: WireSocket = {
      send(data) {
        socket.send(data as string | ArrayBufferView<ArrayBuffer>);
        return frameSize(data);
      },
      // Workers report no buffered amount (always 0); Deno does, and is polled while it is high.
      bufferedAmount: () => socket.bufferedAmount ?? 0,
      onDrain(fn) {
        const wait = () => (socket.readyState !== 1 || socket.bufferedAmount <= HIGH_WATER_MARK ? fn() : setTimeout(wait, 5));
        setTimeout(wait, 5);
      },
      close: (code, reason) => socket.close(code, reason),
      terminate: () => socket.close(1001, ''),
    };
    connection = host.start(upgrade, wire);
  };
  if (open) start();
  else socket.addEventListener('open', start);
  socket.addEventListener('message', (event: MessageEvent) => {
    const data = event.data as string | ArrayBuffer;
    connection?.received(typeof data === 'string' ? data : new Uint8Array(data));
  });
  socket.addEventListener('close', (event: CloseEvent) => connection?.ended(event.code, event.reason));
  socket.addEventListener('error', () => {});
}
