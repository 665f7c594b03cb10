import {
  type Duration,
  durationMs,
  HOUR,
  type InferInput,
  type ParamsShape,
  type Schema,
  type SchemaInput,
  type SchemaOutput,
} from '@fnapi/validation';
import { annotateHandler, defineEndpoint, type EndpointDefinition, handlerMetadata } from '../serve/endpoint.js';
import { BadRequestError, ForbiddenError, HTTPError } from '../http/errors.js';
import type { Middleware } from '../serve/pipeline.js';
import type { Request } from '../http/request.js';
import { headerValueOf } from '../http/request-access.js';
import { REQUEST_INTERNALS } from '../http/request-internals.js';
import { Response, SWITCHES_PROTOCOLS } from '../http/response.js';
import type { CloseInfo, WebSocketConnection } from './connection.js';
import { type MessageValidator, messageValidator } from './messages.js';
import type { Dependency, Uses } from '../serve/dependency.js';

/** Options of `app.ws(route, options, handler)` and `router.ws`. */
export interface WebSocketOptions<
  P extends ParamsShape = ParamsShape,
  R extends Schema | undefined = Schema | undefined,
  S extends Schema | undefined = Schema | undefined,
> {
  /** Path and query parameters, bound and validated like a GET's. */
  params?: P;
  /** Schema of the client's messages: each text frame's JSON is parsed and validated (1007 when it does not fit). */
  receive?: R;
  /** Schema of the server's messages: `socket.send` parses through it (unknown keys dropped). */
  send?: S;
  tags?: string[];
  summary?: string;
  description?: string;
  /** Runs for this endpoint's upgrade request only, after the app's and its routers' middleware. */
  middleware?: readonly Middleware[];
  /** Browser origins allowed besides the request's own, added to the API's `wsOrigins`. */
  wsOrigins?: readonly string[];
  /**
   * Seconds (or `'30s'`) between pings; a peer that has not answered by the next ping is dropped.
   * Default 30; 0 turns it off; a number over an hour is refused.
   */
  heartbeat?: Duration;
  /** Largest accepted message in bytes; default 1 MiB (the connection closes with 1009 past it). */
  maxPayload?: number;
  /**
   * The subprotocols it speaks, in its order of preference: the first of them the client offers is
   * chosen (`socket.protocol`); a client that offers only others is refused with 400 before the upgrade,
   * one that offers none is accepted without one. Without it, any offer is refused.
   */
  protocols?: readonly string[];
  /** Default: the handler's name, else the route. */
  operationId?: string;
  /** Dependencies whose values join the handler's input; a `'request'` one lives as long as the connection. */
  uses?: Uses;
  /** Dependencies run for their effect (guards, audits). */
  dependencies?: readonly Dependency<any>[];
}

/** What the handler's `for await` yields: `receive`'s output, or strings and bytes as they come. */
export type ReceivedMessage<R> = R extends Schema ? SchemaOutput<R> : string | Uint8Array;
/** What `socket.send` takes: `send`'s input, or anything (strings and bytes as they are, the rest as JSON). */
export type SentMessage<S> = S extends Schema ? SchemaInput<S> : unknown;

/** The socket a WebSocket handler receives. */
export type ServerWebSocket<In = unknown, Out = unknown> = WebSocketConnection<In, Out>;

export type WebSocketHandler<I = any, In = any, Out = any> = (input: I, socket: WebSocketConnection<In, Out>, request: Request) => unknown;

/** A WebSocket endpoint's settings, fixed at registration. */
export interface WebSocketSettings {
  receive: MessageValidator | undefined;
  send: MessageValidator | undefined;
  /** Milliseconds; 0 for none. */
  heartbeat: number;
  maxPayload: number;
  origins: readonly string[];
  /** The subprotocols spoken, in order of preference; empty for none. */
  protocols: readonly string[];
  options: WebSocketOptions;
  handler: WebSocketHandler;
}

const webSocketDefinitions = new WeakMap<EndpointDefinition, WebSocketSettings>();

/** The WebSocket settings of an endpoint definition; undefined for an HTTP endpoint. */
export function webSocketOf(definition: EndpointDefinition): WebSocketSettings | undefined {
  return webSocketDefinitions.get(definition);
}

/** Requests whose transport can upgrade them (set by the transport before the pipeline runs). */
const upgradable = new WeakSet<Request>();

/** Marks a request as arriving on a transport that can upgrade it to a WebSocket. */
export function offerUpgrade(request: Request): void {
  upgradable.add(request);
}

/** Whether the request asks for a WebSocket (`Upgrade: websocket`). */
export function asksForWebSocket(upgrade: string | null | undefined): boolean {
  return upgrade !== undefined && upgrade !== null && /(^|[\s,])websocket($|[\s,])/i.test(upgrade);
}

const DEFAULT_MAX_PAYLOAD = 1024 * 1024;

/**
 * A WebSocket endpoint as an endpoint definition: a GET route whose handler, once plugins,
 * middleware, guards and validation have let the upgrade request through, answers 101 with a
 * `WebSocketUpgrade` that the transport completes. A plain request gets 426 and a foreign browser
 * origin 403, both before the guards run.
 */
export function defineWebSocket(options: WebSocketOptions & { route: string }, handler: WebSocketHandler): EndpointDefinition {
  if (typeof handler !== 'function') throw new TypeError(`WebSocket endpoint ${options.route}: the handler must be a function`);
  const heartbeat = durationMs(`WebSocket endpoint ${options.route}: heartbeat`, options.heartbeat ?? 30, { maxNumber: HOUR });
  const maxPayload = options.maxPayload ?? DEFAULT_MAX_PAYLOAD;
  if (!Number.isInteger(maxPayload) || maxPayload <= 0)
    throw new RangeError(`WebSocket endpoint ${options.route}: maxPayload is bytes > 0`);
  const protocols = [...(options.protocols ?? [])];
  for (const protocol of protocols) {
    if (typeof protocol !== 'string' || !TOKEN.test(protocol))
      throw new TypeError(
        `WebSocket endpoint ${options.route}: subprotocol ${JSON.stringify(protocol)} is not a token (RFC 6455: visible ASCII, no separators)`,
      );
  }
  if (new Set(protocols).size !== protocols.length)
    throw new TypeError(`WebSocket endpoint ${options.route}: a subprotocol is listed twice`);
  const settings: WebSocketSettings = {
    receive: messageValidator(options.receive),
    send: messageValidator(options.send),
    heartbeat,
    maxPayload,
    origins: (options.wsOrigins ?? []).map(normalOrigin),
    protocols,
    options,
    handler,
  };
  const upgrade = (input: unknown, request: Request) => new WebSocketUpgrade(settings, input, request, chooseProtocol(request, settings));
  annotateHandler(upgrade, { guards: [(request) => precheck(request, settings)] });
  const metadata = handlerMetadata(handler);
  if (metadata) annotateHandler(upgrade, metadata);
  const definition = defineEndpoint(
    {
      route: options.route,
      method: 'GET',
      params: options.params,
      tags: options.tags,
      summary: options.summary,
      description: options.description,
      middleware: options.middleware,
      operationId: options.operationId,
      includeInSchema: false,
      uses: options.uses,
      dependencies: options.dependencies,
    },
    upgrade,
    handler.name,
  );
  webSocketDefinitions.set(definition, settings);
  return definition;
}

/** A subprotocol name: an HTTP token (RFC 6455 §4.1). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** The subprotocols a handshake offers (`Sec-WebSocket-Protocol`, comma-separated, possibly repeated). */
function offeredProtocols(request: Request): string[] {
  const header = headerValueOf(request, 'sec-websocket-protocol');
  if (header === undefined) return [];
  return header
    .split(',')
    .map((protocol) => protocol.trim())
    .filter((protocol) => protocol !== '');
}

/**
 * The subprotocol of a handshake: the first of the endpoint's list (its order of preference) that the
 * client offers; `''` when it offers none. An offer of only others is refused with 400 naming the
 * accepted list: a browser drops a connection whose answer names none of its offers, and echoing one
 * the endpoint never declared would promise what it does not speak.
 */
function chooseProtocol(request: Request, settings: WebSocketSettings): string {
  const offered = offeredProtocols(request);
  if (offered.length === 0) return '';
  const chosen = settings.protocols.find((protocol) => offered.includes(protocol));
  if (chosen !== undefined) return chosen;
  const accepted = settings.protocols;
  throw new BadRequestError(
    accepted.length === 0
      ? `This endpoint speaks no WebSocket subprotocol; offered ${offered.join(', ')}. Open it without Sec-WebSocket-Protocol`
      : `None of the offered WebSocket subprotocols (${offered.join(', ')}) is spoken here; accepted: ${accepted.join(', ')}`,
    { accepted: [...accepted], offered },
  );
}

/**
 * 426 for a request that cannot become a WebSocket; 403 for a browser origin that is not allowed; 400
 * for an offer of subprotocols the endpoint does not speak.
 */
function precheck(request: Request, settings: WebSocketSettings): void {
  if (!upgradable.has(request) || request.method !== 'GET' || !asksForWebSocket(headerValueOf(request, 'upgrade'))) {
    throw new HTTPError(426, 'This endpoint speaks WebSocket: open it with a WebSocket handshake (Upgrade: websocket)', undefined, {
      headers: { upgrade: 'websocket' },
    });
  }
  if (!originAllowed(request, settings)) {
    throw new ForbiddenError(
      `Origin ${JSON.stringify(headerValueOf(request, 'origin'))} may not open this WebSocket; list it in wsOrigins`,
    );
  }
  chooseProtocol(request, settings);
}

/** A request without `Origin` (not a browser), from its own origin, or from one listed in `wsOrigins`. */
function originAllowed(request: Request, settings: WebSocketSettings): boolean {
  const origin = headerValueOf(request, 'origin');
  if (origin === undefined) return true;
  const normal = normalOrigin(origin);
  if (normal === request.url.origin) return true;
  const appOrigins = request[REQUEST_INTERNALS]?.wsOrigins ?? [];
  if (settings.origins.includes(normal) || settings.origins.includes('*')) return true;
  return appOrigins.some((allowed) => allowed === '*' || normalOrigin(allowed) === normal);
}

function normalOrigin(origin: string): string {
  if (origin === '*' || origin === 'null') return origin;
  try {
    return new URL(origin).origin;
  } catch {
    return origin;
  }
}

/** What the connection's end reports to logs and metrics. */
export interface WebSocketEnd extends CloseInfo {
  /** Milliseconds from the upgrade request to the close. */
  duration: number;
  /** Messages sent and received, and bytes sent. */
  sent: number;
  received: number;
  bytes: number;
}

/**
 * The 101 answer of an accepted upgrade request: middleware and plugins see it like any response;
 * the transport completes the handshake and hands the socket to `start`.
 */
export class WebSocketUpgrade extends Response {
  readonly [SWITCHES_PROTOCOLS] = true;
  readonly startedAt = performance.now();
  // Made when a middleware asks (logging, metrics, tracing): otherwise a connection pays for none.
  private endedPromise: Promise<WebSocketEnd> | undefined = undefined;
  private finish: ((end: WebSocketEnd) => void) | undefined = undefined;
  private result: WebSocketEnd | undefined = undefined;

  constructor(
    readonly settings: WebSocketSettings,
    readonly input: unknown,
    readonly request: Request,
    /** The subprotocol chosen (`Sec-WebSocket-Protocol` of the 101), `''` for none. */
    readonly protocol = '',
  ) {
    super(undefined, { statusCode: 101 });
    if (protocol !== '') this.headers.set('sec-websocket-protocol', protocol);
  }

  /** Resolves when the connection has ended (or the upgrade was abandoned). */
  get ended(): Promise<WebSocketEnd> {
    if (this.endedPromise === undefined) {
      const result = this.result;
      this.endedPromise =
        result !== undefined
          ? Promise.resolve(result)
          : new Promise((resolve) => {
              this.finish = resolve;
            });
    }
    return this.endedPromise;
  }

  /** The connection has ended: its close and counts, for logs and metrics. */
  end(close: CloseInfo, counts: { sent: number; received: number; bytesSent: number }): void {
    if (this.result !== undefined) return;
    this.result = {
      ...close,
      duration: performance.now() - this.startedAt,
      sent: counts.sent,
      received: counts.received,
      bytes: counts.bytesSent,
    };
    this.finish?.(this.result);
  }
}

/** The end of a WebSocket answer (for logging and metrics middleware); undefined for any other response. */
export function webSocketEnded(response: unknown): Promise<WebSocketEnd> | undefined {
  return response instanceof WebSocketUpgrade ? response.ended : undefined;
}

/** Infers a WebSocket handler's input, as `api` infers an HTTP one's. */
export type WebSocketInput<R extends string, P extends ParamsShape> = InferInput<R, P>;
