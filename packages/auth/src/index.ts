export { jwtRequired, createToken, type JwtOptions, type CreateTokenOptions, type OAuth2PasswordFlow } from './jwt.js';
export { apiKeyRequired, type ApiKeyOptions } from './api-key.js';
export { basicAuthRequired, type BasicAuthOptions } from './basic.js';
export { anyOf } from './any-of.js';
export { optional, type OptionalAuthWrapper } from './optional.js';
export { passwordForm, type PasswordForm } from './password-form.js';
export type { AuthScheme, AuthWrapper, VerifiedCaller } from './scheme.js';
