import type { API, Logger, Request, Response } from '@fnapi/core';
import type {
  EventCallback,
  EventName,
  HookName,
  OnErrorHook,
  OnEventHook,
  PluginLike,
  PluginMetadata,
  PostResponseHook,
  PreRequestHook,
} from '@fnapi/core/extend';

export type { EventCallback, OnErrorHook, OnEventHook, PostResponseHook, PreRequestHook };
import { HOOK_NAMES, EVENT_NAMES, silentLogger } from '@fnapi/core/extend';

type Maybe<T> = T | undefined | void;

/** The callback type `registerHook` takes for each hook or event name. */
export type HookCallback<N extends HookName | EventName> = N extends 'preRequest'
  ? PreRequestHook
  : N extends 'postResponse'
    ? PostResponseHook
    : N extends 'onError'
      ? OnErrorHook
      : N extends 'onEvent'
        ? OnEventHook
        : EventCallback;

const KNOWN_NAMES: ReadonlySet<string> = new Set<HookName | EventName>([...HOOK_NAMES, ...EVENT_NAMES]);

/**
 * Base class of plugins. Subclasses return their metadata from `getMetadata()` and define any of
 * `preRequest(request)`, `postResponse(response, request)`, `onError(error, request)` and
 * `onEvent(event, payload)`; `initialize(api)` runs once, at registration (call
 * `super.initialize(api)` first when overriding it).
 */
export abstract class Plugin implements PluginLike {
  /** The app this plugin was registered with; set by `initialize`. */
  api!: API;
  /** The app's pino logger, as a child carrying `plugin: <name>`; set by `initialize`. */
  logger: Logger = silentLogger();

  private readonly hooks: [HookName | EventName, (...args: any[]) => unknown][] = [];

  abstract getMetadata(): PluginMetadata;

  preRequest?(request: Request): Maybe<Request> | Promise<Maybe<Request>>;
  postResponse?(
    response: Response,
    request: Request,
  ): Maybe<Response | globalThis.Response> | Promise<Maybe<Response | globalThis.Response>>;
  onError?(error: unknown, request: Request): Maybe<Response | globalThis.Response> | Promise<Maybe<Response | globalThis.Response>>;
  onEvent?(event: EventName, payload: Record<string, unknown>): unknown;

  /** Called once by `pluginManager.register`. */
  initialize(api: API): void {
    this.api = api;
    this.logger = api.logger.child({ plugin: this.getMetadata().name });
  }

  /**
   * Adds a callback to a hook (`preRequest`, `postResponse`, `onError`, `onEvent`) or to one event
   * (`server_started`, `response_sent`, …; the callback gets the payload). Callbacks added after
   * registration take effect at once.
   */
  registerHook<N extends HookName | EventName>(name: N, callback: HookCallback<N>): this {
    if (!KNOWN_NAMES.has(name)) throw new TypeError(`Unknown hook or event "${name}"`);
    if (typeof callback !== 'function') throw new TypeError(`The callback for "${name}" must be a function`);
    this.hooks.push([name, callback as (...args: any[]) => unknown]);
    const manager = this.api?.pluginManager;
    if (manager !== undefined && manager.get(this.getMetadata().name) === this) manager.refresh();
    return this;
  }

  /** The callbacks added with `registerHook`, read by the plugin manager. */
  registeredHooks(): Iterable<readonly [HookName | EventName, (...args: any[]) => unknown]> {
    return this.hooks;
  }
}
