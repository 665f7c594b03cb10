// Which request parts carry credentials: the one list every log and redaction uses.

/** Header names (lower-case) whose values are credentials. */
export const CREDENTIAL_HEADERS: readonly string[] = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key'];

const markedHeaders = new Set<string>();

/**
 * Marks a header as carrying credentials for the rest of the process (an auth function's own `header`,
 * such as `X-Service-Token`): every log that redacts the list above redacts it too.
 */
export function markCredentialHeader(name: string): void {
  const lower = name.toLowerCase();
  if (!CREDENTIAL_HEADERS.includes(lower)) markedHeaders.add(lower);
}

/** Whether a header's value is a credential (the list above, or marked by an auth function); case-insensitive. */
export function isCredentialHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return CREDENTIAL_HEADERS.includes(lower) || markedHeaders.has(lower);
}

/** Query parameters that carry credentials by common convention (API keys, OAuth tokens, signatures). */
export const CREDENTIAL_QUERY_PARAMS: readonly string[] = [
  'api_key',
  'apikey',
  'api-key',
  'key',
  'access_token',
  'token',
  'password',
  'secret',
  'signature',
  'sig',
];

const markedQueryParams = new Set<string>();

/**
 * Marks a query parameter as carrying credentials for the rest of the process (an auth function's
 * `queryParam`): every log that redacts the list above redacts it too.
 */
export function markCredentialQueryParam(name: string): void {
  const lower = name.toLowerCase();
  if (!CREDENTIAL_QUERY_PARAMS.includes(lower)) markedQueryParams.add(lower);
}

/** Whether a query parameter's value is a credential (the list above, or marked by an auth function); case-insensitive. */
export function isCredentialQueryParam(name: string): boolean {
  const lower = name.toLowerCase();
  return CREDENTIAL_QUERY_PARAMS.includes(lower) || markedQueryParams.has(lower);
}

/** Field names in logged objects (bodies, options) whose values are credentials. */
export const CREDENTIAL_FIELDS: readonly string[] = ['password', 'token', 'secret', 'apiKey', 'api_key'];
