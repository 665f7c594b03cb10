import { anyOf, apiKeyRequired, basicAuthRequired, createToken, jwtRequired } from '@fnapi/auth';
import { API, UnauthorizedError, z } from '@fnapi/core';

export interface AuthExampleOptions {
  /** HS256 secret for the tokens the login endpoint issues; default from `JWT_SECRET`. */
  jwtSecret?: string;
  logger?: false;
}

/** Demo users and keys: a real app reads them from its store and its secret manager. */
const USERS: Record<string, string> = { ada: 'lovelace', grace: 'hopper' };
const API_KEYS = { 'demo-read-key': ['reports:read'], 'demo-admin-key': ['reports:read', 'reports:write'] };

/** One scheme per route: a login issuing JWTs, a JWT route, API keys with permissions, Basic. */
export function createApp(options: AuthExampleOptions = {}): API {
  const secret = options.jwtSecret ?? process.env.JWT_SECRET ?? 'change-me-this-is-only-a-demo-secret';
  const app = new API({
    title: 'fnapi auth example',
    servers: [{ url: '/', description: 'The server serving this document' }],
    description: 'JWT login, bearer-protected routes, API keys with permissions and HTTP Basic.',
    version: '1.0.0',
    logger: options.logger,
  });
  const bearer = jwtRequired({ secret, algorithm: 'HS256', issuer: 'fnapi-example' });

  app.post(
    '/login',
    {
      summary: 'Exchange a user name and password for a token',
      tags: ['auth'],
      params: { username: z.string(), password: z.string() },
      responses: { 401: 'Unknown user or wrong password' },
    },
    async function login({ username, password }) {
      // The demo compares plainly; a real app checks a password hash (argon2, scrypt) in constant time.
      if (USERS[username] === undefined || USERS[username] !== password) throw new UnauthorizedError('Unknown user or wrong password');
      const token = await createToken({ sub: username, iss: 'fnapi-example' }, { secret, algorithm: 'HS256', expiresIn: '1h' });
      return { access_token: token, token_type: 'Bearer', expires_in: 3600 };
    },
  );

  app.get(
    '/me',
    { summary: 'The caller, from a bearer token', tags: ['auth'] },
    bearer(function me(_input, request) {
      return { user: request.auth?.subject, claims: request.auth?.claims };
    }),
  );

  app.get(
    '/reports',
    { summary: 'Reports: API key with reports:read', tags: ['reports'] },
    apiKeyRequired({ apiKeys: API_KEYS, permissions: ['reports:read'] })(function listReports(_input, request) {
      return { reports: ['q1', 'q2'], permissions: request.auth?.permissions };
    }),
  );

  app.post(
    '/reports',
    {
      summary: 'Create a report: API key with reports:write, or a bearer token',
      tags: ['reports'],
      params: { name: z.string().min(1) },
      statusCode: 201,
    },
    anyOf(
      bearer,
      apiKeyRequired({ apiKeys: API_KEYS, permissions: ['reports:write'] }),
    )(function createReport({ name }, request) {
      return { name, createdBy: request.auth?.subject ?? request.auth?.scheme };
    }),
  );

  app.get(
    '/admin',
    { summary: 'HTTP Basic', tags: ['admin'] },
    basicAuthRequired({ credentials: USERS, realm: 'admin' })(function admin(_input, request) {
      return { admin: request.auth?.subject };
    }),
  );
  return app;
}
