import type { Logger } from '../platform/logger.js';
import type { MaybePromise } from './pipeline.js';
import type { EventName } from './plugins.js';
import type { Request } from '../http/request.js';
import type { Response } from '../http/response.js';
import type { ServingState } from './serving-state.js';

/** Limits a transport enforces while reading requests (the app's options, with defaults applied). */
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

/**
 * What a transport (node:http, fetch, inject, a serverless adapter) needs of an app, and all it may
 * use: it builds fnapi `Request`s, hands them to `handle`, and writes the `Response` out with
 * `serialize`. `API` implements it.
 */
export interface Runtime {
  /** Serves one request through plugins, middleware, routing and the endpoint; never rejects. */
  handle(request: Request): Promise<Response>;
  /** `handle` for servers that can write a synchronous answer at once (no promise when none is needed). */
  serve(request: Request): MaybePromise<Response>;
  /**
   * `serve` for servers that write the answer themselves: `deliver(response, context)` is called once,
   * at once when the answer is synchronous, else from the one continuation of the app's promise (no
   * second promise hop per request). Call it once `ready`.
   */
  serveThen?<C>(request: Request, deliver: (response: Response, context: C) => void, context: C): void;
  /**
   * Runs the startup callbacks once; concurrent callers share the run. A failed run rejects and is
   * tried again by the next call.
   */
  startup(): Promise<void>;
  /** Startup has completed (checked synchronously on every request, so a started app pays nothing). */
  readonly ready: boolean;
  /** Whether a request is answered while startup runs instead of waiting for it (health probes). */
  servesWhileStarting?(request: Request): boolean;
  /** Runs the shutdown callbacks once. */
  shutdown(): Promise<void>;
  readonly logger: Logger;
  /** Delivers a lifecycle event (`server_starting`, `server_started`, …) to plugins. */
  emit(event: EventName, payload: Record<string, unknown>): void;
  readonly limits: Readonly<RuntimeLimits>;
  /** Detailed error bodies (a response that cannot be written says why). */
  readonly debug: boolean;
  /** Starting, ready, stopping or stopped: a server marks `stopping` when its shutdown begins. */
  readonly serving: ServingState;
  /** Whether the app has WebSocket endpoints (a server then listens for upgrades). */
  readonly hasWebSockets?: boolean;
}
