import type { Logger } from '../platform/logger.js';
import type { EventName } from './plugins.js';
import type { Request } from '../http/request.js';
import type { Response } from '../http/response.js';
import type { ServingState } from './serving-state.js';

/** Limits a transport enforces while reading requests (the app's options, with defaults applied, in milliseconds). */
export interface RuntimeLimits {
  /** Largest accepted request body in bytes (413 past it). */
  bodyLimit: number;
  /** Milliseconds to receive a request's headers. */
  headersTimeout: number;
  /** Milliseconds to receive a whole request. */
  requestTimeout: number;
  /** Milliseconds an idle keep-alive connection stays open. */
  keepAliveTimeout: number;
  /** Milliseconds in-flight requests get to finish on shutdown. */
  shutdownTimeout: number;
  /** Largest accepted multipart body in bytes (uploads; 413 past it). */
  uploadLimit?: number;
  /** Most files accepted in one multipart request (413 past it). */
  maxFiles?: number;
  /** Milliseconds an upload's body may take, in place of `requestTimeout` (408 past it). */
  uploadTimeout?: number;
  /** Milliseconds a server keeps serving after SIGTERM (readiness already failing) before it drains. */
  shutdownDelay: number;
}

/** Takes the answer to a request, with what the transport passed along (its connection, its resolver). */
export type Deliver<C> = (response: Response, context: C) => void;

/**
 * What a transport (node:http, fetch, inject, a serverless adapter, MCP) needs of an app, and all it
 * may use: it builds fnapi `Request`s with `requestFrom`, hands them to `serve`, and writes the
 * `Response` out (`finish` serializes it). An app's is `runtimeOf(app)`.
 */
export interface Runtime {
  /**
   * Serves one request: the app's startup once (a request waits for it; 503 when it fails), plugins,
   * middleware, routing, the endpoint, and the error funnel. `deliver(response, context)` is called
   * once, at once when nothing on the request's path is asynchronous, so such a request costs no
   * promise. Never throws.
   */
  serve<C>(request: Request, deliver: Deliver<C>, context: C): void;
  /**
   * Runs the startup callbacks once; concurrent callers share the run. A failed run rejects and is
   * tried again by the next call.
   */
  startup(): Promise<void>;
  /**
   * Runs the shutdown callbacks once (after the drain of deferred work, which ends by `deadline`, a
   * `performance.now()` instant, when a server's own drain began the one `shutdownTimeout`).
   */
  shutdown(deadline?: number): Promise<void>;
  readonly logger: Logger;
  /** Delivers a lifecycle event (`server_starting`, `server_started`, …) to plugins. */
  emit(event: EventName, payload: Record<string, unknown>): void;
  readonly limits: Readonly<RuntimeLimits>;
  /** Detailed error bodies (a response that cannot be written says why). */
  readonly debug: boolean;
  /** Starting, ready, stopping or stopped: a server marks `stopping` when its shutdown begins. */
  readonly serving: ServingState;
  /** Whether the app has WebSocket endpoints (a server then listens for upgrades). */
  readonly hasWebSockets: boolean;
}

/** Where an app keeps what transports use of it: a symbol, so app authors neither see nor call it. */
export const RUNTIME: unique symbol = Symbol.for('fnapi.runtime') as never;

/** An app, as transports see it. */
export interface Servable {
  readonly [RUNTIME]: Runtime;
}

/** The runtime transports serve an app through. */
export function runtimeOf(app: Servable): Runtime {
  return app[RUNTIME];
}
