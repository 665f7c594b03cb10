import type { Request } from '@fnapi/core';
import { type AuthWrapper, authWrapper } from './scheme.js';

/** A guard made by `optional()`: its caller is `AuthInfo | undefined`. */
export interface OptionalAuthWrapper extends AuthWrapper {
  readonly optional: true;
}

/**
 * Lets a request without a credential of the guard's scheme through, with `request.auth` undefined
 * (FastAPI's `auto_error=False`); a credential that is present is checked as the guard checks it, so
 * a wrong one is still 401 (or 403). The document lists the scheme and an empty requirement beside it.
 */
export function optional(guard: AuthWrapper): OptionalAuthWrapper {
  const scheme = guard?.scheme;
  if (!scheme) throw new TypeError('optional() takes jwtRequired(…), apiKeyRequired(…), basicAuthRequired(…) or anyOf(…)');
  if (scheme.optional) return guard as OptionalAuthWrapper;
  const present = scheme.present?.bind(scheme);
  if (present === undefined)
    throw new TypeError('optional(): this scheme cannot tell whether a request carries a credential (it has no present())');
  const wrapper = authWrapper(
    {
      challenge: scheme.challenge,
      // The empty requirement says "or none" in the document.
      security: [...scheme.security, []],
      forbids: scheme.forbids,
      optional: true,
      present,
      authenticate: async (request: Request) => (present(request) ? scheme.authenticate(request) : undefined),
    },
    'optional',
  );
  Object.defineProperty(wrapper, 'optional', { value: true });
  return wrapper as OptionalAuthWrapper;
}
