import type { AsyncLocalStorage } from 'node:async_hooks';
import { nodeBuiltin } from './platform.js';

// Made on the first `runWithSignal`, from the runtime's built-in module: an app that never runs work
// under a signal loads nothing, and a runtime without async_hooks runs the work without one.
let storage: AsyncLocalStorage<AbortSignal> | null | undefined;

function signalStorage(): AsyncLocalStorage<AbortSignal> | null {
  if (storage === undefined) {
    const hooks = nodeBuiltin('node:async_hooks');
    storage = hooks === undefined ? null : new hooks.AsyncLocalStorage<AbortSignal>();
  }
  return storage;
}

/**
 * Runs `fn` with `signal` as the ambient signal of the work it starts, through every `await`: work
 * that borrows (a `ConnectionPool` connection) gives it back when the signal aborts, though `fn`
 * never passed the signal on. Health checks run under their timeout this way.
 */
export function runWithSignal<T>(signal: AbortSignal, fn: () => T): T {
  const store = signalStorage();
  return store === null ? fn() : store.run(signal, fn);
}

/** The ambient signal of the work under way (see `runWithSignal`), if any. */
export function currentSignal(): AbortSignal | undefined {
  return storage?.getStore();
}
