import { z } from '@fnapi/core';

/**
 * The form of OAuth2's password grant (RFC 6749 §4.3.2), for `form(passwordForm)` in a token endpoint,
 * as FastAPI's `OAuth2PasswordRequestForm`: `username`, `password`, `scope` split into a list (`[]`
 * when absent), `grant_type` absent or `'password'`, and the optional client credentials that Swagger
 * UI's Authorize form may send in the body. The endpoint answers `{ access_token, token_type: 'bearer' }`.
 */
export const passwordForm = z.object({
  grant_type: z.literal('password').optional().describe('Must be "password" when given'),
  username: z.string(),
  password: z.string().meta({ format: 'password' }),
  scope: z
    .string()
    .default('')
    .describe('Requested scopes, separated by spaces')
    .transform((scope) => scope.split(' ').filter((name) => name !== '')),
  client_id: z.string().optional(),
  client_secret: z.string().meta({ format: 'password' }).optional(),
});

/** What `form(passwordForm)` gives the handler. */
export type PasswordForm = z.output<typeof passwordForm>;
