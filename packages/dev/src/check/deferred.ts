/**
 * Deferred tasks (`request.defer`) run after the answer, so an answer never shows that one failed: the
 * check watches them through a plugin whose `preRequest` hook wraps each task a request defers. A
 * wrapped task runs as it would (synchronously when it returns no promise), and a failure is passed on
 * unchanged, so the app still logs it; the check also records it under the request's method and route.
 */

import type { Request } from '@fnapi/core';
import type { PluginLike } from '@fnapi/core/extend';

/** A deferred task that failed, by the operation whose request deferred it. */
export interface DeferredFailures {
  /** Tasks that threw or rejected. */
  failed: number;
  /** Their distinct messages, the first three. */
  errors: string[];
  /** The request that deferred the first of them, e.g. `POST /users?x=1`. */
  request: string;
}

type DeferringRequest = Pick<Request, 'method' | 'route' | 'url' | 'defer'>;

/** What the check needs of an app to watch its deferred tasks. */
export interface PluginHost {
  register(plugin: PluginLike): unknown;
  activate(plugin: PluginLike): unknown;
}

/** One watcher per app, registered once however many checks run on it. */
const watches = new WeakMap<PluginHost, DeferredWatch>();

export class DeferredWatch {
  /** The watcher of the app with these plugins (registered on first use), its failures cleared for a new run. */
  static on(host: PluginHost | undefined): DeferredWatch {
    let watch = host === undefined ? undefined : watches.get(host);
    if (watch === undefined) {
      watch = new DeferredWatch();
      if (host !== undefined) {
        const plugin = watch.plugin();
        host.register(plugin);
        host.activate(plugin);
        watches.set(host, watch);
      }
    }
    watch.failures.clear();
    return watch;
  }

  /** By `METHOD route` (the route template the request matched). */
  readonly failures = new Map<string, DeferredFailures>();
  private pending = 0;
  private idle: (() => void)[] = [];

  /** The plugin to register on the app. */
  plugin(): PluginLike {
    return {
      getMetadata: () => ({ name: 'fnapi-check-deferred', version: '1.0.0', description: 'fnapi check: failed deferred tasks' }),
      preRequest: (request: Request) => {
        this.watch(request);
      },
    };
  }

  /** Resolves once every deferred task started so far has settled, or after `ms`. */
  settled(ms: number): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.idle.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private watch(request: DeferringRequest): void {
    const defer = request.defer.bind(request);
    request.defer = (fn) => {
      if (typeof fn !== 'function') return defer(fn);
      this.pending++;
      defer(() => {
        let out: unknown;
        try {
          out = fn();
        } catch (error) {
          this.failed(request, error);
          this.done();
          throw error;
        }
        if (out !== null && typeof out === 'object' && typeof (out as PromiseLike<unknown>).then === 'function') {
          return Promise.resolve(out).then(
            (value) => {
              this.done();
              return value;
            },
            (error: unknown) => {
              this.failed(request, error);
              this.done();
              throw error;
            },
          );
        }
        this.done();
        return out;
      });
    };
  }

  private failed(request: DeferringRequest, error: unknown): void {
    const key = `${request.method} ${request.route ?? new URL(String(request.url)).pathname}`;
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    let entry = this.failures.get(key);
    if (entry === undefined) {
      const url = new URL(String(request.url));
      entry = { failed: 0, errors: [], request: `${request.method} ${url.pathname}${url.search}` };
      this.failures.set(key, entry);
    }
    entry.failed++;
    if (entry.errors.length < 3 && !entry.errors.includes(message)) entry.errors.push(message);
  }

  private done(): void {
    if (--this.pending === 0) for (const wake of this.idle.splice(0)) wake();
  }
}
