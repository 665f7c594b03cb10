import type { Logger } from '../platform/logger.js';
import type { Request } from '../http/request.js';
import type { Response } from '../http/response.js';
import { asResponse } from './pipeline.js';
import { Request as RequestClass } from '../http/request.js';

export interface PluginMetadata {
  name: string;
  version: string;
  description?: string;
  /** Names of plugins that must be registered first. */
  dependencies?: string[];
}

/** The events the app emits to plugins, in the order of a server's life. */
export const EVENT_NAMES = [
  'plugin_registered',
  'plugin_activated',
  'plugin_deactivated',
  'endpoint_registered',
  'server_starting',
  'server_started',
  'server_stopping',
  'server_stopped',
  'request_received',
  'response_sent',
  'error_occurred',
] as const;

/** The hooks a plugin may define. */
export const HOOK_NAMES = ['preRequest', 'postResponse', 'onError', 'onEvent'] as const;

export type EventName = (typeof EVENT_NAMES)[number];
export type HookName = (typeof HOOK_NAMES)[number];

/** Events emitted for every request: a listener to one of them puts requests on the hooked path. */
const REQUEST_EVENTS: ReadonlySet<EventName> = new Set(['request_received', 'response_sent']);

type Maybe<T> = T | undefined | void;
export type PreRequestHook = (request: Request) => Maybe<Request> | Promise<Maybe<Request>>;
export type PostResponseHook = (
  response: Response,
  request: Request,
) => Maybe<Response | globalThis.Response> | Promise<Maybe<Response | globalThis.Response>>;
export type OnErrorHook = (
  error: unknown,
  request: Request,
) => Maybe<Response | globalThis.Response> | Promise<Maybe<Response | globalThis.Response>>;
export type OnEventHook = (event: EventName, payload: Record<string, unknown>) => unknown;
export type EventCallback = (payload: Record<string, unknown>) => unknown;

/**
 * What the plugin manager needs of a plugin. `@fnapi/plugins` has the `Plugin` base class; any object
 * of this shape works.
 */
export interface PluginLike {
  getMetadata(): PluginMetadata;
  initialize?(api: unknown): void;
  preRequest?: PreRequestHook;
  postResponse?: PostResponseHook;
  onError?: OnErrorHook;
  onEvent?: OnEventHook;
  /** Callbacks added with `registerHook(name, callback)`, by hook or event name. */
  registeredHooks?(): Iterable<readonly [HookName | EventName, (...args: any[]) => unknown]>;
}

interface Entry {
  plugin: PluginLike;
  metadata: PluginMetadata;
  active: boolean;
}

interface Tagged<F> {
  fn: F;
  plugin: string;
}

/**
 * Registers plugins and keeps, per hook, the list of callbacks of the active ones, rebuilt when
 * plugins change; a request with no plugins pays one length check.
 */
export class PluginManager {
  private readonly entries = new Map<string, Entry>();
  private preRequestHooks: Tagged<PreRequestHook>[] = [];
  private postResponseHooks: Tagged<PostResponseHook>[] = [];
  private onErrorHooks: Tagged<OnErrorHook>[] = [];
  private eventHooks: Tagged<OnEventHook>[] = [];
  private namedEventHooks = new Map<EventName, Tagged<EventCallback>[]>();
  /**
   * True when any active plugin has a request hook or listens to a per-request event; the app skips
   * all hook work otherwise. Computed when plugins change, not per request.
   */
  hasRequestHooks = false;
  hasErrorHooks = false;
  hasEventListeners = false;

  constructor(
    private readonly api: unknown,
    private readonly logger: () => Logger,
  ) {}

  get plugins(): PluginLike[] {
    return [...this.entries.values()].map((e) => e.plugin);
  }

  get(name: string): PluginLike | undefined {
    return this.entries.get(name)?.plugin;
  }

  isActive(nameOrPlugin: string | PluginLike): boolean {
    return this.find(nameOrPlugin)?.active ?? false;
  }

  /** Registers and initializes a plugin; it is active from then on. */
  register(plugin: PluginLike): this {
    if (typeof plugin?.getMetadata !== 'function') throw new TypeError('A plugin has getMetadata() returning { name, version }');
    const metadata = plugin.getMetadata();
    if (!metadata?.name) throw new TypeError('Plugin metadata needs a name');
    if (this.entries.has(metadata.name)) throw new Error(`A plugin named "${metadata.name}" is already registered`);
    const missing = (metadata.dependencies ?? []).filter((d) => !this.entries.has(d));
    if (missing.length > 0) {
      throw new Error(
        `Plugin "${metadata.name}" depends on ${missing.map((m) => `"${m}"`).join(', ')}: register ${missing.length > 1 ? 'them' : 'it'} first`,
      );
    }
    plugin.initialize?.(this.api);
    this.entries.set(metadata.name, { plugin, metadata, active: true });
    this.refresh();
    this.emit('plugin_registered', { name: metadata.name });
    return this;
  }

  activate(nameOrPlugin: string | PluginLike): this {
    const entry = this.require(nameOrPlugin);
    if (entry.active) return this;
    entry.active = true;
    this.refresh();
    this.emit('plugin_activated', { name: entry.metadata.name });
    return this;
  }

  deactivate(nameOrPlugin: string | PluginLike): this {
    const entry = this.require(nameOrPlugin);
    if (!entry.active) return this;
    this.emit('plugin_deactivated', { name: entry.metadata.name });
    entry.active = false;
    this.refresh();
    return this;
  }

  /** Rebuilds the per-hook lists; plugins call it when they add hooks after registration. */
  refresh(): void {
    const pre: Tagged<PreRequestHook>[] = [];
    const post: Tagged<PostResponseHook>[] = [];
    const onError: Tagged<OnErrorHook>[] = [];
    const events: Tagged<OnEventHook>[] = [];
    const named = new Map<EventName, Tagged<EventCallback>[]>();
    for (const { plugin, metadata, active } of this.entries.values()) {
      if (!active) continue;
      const name = metadata.name;
      if (typeof plugin.preRequest === 'function') pre.push({ fn: plugin.preRequest.bind(plugin), plugin: name });
      if (typeof plugin.postResponse === 'function') post.push({ fn: plugin.postResponse.bind(plugin), plugin: name });
      if (typeof plugin.onError === 'function') onError.push({ fn: plugin.onError.bind(plugin), plugin: name });
      if (typeof plugin.onEvent === 'function') events.push({ fn: plugin.onEvent.bind(plugin), plugin: name });
      for (const [hook, fn] of plugin.registeredHooks?.() ?? []) {
        switch (hook) {
          case 'preRequest':
            pre.push({ fn: fn as PreRequestHook, plugin: name });
            break;
          case 'postResponse':
            post.push({ fn: fn as PostResponseHook, plugin: name });
            break;
          case 'onError':
            onError.push({ fn: fn as OnErrorHook, plugin: name });
            break;
          case 'onEvent':
            events.push({ fn: fn as OnEventHook, plugin: name });
            break;
          default: {
            const list = named.get(hook) ?? [];
            list.push({ fn: fn as EventCallback, plugin: name });
            named.set(hook, list);
          }
        }
      }
    }
    this.preRequestHooks = pre;
    this.postResponseHooks = post.reverse();
    this.onErrorHooks = onError;
    this.eventHooks = events;
    this.namedEventHooks = named;
    this.hasEventListeners = events.length > 0 || named.size > 0;
    this.hasErrorHooks = onError.length > 0;
    this.hasRequestHooks =
      pre.length > 0 || post.length > 0 || events.length > 0 || [...named.keys()].some((event) => REQUEST_EVENTS.has(event));
  }

  /** Whether anyone listens to this event (so a caller can skip building its payload). */
  listens(event: EventName): boolean {
    return this.eventHooks.length > 0 || this.namedEventHooks.has(event);
  }

  /** Runs `preRequest` hooks in registration order; each may replace the request. */
  async preRequest(request: Request): Promise<Request> {
    let current = request;
    for (const hook of this.preRequestHooks) {
      try {
        const result = await hook.fn(current);
        if (result instanceof RequestClass) current = result;
      } catch (error) {
        this.hookFailed(hook.plugin, 'preRequest', error);
      }
    }
    return current;
  }

  /** Runs `postResponse` hooks in reverse registration order; each may replace the response. */
  async postResponse(response: Response, request: Request): Promise<Response> {
    let current = response;
    for (const hook of this.postResponseHooks) {
      try {
        const result = await hook.fn(current, request);
        if (result !== undefined && result !== null) current = asResponse(result, `plugin "${hook.plugin}" postResponse`);
      } catch (error) {
        this.hookFailed(hook.plugin, 'postResponse', error);
      }
    }
    return current;
  }

  /** Offers an error to `onError` hooks; the first Response returned answers the request. */
  async onError(error: unknown, request: Request): Promise<Response | undefined> {
    for (const hook of this.onErrorHooks) {
      try {
        const result = await hook.fn(error, request);
        if (result !== undefined && result !== null) return asResponse(result, `plugin "${hook.plugin}" onError`);
      } catch (hookError) {
        this.hookFailed(hook.plugin, 'onError', hookError);
      }
    }
    return undefined;
  }

  /** Delivers an event to every active plugin; never waits for them and never throws. */
  emit(event: EventName, payload: Record<string, unknown>): void {
    for (const hook of this.eventHooks) this.deliver(hook.plugin, event, () => hook.fn(event, payload));
    const named = this.namedEventHooks.get(event);
    if (named) for (const hook of named) this.deliver(hook.plugin, event, () => hook.fn(payload));
  }

  private deliver(plugin: string, event: EventName, call: () => unknown): void {
    try {
      const result = call();
      if (result instanceof Promise) result.catch((error) => this.hookFailed(plugin, `onEvent(${event})`, error));
    } catch (error) {
      this.hookFailed(plugin, `onEvent(${event})`, error);
    }
  }

  private hookFailed(plugin: string, hook: string, error: unknown): void {
    this.logger().error({ err: error, plugin, hook }, `plugin "${plugin}" failed in ${hook}; skipped`);
  }

  private find(nameOrPlugin: string | PluginLike): Entry | undefined {
    if (typeof nameOrPlugin === 'string') return this.entries.get(nameOrPlugin);
    for (const entry of this.entries.values()) if (entry.plugin === nameOrPlugin) return entry;
    return undefined;
  }

  private require(nameOrPlugin: string | PluginLike): Entry {
    const entry = this.find(nameOrPlugin);
    if (!entry) {
      const name = typeof nameOrPlugin === 'string' ? nameOrPlugin : nameOrPlugin.getMetadata?.().name;
      throw new Error(`Plugin "${name}" is not registered; register it first`);
    }
    return entry;
  }
}
