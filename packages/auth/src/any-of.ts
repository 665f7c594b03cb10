import { type AuthInfo, ForbiddenError, HTTPError, type Request, UnauthorizedError } from '@fnapi/core';
import { type AuthWrapper, authWrapper } from './scheme.js';

/**
 * Accepts a request that any of the given schemes accepts; the first that does fills
 * `request.auth`. When none does: 403 if one recognised the caller but lacked a permission, else 401
 * with every scheme's challenge. The document lists each scheme as a separate security requirement.
 */
export function anyOf(...wrappers: AuthWrapper[]): AuthWrapper {
  if (wrappers.length === 0) throw new TypeError('anyOf() takes at least one auth function');
  const schemes = wrappers.map((wrapper) => {
    if (!wrapper?.scheme) throw new TypeError('anyOf() takes jwtRequired(…), apiKeyRequired(…), basicAuthRequired(…) or anyOf(…)');
    if (wrapper.scheme.optional)
      throw new TypeError('anyOf() takes required schemes: write optional(anyOf(…)) to let requests without credentials in');
    return wrapper.scheme;
  });
  const presence = schemes.map((scheme) => scheme.present?.bind(scheme));
  const challenge = [...new Set(schemes.map((scheme) => scheme.challenge))].join(', ');
  return authWrapper(
    {
      challenge,
      security: schemes.flatMap((scheme) => scheme.security),
      forbids: schemes.some((scheme) => scheme.forbids),
      ...(presence.every((present) => present !== undefined)
        ? { present: (request: Request) => presence.some((present) => present!(request)) }
        : {}),
      async authenticate(request: Request): Promise<AuthInfo | undefined> {
        let refusedPermission: ForbiddenError | undefined;
        for (const scheme of schemes) {
          try {
            return await scheme.authenticate(request);
          } catch (error) {
            if (error instanceof ForbiddenError) refusedPermission ??= error;
            else if (!(error instanceof UnauthorizedError) && !(error instanceof HTTPError && error.statusCode === 401)) throw error;
          }
        }
        if (refusedPermission) throw refusedPermission;
        throw new UnauthorizedError('Credentials are required: any of the accepted schemes', undefined, {
          headers: { 'www-authenticate': challenge },
        });
      },
    },
    'anyOf',
  );
}
