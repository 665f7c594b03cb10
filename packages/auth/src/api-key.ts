import type { AuthInfo, Request } from '@fnapi/core';
import { markCredentialHeader, markCredentialQueryParam, type SecurityRequirement } from '@fnapi/core/extend';
import {
  type AuthWrapper,
  authWrapper,
  cookieCredential,
  digest,
  forbidden,
  nameSuffix,
  placeRequirement,
  queryCredential,
  requirement,
  same,
  type SchemeNameOption,
  unauthorized,
  type VerifiedCaller,
  verified,
} from './scheme.js';

export interface ApiKeyOptions extends SchemeNameOption {
  /** Each accepted key and the permissions it carries (or `verify` instead). */
  apiKeys?: Record<string, readonly string[]> | undefined;
  /**
   * Checks a key against a store instead of `apiKeys`: resolves to the caller (`scheme` defaults to
   * `apiKey`; its `permissions` are what `permissions` is checked against), or `null` for 401.
   */
  verify?: ((key: string, request: Request) => VerifiedCaller | null | Promise<VerifiedCaller | null>) | undefined;
  /** Permissions the key must carry (all of them); a valid key without one is 403. */
  permissions?: readonly string[] | undefined;
  /**
   * Header that carries the key; default `X-API-Key`, unless `cookie` is given (then no header unless
   * named). Any name joins core's credential headers, so fnapi's logs redact its value.
   */
  header?: string | undefined;
  /** Cookie that carries the key (a browser session); read instead of a header, or beside `header` when both are given. */
  cookie?: string | undefined;
  /**
   * Query parameter that may carry the key instead. Off by default: URLs end up in access logs,
   * proxies and browser history (fnapi's own logs redact it).
   */
  queryParam?: string | undefined;
}

const CHALLENGE = 'ApiKey';

/**
 * An API key in a header, a cookie or (when enabled) a query parameter. Every configured key is
 * compared with the given one as SHA-256 digests in constant time, without stopping at a match, so
 * timing tells neither which key nor its length; with `verify`, the store decides.
 * `request.auth.permissions` is the key's list.
 */
export function apiKeyRequired(options: ApiKeyOptions): AuthWrapper {
  const verify = options?.verify;
  if (verify !== undefined) {
    if (typeof verify !== 'function') throw new TypeError('apiKeyRequired: verify must be a function (key, request) => caller | null');
    if (options.apiKeys !== undefined) throw new TypeError('apiKeyRequired: give apiKeys or verify, not both');
  } else if (!options?.apiKeys || typeof options.apiKeys !== 'object') {
    throw new TypeError('apiKeyRequired: give apiKeys: { [key]: permissions[] }, or verify: (key, request) => caller | null');
  }
  const { cookie, queryParam } = options;
  if (cookie !== undefined && (typeof cookie !== 'string' || cookie === ''))
    throw new TypeError('apiKeyRequired: cookie must be a cookie name');
  if (options.header !== undefined && (typeof options.header !== 'string' || options.header === ''))
    throw new TypeError('apiKeyRequired: header must be a header name');
  const header = options.header ?? (cookie === undefined ? 'X-API-Key' : undefined);
  const required = options.permissions ?? [];
  const keys = Object.entries(options.apiKeys ?? {}).map(([key, permissions]) => ({ digest: digest(key), permissions: [...permissions] }));
  if (verify === undefined && keys.length === 0) throw new TypeError('apiKeyRequired: apiKeys is empty, so no request could pass');
  if (header !== undefined) markCredentialHeader(header);
  if (queryParam) markCredentialQueryParam(queryParam);

  // Default names differ whenever definitions do: another header, cookie or parameter is part of the name.
  // An explicit schemeName names the first place read; the others get it with their place appended.
  const security: SecurityRequirement[][] = [];
  const chosen = (place: string) =>
    options.schemeName === undefined ? undefined : security.length === 0 ? options.schemeName : `${options.schemeName}${place}`;
  if (header !== undefined) {
    const headerName = header === 'X-API-Key' ? 'apiKeyHeader' : `apiKeyHeader_${nameSuffix(header)}`;
    security.push([requirement(headerName, { type: 'apiKey', in: 'header', name: header }, chosen('Header'))]);
  }
  if (cookie !== undefined) security.push([placeRequirement('cookie', cookie, chosen('Cookie'))]);
  if (queryParam) security.push([placeRequirement('query', queryParam, chosen('Query'))]);
  const places = [
    header === undefined ? undefined : `the ${header} header`,
    cookie === undefined ? undefined : `the ${cookie} cookie`,
    queryParam ? `the ${queryParam} query parameter` : undefined,
  ].filter((place) => place !== undefined);

  /** The key the request carries: the header's, else the cookie's, else the query parameter's. */
  const given = (request: Request): string | undefined => {
    let key = header === undefined ? undefined : (request.headers.get(header) ?? undefined);
    if ((key === undefined || key === '') && cookie !== undefined) key = cookieCredential(request, cookie);
    if ((key === undefined || key === '') && queryParam) key = queryCredential(request, queryParam);
    return key === '' ? undefined : key;
  };

  return authWrapper(
    {
      challenge: CHALLENGE,
      security,
      forbids: required.length > 0,
      present: (request) => given(request) !== undefined,
      async authenticate(request: Request): Promise<AuthInfo> {
        const key = given(request);
        if (key === undefined) throw unauthorized(`An API key is required in ${places.join(' or ')}`, CHALLENGE);
        let caller: AuthInfo | undefined;
        if (verify !== undefined) {
          caller = verified(await verify(key, request), 'apiKey', undefined, 'apiKeyRequired');
        } else {
          const candidate = digest(key);
          let match: (typeof keys)[number] | undefined;
          for (const entry of keys) {
            // No early exit: every key is compared, whatever matched.
            if (same(entry.digest, candidate) && match === undefined) match = entry;
          }
          if (match !== undefined) caller = { scheme: 'apiKey', permissions: match.permissions };
        }
        if (caller === undefined) throw unauthorized('The API key is not valid', CHALLENGE);
        const held = caller.permissions ?? [];
        const lacking = required.filter((permission) => !held.includes(permission));
        if (lacking.length > 0) throw forbidden('The API key lacks a required permission', { missing: lacking });
        return caller;
      },
    },
    'apiKeyRequired',
  );
}
