/**
 * The extension point: `app.extend(extension)` attaches once and refuses the same extension twice or
 * an app that has started; `provide`/`provided` leave and find a capability by its key's name; a
 * middleware with `attach` is attached when it is added to an app, not to a router.
 */
import { describe, expect, it } from 'vitest';
import { API, type CallNext, type Request, Router } from '@fnapi/core';
import { extensionKey, METRICS_REGISTRY, provide, provided, WORKER_RUNTIME } from '@fnapi/core/extend';

/** An extension that registers an endpoint and a startup hook, and records each app it was attached to. */
function greeter() {
  const attachedTo: API[] = [];
  const extension = {
    attachedTo,
    attach(app: API) {
      attachedTo.push(app);
      app.get('/greeting', () => ({ hello: 'extension' }));
    },
  };
  return extension;
}

describe('app.extend', () => {
  it('calls attach once, with the app, and returns the app; what attach registered is served', async () => {
    const app = new API({ logger: false });
    const extension = greeter();
    expect(app.extend(extension)).toBe(app);
    expect(extension.attachedTo).toEqual([app]);
    const res = await app.inject({ method: 'GET', url: '/greeting' });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ hello: 'extension' });
  });

  it('refuses the same extension twice without attaching it again; another one is taken', () => {
    const app = new API({ logger: false });
    const first = greeter();
    app.extend(first);
    expect(() => app.extend(first)).toThrow(/attached already/);
    expect(first.attachedTo).toHaveLength(1);
    const other = { attached: 0, attach: () => other.attached++ };
    app.extend(other);
    expect(other.attached).toBe(1);
  });

  it('the same extension may extend two apps, once each', () => {
    const extension = greeter();
    const one = new API({ logger: false }).extend(extension);
    const two = new API({ logger: false }).extend(extension);
    expect(extension.attachedTo).toEqual([one, two]);
  });

  it('refuses to extend an app once startup has begun, and does not attach', async () => {
    const app = new API({ logger: false });
    const during = greeter();
    let duringError: unknown;
    app.onStartup(() => {
      // In the very first callback, before anything was awaited: startup has begun all the same.
      try {
        app.extend(during);
      } catch (error) {
        duringError = error;
      }
    });
    await app.startup();
    expect((duringError as Error | undefined)?.message).toMatch(/after startup/);
    const late = greeter();
    expect(() => app.extend(late)).toThrow(/after startup/);
    expect(during.attachedTo).toEqual([]);
    expect(late.attachedTo).toEqual([]);
    await app.shutdown();
  });
});

describe('provide and provided', () => {
  it('leave a capability on one app, found by a key of the same name', () => {
    const app = new API({ logger: false });
    const other = new API({ logger: false });
    const key = extensionKey<{ size: number }>('test.capability');
    expect(provided(app, key)).toBeUndefined();
    const value = { size: 3 };
    provide(app, key, value);
    expect(provided(app, key)).toBe(value);
    // Another copy of a package makes its own key object: the name is what counts.
    expect(provided(app, extensionKey<{ size: number }>('test.capability'))).toBe(value);
    expect(provided(app, extensionKey('test.other'))).toBeUndefined();
    expect(provided(other, key)).toBeUndefined();
  });

  it('the last value provided under a key is the one found; core names the shared keys', () => {
    const app = new API({ logger: false });
    const runtime = { run: async () => 'ran' };
    provide(app, WORKER_RUNTIME, { run: async () => 'first' });
    provide(app, WORKER_RUNTIME, runtime);
    expect(provided(app, WORKER_RUNTIME)).toBe(runtime);
    expect(WORKER_RUNTIME.name).not.toBe(METRICS_REGISTRY.name);
  });

  it('provided on something that is no app finds nothing', () => {
    expect(provided({} as never, WORKER_RUNTIME)).toBeUndefined();
  });
});

describe('a middleware with attach', () => {
  class Leaves {
    attached = 0;
    static readonly key = extensionKey<Leaves>('test.leaves');
    dispatch(request: Request, callNext: CallNext) {
      return callNext(request);
    }
    attach(app: API) {
      this.attached++;
      provide(app, Leaves.key, this);
    }
  }

  it('is attached once when added to an app, however often it is added', async () => {
    const app = new API({ logger: false });
    const middleware = new Leaves();
    app.addMiddleware(middleware);
    app.addMiddleware(middleware);
    expect(middleware.attached).toBe(1);
    expect(provided(app, Leaves.key)).toBe(middleware);
    // It is attached as an extension: extending with it again is the same extension twice.
    expect(() => app.extend(middleware)).toThrow(/attached already/);
    app.get('/ok', () => 'ok');
    expect((await app.inject({ method: 'GET', url: '/ok' })).status).toBe(200);
  });

  it('is not attached when added to a router', () => {
    const router = new Router({ prefix: '/r' });
    const middleware = new Leaves();
    router.addMiddleware(middleware);
    const app = new API({ logger: false });
    app.includeRouter(router);
    expect(middleware.attached).toBe(0);
    expect(provided(app, Leaves.key)).toBeUndefined();
  });
});
