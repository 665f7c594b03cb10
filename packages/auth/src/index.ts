export { jwtRequired, createToken, type JwtOptions, type CreateTokenOptions } from './jwt.js';
export { apiKeyRequired, type ApiKeyOptions } from './api-key.js';
export { basicAuthRequired, type BasicAuthOptions } from './basic.js';
export { anyOf } from './any-of.js';
export type { AuthScheme, AuthWrapper } from './scheme.js';
