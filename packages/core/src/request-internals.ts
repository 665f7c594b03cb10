/**
 * The key under which the serving runtime keeps a request's internals (its error policy: how a thrown
 * value becomes a response). A symbol, not a public member, so apps neither see nor set it.
 */
export const REQUEST_INTERNALS: unique symbol = Symbol('fnapi.requestInternals');
