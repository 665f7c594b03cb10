import type { Request } from '../http/request.js';
import type { Dependency } from './dependency-brand.js';
import type { AppScope } from './resolve.js';

/**
 * A test client's overrides (`TestClient.start(app, { overrides })`): its own scope of `'app'`
 * values, over the app's. Its requests are marked by the client's server, so clients in parallel
 * never see each other's replacements.
 */
export interface ClientOverrides {
  readonly scope: AppScope;
}

const marked = new WeakMap<Request, ClientOverrides>();
/** How many clients with overrides serve now: none, and a request costs no lookup. */
let clients = 0;

/** Marks a request as served for a client with overrides. */
export function markRequest(request: Request, overrides: ClientOverrides): void {
  marked.set(request, overrides);
}

/** The overrides of the client a request came from, if any. */
export function clientOverridesOf(request: Request): ClientOverrides | undefined {
  return clients === 0 ? undefined : marked.get(request);
}

/** Counts a client with overrides while it serves; the returned function ends its count. */
export function countClient(): () => void {
  clients++;
  let ended = false;
  return () => {
    if (!ended) clients--;
    ended = true;
  };
}

/** The key of `app[CLIENT_OVERRIDES](pairs)`, which a test client calls for its own overrides. */
export const CLIENT_OVERRIDES: unique symbol = Symbol.for('fnapi.clientOverrides') as never;

/** A replacement for a `Dependency<T>`: a dependency of the same type, or a function giving a `T`. */
export type Replacement<T> =
  | Dependency<T>
  | ((input: any, request: Request) => T | PromiseLike<T> | Generator<T, unknown, unknown> | AsyncGenerator<T, unknown, unknown>);

/** A test client's overrides and what ends them. */
export interface ClientOverridesHandle extends ClientOverrides {
  close(): Promise<void>;
}
