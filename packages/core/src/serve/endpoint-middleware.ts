import { assertMiddleware, type Middleware } from './pipeline.js';

const NONE: readonly Middleware[] = [];

/**
 * The endpoint option `middleware`, checked: a list of middleware objects or functions. Checked at
 * registration so a typo fails at startup, not on the first request.
 */
export function endpointMiddleware(options: { route?: unknown; middleware?: unknown }): readonly Middleware[] {
  const list = options.middleware;
  if (list === undefined) return NONE;
  if (!Array.isArray(list)) throw new TypeError(`Endpoint ${String(options.route)}: middleware must be an array of middleware`);
  for (const middleware of list) {
    try {
      assertMiddleware(middleware);
    } catch (error) {
      throw new TypeError(`Endpoint ${String(options.route)}: ${(error as Error).message}`);
    }
  }
  return list as readonly Middleware[];
}
