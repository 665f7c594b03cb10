// Which request parts carry credentials: the one list every log and redaction uses.

/** Header names (lower-case) whose values are credentials. */
export const CREDENTIAL_HEADERS: readonly string[] = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key'];

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

/** Field names in logged objects (bodies, options) whose values are credentials. */
export const CREDENTIAL_FIELDS: readonly string[] = ['password', 'token', 'secret', 'apiKey', 'api_key'];
