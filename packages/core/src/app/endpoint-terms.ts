import type { EndpointTerms } from '../serve/compile.js';
import type { DeclaredResponse } from '../serve/endpoint.js';
import { type DeprecationOptions, deprecationTerms } from '../http/deprecation.js';
import type { RouteEntry } from './route-group.js';
import { Router, type RouterEndpointDefaults } from './route-group.js';

/**
 * The endpoint's `responses`, `deprecated`, `sunset`, `deprecationLink` and `includeInSchema` with
 * its routers' (outermost first): the endpoint's own setting wins, then the innermost router's;
 * `responses` are merged by status the same way. Computed once, at registration.
 */
export function endpointTerms(entry: RouteEntry, where: string): EndpointTerms {
  const own = entry.definition.options;
  const merged: RouterEndpointDefaults = {};
  let responses: Record<number, DeclaredResponse> | undefined;
  for (const group of entry.routers) {
    if (!(group instanceof Router)) continue;
    const defaults = group.endpointDefaults;
    if (defaults.responses !== undefined) responses = { ...responses, ...defaults.responses };
    for (const key of ['deprecated', 'sunset', 'deprecationLink', 'includeInSchema'] as const) {
      if (defaults[key] !== undefined) (merged as Record<string, unknown>)[key] = defaults[key];
    }
  }
  if (own.responses !== undefined) responses = responses === undefined ? own.responses : { ...responses, ...own.responses };
  const options: DeprecationOptions = {
    deprecated: own.deprecated ?? merged.deprecated,
    sunset: own.sunset ?? merged.sunset,
    deprecationLink: own.deprecationLink ?? merged.deprecationLink,
  };
  // deprecationTerms makes a fresh object: completed in place rather than copied, once per endpoint.
  const terms = deprecationTerms(options, where) as EndpointTerms;
  terms.includeInSchema = (own.includeInSchema ?? merged.includeInSchema) !== false;
  terms.responses = responses;
  return terms;
}
