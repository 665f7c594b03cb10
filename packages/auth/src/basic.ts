import type { AuthInfo, Request } from '@fnapi/core';
import {
  type AuthWrapper,
  authorization,
  authWrapper,
  digest,
  quoted,
  requirement,
  same,
  type SchemeNameOption,
  unauthorized,
  type VerifiedCaller,
  verified,
} from './scheme.js';

export interface BasicAuthOptions extends SchemeNameOption {
  /** User names and their passwords (or `verify` instead). */
  credentials?: Record<string, string> | undefined;
  /**
   * Checks a user name and password against a store instead of `credentials`: resolves to the caller
   * (`scheme` defaults to `basic`, `subject` to the user name), or `null` for 401. Comparing in
   * constant time is then the store's job.
   */
  verify?: ((user: string, password: string, request: Request) => VerifiedCaller | null | Promise<VerifiedCaller | null>) | undefined;
  /** `realm` of the challenge; default `api`. */
  realm?: string | undefined;
}

/**
 * HTTP Basic (RFC 7617) with UTF-8 credentials; a password may contain `:`. User and password are
 * compared as SHA-256 digests against every configured pair, in constant time and without stopping
 * early, so an unknown user takes as long to refuse as a wrong password. `request.auth.subject` is
 * the user name.
 */
export function basicAuthRequired(options: BasicAuthOptions): AuthWrapper {
  const verify = options?.verify;
  if (verify !== undefined) {
    if (typeof verify !== 'function')
      throw new TypeError('basicAuthRequired: verify must be a function (user, password, request) => caller | null');
    if (options.credentials !== undefined) throw new TypeError('basicAuthRequired: give credentials or verify, not both');
  } else if (!options?.credentials || typeof options.credentials !== 'object') {
    throw new TypeError('basicAuthRequired: give credentials: { [user]: password }, or verify: (user, password, request) => caller | null');
  }
  const realm = options.realm ?? 'api';
  const challenge = `Basic realm=${quoted(realm)}, charset="UTF-8"`;
  const pairs = Object.entries(options.credentials ?? {}).map(([user, password]) => {
    if (user.includes(':')) throw new TypeError(`basicAuthRequired: a user name cannot contain ":" (${JSON.stringify(user)})`);
    return { user, userDigest: digest(user), passwordDigest: digest(password) };
  });
  if (verify === undefined && pairs.length === 0) throw new TypeError('basicAuthRequired: credentials is empty, so no request could pass');

  return authWrapper(
    {
      challenge,
      security: [[requirement('basicAuth', { type: 'http', scheme: 'basic' }, options.schemeName)]],
      present: (request) => authorization(request, 'Basic') !== undefined,
      async authenticate(request: Request): Promise<AuthInfo> {
        const encoded = authorization(request, 'Basic');
        if (encoded === undefined) throw unauthorized('Credentials are required (HTTP Basic)', challenge);
        const decoded = /^[A-Za-z0-9+/]+={0,2}$/.test(encoded) ? decodeBase64(encoded) : '';
        const colon = decoded.indexOf(':');
        if (colon === -1) throw unauthorized('Malformed Basic credentials', challenge);
        if (verify !== undefined) {
          const user = decoded.slice(0, colon);
          const caller = verified(await verify(user, decoded.slice(colon + 1), request), 'basic', user, 'basicAuthRequired');
          if (caller === undefined) throw unauthorized('Invalid user name or password', challenge);
          return caller;
        }
        const userDigest = digest(decoded.slice(0, colon));
        const passwordDigest = digest(decoded.slice(colon + 1));
        let found: string | undefined;
        for (const pair of pairs) {
          // Both comparisons for every pair: no branch on which one failed, no early exit.
          const userMatches = same(pair.userDigest, userDigest);
          const passwordMatches = same(pair.passwordDigest, passwordDigest);
          if (userMatches && passwordMatches && found === undefined) found = pair.user;
        }
        if (found === undefined) throw unauthorized('Invalid user name or password', challenge);
        return { scheme: 'basic', subject: found };
      },
    },
    'basicAuthRequired',
  );
}

/** Base64 to UTF-8 text with the Web's `atob` (every runtime has it; Workers have no `Buffer`). */
function decodeBase64(encoded: string): string {
  try {
    const binary = atob(encoded);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return new TextDecoder().decode(bytes);
  } catch {
    return '';
  }
}
