import type { AuthInfo, Request } from '@fnapi/core';
import type { SecurityRequirement } from '@fnapi/core/extend';
import {
  type AuthWrapper,
  authWrapper,
  digest,
  forbidden,
  nameSuffix,
  requirement,
  same,
  type SchemeNameOption,
  unauthorized,
} from './scheme.js';

export interface ApiKeyOptions extends SchemeNameOption {
  /** Each accepted key and the permissions it carries. */
  apiKeys: Record<string, readonly string[]>;
  /** Permissions the key must carry (all of them); a valid key without one is 403. */
  permissions?: readonly string[] | undefined;
  /** Header that carries the key; default `X-API-Key`. */
  header?: string | undefined;
  /**
   * Query parameter that may carry the key instead. Off by default: URLs end up in access logs,
   * proxies and browser history.
   */
  queryParam?: string | undefined;
}

const CHALLENGE = 'ApiKey';

/**
 * An API key in a header (or, when enabled, a query parameter). Every configured key is compared
 * with the given one as SHA-256 digests in constant time, without stopping at a match, so timing
 * tells neither which key nor its length. `request.auth.permissions` is the key's list.
 */
export function apiKeyRequired(options: ApiKeyOptions): AuthWrapper {
  if (!options?.apiKeys || typeof options.apiKeys !== 'object')
    throw new TypeError('apiKeyRequired: give apiKeys: { [key]: permissions[] }');
  const header = options.header ?? 'X-API-Key';
  const required = options.permissions ?? [];
  const keys = Object.entries(options.apiKeys).map(([key, permissions]) => ({ digest: digest(key), permissions: [...permissions] }));
  if (keys.length === 0) throw new TypeError('apiKeyRequired: apiKeys is empty, so no request could pass');
  // Default names differ whenever definitions do: another header or parameter is part of the name.
  const headerName = header === 'X-API-Key' ? 'apiKeyHeader' : `apiKeyHeader_${nameSuffix(header)}`;
  const security: SecurityRequirement[][] = [[requirement(headerName, { type: 'apiKey', in: 'header', name: header }, options.schemeName)]];
  if (options.queryParam) {
    const queryName = options.queryParam === 'api_key' ? 'apiKeyQuery' : `apiKeyQuery_${nameSuffix(options.queryParam)}`;
    const chosen = options.schemeName === undefined ? undefined : `${options.schemeName}Query`;
    security.push([requirement(queryName, { type: 'apiKey', in: 'query', name: options.queryParam }, chosen)]);
  }

  return authWrapper(
    {
      challenge: CHALLENGE,
      security,
      forbids: required.length > 0,
      async authenticate(request: Request): Promise<AuthInfo> {
        let given = request.headers.get(header) ?? undefined;
        if (given === undefined && options.queryParam) given = request.queryParams.get(options.queryParam) ?? undefined;
        if (given === undefined || given === '') throw unauthorized(`An API key is required in the ${header} header`, CHALLENGE);
        const candidate = digest(given);
        let match: (typeof keys)[number] | undefined;
        for (const key of keys) {
          // No early exit: every key is compared, whatever matched.
          if (same(key.digest, candidate) && match === undefined) match = key;
        }
        if (match === undefined) throw unauthorized('The API key is not valid', CHALLENGE);
        const lacking = required.filter((permission) => !match.permissions.includes(permission));
        if (lacking.length > 0) throw forbidden('The API key lacks a required permission', { missing: lacking });
        return { scheme: 'apiKey', permissions: match.permissions };
      },
    },
    'apiKeyRequired',
  );
}
