/**
 * OAuth2's password flow with scopes, ported from FastAPI's security tutorial (OAuth2 scopes): a token
 * endpoint reading `form(passwordForm)`, a guard documented as the password flow, and endpoints that
 * require scopes. FastAPI's "Not enough permissions" is 401 there; here a valid token without a
 * scope is 403 `insufficient_scope` (RFC 6750 §3.1), as the contract says.
 */
import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';
import { API, BadRequestError, form, type Request, UnauthorizedError } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken, jwtRequired, passwordForm } from '../src/index.js';

const SECRET = '09d25e094faa6ca2556c818166b7a9563b93f7099f6f0f4caa6cf63b88e8d3e7';
const ALGORITHM = 'HS256';

function hashPassword(password: string): string {
  const salt = randomBytes(16);
  return `${salt.toString('hex')}:${scryptSync(password, salt, 32).toString('hex')}`;
}
function verifyPassword(password: string, hashed: string): boolean {
  const [salt, hash] = hashed.split(':') as [string, string];
  return timingSafeEqual(scryptSync(password, Buffer.from(salt, 'hex'), 32), Buffer.from(hash, 'hex'));
}

interface User {
  username: string;
  full_name: string;
  email: string;
  disabled: boolean;
  hashed_password: string;
}
const users: Record<string, User> = {
  johndoe: {
    username: 'johndoe',
    full_name: 'John Doe',
    email: 'johndoe@example.com',
    disabled: false,
    hashed_password: hashPassword('secret'),
  },
  alice: {
    username: 'alice',
    full_name: 'Alice Chains',
    email: 'alicechains@example.com',
    disabled: true,
    hashed_password: hashPassword('secret2'),
  },
};

const flow = { tokenUrl: '/token', scopes: { me: 'Read information about the current user.', items: 'Read items.' } };
const base = { secret: SECRET, algorithm: ALGORITHM, oauth2: flow } as const;
const signedIn = jwtRequired(base);
const readsMe = jwtRequired({ ...base, scopes: ['me'] });
const readsItems = jwtRequired({ ...base, scopes: ['me', 'items'] });

/** The user the token names (FastAPI's get_current_user / get_current_active_user). */
function activeUser(request: Request): Omit<User, 'hashed_password'> {
  const user = request.auth?.subject === undefined ? undefined : users[request.auth.subject];
  if (!user) throw new UnauthorizedError('Could not validate credentials', undefined, { headers: { 'www-authenticate': 'Bearer' } });
  if (user.disabled) throw new BadRequestError('Inactive user');
  const { hashed_password: _, ...shown } = user;
  return shown;
}

const token = (claims: Record<string, unknown>) => createToken(claims, { secret: SECRET, algorithm: ALGORITHM, expiresIn: '30m' });
const bearer = (value: string) => ({ headers: { authorization: `Bearer ${value}` } });

describe('OAuth2 password flow with scopes (FastAPI security tutorial, OAuth2 scopes)', () => {
  let client: TestClient;
  beforeAll(async () => {
    const app = new API({ logger: false });
    app.post('/token', { params: { login: form(passwordForm) } }, async ({ login }) => {
      const user = users[login.username];
      if (!user || !verifyPassword(login.password, user.hashed_password)) throw new BadRequestError('Incorrect username or password');
      return { access_token: await token({ sub: user.username, scope: login.scope.join(' ') }), token_type: 'bearer' };
    });
    app.get(
      '/users/me/',
      readsMe((_input, request) => activeUser(request)),
    );
    app.get(
      '/users/me/items/',
      readsItems((_input, request) => [{ item_id: 'Foo', owner: activeUser(request).username }]),
    );
    app.get(
      '/status/',
      signedIn(() => ({ status: 'ok' })),
    );
    client = await TestClient.start(app);
  });
  afterAll(() => client?.close());

  const login = (fields: Record<string, string>) => client.post('/token', { form: new URLSearchParams(fields) });

  it('test_login: the token endpoint answers an access token of type bearer', async () => {
    const response = await login({ username: 'johndoe', password: 'secret' });
    expect(response.status).toBe(200);
    const content = response.json<{ access_token: string; token_type: string }>();
    expect(content.token_type).toBe('bearer');
    expect(content.access_token.split('.')).toHaveLength(3);
  });

  it('test_login_incorrect_password and test_login_incorrect_username: 400', async () => {
    for (const fields of [
      { username: 'johndoe', password: 'incorrect' },
      { username: 'foo', password: 'secret' },
    ]) {
      const response = await login(fields);
      expect(response.status).toBe(400);
      expect(response.json<{ detail: string }>().detail).toBe('Incorrect username or password');
    }
  });

  it('the form: scope split into a list, grant_type absent or "password", username and password required', async () => {
    const scoped = await login({ grant_type: 'password', username: 'johndoe', password: 'secret', scope: 'me  items' });
    expect(scoped.status).toBe(200);
    const accessToken = scoped.json<{ access_token: string }>().access_token;
    const claims = JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString()) as { scope: string };
    expect(claims.scope).toBe('me items');
    const wrongGrant = await login({ grant_type: 'client_credentials', username: 'johndoe', password: 'secret' });
    expect(wrongGrant.status).toBe(422);
    expect(wrongGrant.json<{ errors: { path: string[] }[] }>().errors.map((error) => error.path)).toEqual([['grant_type']]);
    const missing = await login({ scope: 'me' });
    expect(missing.status).toBe(422);
    expect(
      missing
        .json<{ errors: { path: string[]; code: string }[] }>()
        .errors.map((error) => [error.path.join('.'), error.code])
        .sort(),
    ).toEqual([
      ['password', 'missing'],
      ['username', 'missing'],
    ]);
    // Swagger UI sends the grant as a form; multipart is read too.
    const multipart = new FormData();
    multipart.set('username', 'johndoe');
    multipart.set('password', 'secret');
    expect((await client.post('/token', { form: multipart })).status).toBe(200);
    // A JSON body is not a form.
    expect((await client.post('/token', { json: { username: 'johndoe', password: 'secret' } })).status).toBe(415);
  });

  it('test_no_token: 401 with a Bearer challenge', async () => {
    const response = await client.get('/users/me/');
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="api"');
  });

  it('test_token: a token with the "me" scope reads the user', async () => {
    const response = await client.get('/users/me/', bearer(await token({ sub: 'johndoe', scope: 'me' })));
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({ username: 'johndoe', full_name: 'John Doe', email: 'johndoe@example.com', disabled: false });
  });

  it('test_incorrect_token and test_incorrect_token_type: 401', async () => {
    const incorrect = await client.get('/users/me/', bearer('nonexistenttoken'));
    expect(incorrect.status).toBe(401);
    expect(incorrect.headers['www-authenticate']).toBe('Bearer realm="api", error="invalid_token"');
    const otherType = await client.get('/users/me/', { headers: { authorization: 'Notexistent testtoken' } });
    expect(otherType.status).toBe(401);
    expect(otherType.headers['www-authenticate']).toBe('Bearer realm="api"');
  });

  it('test_token_no_sub, test_token_no_username, test_token_nonexistent_user: 401', async () => {
    for (const claims of [{ scope: 'me' }, { sub: '', scope: 'me' }, { sub: 'username:bob', scope: 'me' }]) {
      const response = await client.get('/users/me/', bearer(await token(claims)));
      expect(response.status).toBe(401);
      expect(response.json<{ detail: string }>().detail).toBe('Could not validate credentials');
    }
  });

  it('test_token_no_scope: a valid token without the scope is 403 insufficient_scope', async () => {
    const response = await client.get('/users/me/', bearer(await token({ sub: 'johndoe' })));
    expect(response.status).toBe(403);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="api", error="insufficient_scope", scope="me"');
    expect(response.headers['content-type']).toBe('application/problem+json');
    expect(response.json()).toEqual({
      type: 'about:blank',
      title: 'Forbidden',
      status: 403,
      detail: 'The token lacks a required scope',
      details: { missing: ['me'] },
    });
  });

  it('test_token_inactive_user: 400', async () => {
    const response = await client.get('/users/me/', bearer(await token({ sub: 'alice', scope: 'me' })));
    expect(response.status).toBe(400);
    expect(response.json<{ detail: string }>().detail).toBe('Inactive user');
  });

  it('test_read_items: both scopes needed; the challenge names every required scope', async () => {
    const both = await client.get('/users/me/items/', bearer(await token({ sub: 'johndoe', scope: 'me items' })));
    expect(both.status).toBe(200);
    expect(both.json()).toEqual([{ item_id: 'Foo', owner: 'johndoe' }]);
    const onlyMe = await client.get('/users/me/items/', bearer(await token({ sub: 'johndoe', scope: 'me' })));
    expect(onlyMe.status).toBe(403);
    expect(onlyMe.headers['www-authenticate']).toBe('Bearer realm="api", error="insufficient_scope", scope="me items"');
    expect(onlyMe.json<{ details: unknown }>().details).toEqual({ missing: ['items'] });
  });

  it('test_read_system_status and test_read_system_status_no_token', async () => {
    const ok = await client.get('/status/', bearer(await token({ sub: 'johndoe' })));
    expect(ok.status).toBe(200);
    expect(ok.json()).toEqual({ status: 'ok' });
    expect((await client.get('/status/')).status).toBe(401);
  });

  it('test_openapi_schema: the password flow with its scopes, each operation naming the scopes it needs', async () => {
    type Operation = { security?: Record<string, string[]>[]; responses: Record<string, unknown>; requestBody?: any };
    const doc = (await client.get('/openapi.json')).json<{
      paths: Record<string, Record<string, Operation>>;
      components: { securitySchemes: Record<string, unknown> };
    }>();
    expect(doc.components.securitySchemes).toEqual({
      oauth2Password: {
        type: 'oauth2',
        flows: {
          password: {
            tokenUrl: '/token',
            scopes: { me: 'Read information about the current user.', items: 'Read items.' },
          },
        },
      },
    });
    expect(doc.paths['/users/me/']!.get!.security).toEqual([{ oauth2Password: ['me'] }]);
    expect(doc.paths['/users/me/items/']!.get!.security).toEqual([{ oauth2Password: ['me', 'items'] }]);
    expect(doc.paths['/status/']!.get!.security).toEqual([{ oauth2Password: [] }]);
    expect(Object.keys(doc.paths['/users/me/']!.get!.responses)).toContain('403');
    expect(Object.keys(doc.paths['/status/']!.get!.responses)).not.toContain('403');
    const tokenBody = doc.paths['/token']!.post!.requestBody.content['application/x-www-form-urlencoded'].schema;
    expect(tokenBody.required).toEqual(['username', 'password']);
    expect(Object.keys(tokenBody.properties)).toEqual(['grant_type', 'username', 'password', 'scope', 'client_id', 'client_secret']);
    expect(tokenBody.properties.grant_type.enum).toEqual(['password']);
    expect(tokenBody.properties.scope.type).toBe('string');
    expect(doc.paths['/token']!.post!.security).toEqual([]);
  });
});
