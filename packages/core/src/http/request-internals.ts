import type { EdgeSettings } from '../platform/proxy-trust.js';
import type { Logger } from '../platform/logger.js';

/** The key of a request's internals: a symbol, not a public member, so apps neither see nor set them. */
export const REQUEST_INTERNALS: unique symbol = Symbol('fnapi.requestInternals');

/**
 * What the runtime serving a request hands it: one object per compiled runtime, shared by its
 * requests (one store per request). `serve/funnel.ts` adds the error policy.
 */
export interface RequestInternals {
  /** The app's `requestIdHeader` and `trustProxy`. */
  readonly edge: EdgeSettings;
  /** The app's logger (made on first use). */
  readonly logger: Logger;
  /** Limits read per request (uploads). */
  readonly limits: {
    readonly uploadLimit?: number;
    readonly maxFiles?: number;
    readonly uploadTimeout?: number;
    readonly headersTimeout?: number;
  };
  /** The app's runtime: what its requests' deferred and kept work is counted under, for its drain. */
  readonly owner: object;
  /** Browser origins allowed to open the app's WebSockets besides a request's own (`wsOrigins`). */
  readonly wsOrigins: readonly string[];
}
