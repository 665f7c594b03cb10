import type { KeyObject, webcrypto } from 'node:crypto';
import type { AuthInfo, Request } from '@fnapi/core';
import { builtin, type Duration, durationSeconds, markCredentialQueryParam, type SecurityRequirement } from '@fnapi/core/extend';
import {
  createRemoteJWKSet,
  errors,
  importPKCS8,
  importSPKI,
  importX509,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
  SignJWT,
} from 'jose';
import {
  type AuthWrapper,
  authorization,
  authWrapper,
  cookieCredential,
  forbidden,
  placeRequirement,
  queryCredential,
  quoted,
  requirement,
  type SchemeNameOption,
  unauthorized,
} from './scheme.js';

// node:crypto's name, not the DOM global: declarations must compile with @types/node alone.
type CryptoKey = webcrypto.CryptoKey;
type KeyInput = string | KeyObject | CryptoKey;

export interface JwtOptions extends SchemeNameOption {
  /** Shared secret for HS256/HS384/HS512. */
  secret?: string | undefined;
  /** Public key (PEM `PUBLIC KEY` or `CERTIFICATE`, a `KeyObject` or a `CryptoKey`) for RS*, PS*, ES*, EdDSA. */
  key?: KeyInput | undefined;
  /** A JSON Web Key Set URL: keys fetched once per URL for the process, again for an unknown `kid` at most every 30 s. */
  jwksUrl?: string | URL | undefined;
  /** The one algorithm accepted, e.g. `HS256` or `RS256`; whatever a token or a JWK says, no other is. */
  algorithm: string;
  /** Required `iss` claim (one of, when a list). */
  issuer?: string | string[] | undefined;
  /** Required `aud` claim (one of, when a list). */
  audience?: string | string[] | undefined;
  /** Seconds (or a string with a unit, `'30s'`) of leeway for `exp` and `nbf`; default 0. */
  clockTolerance?: Duration | undefined;
  /** `realm` of the `WWW-Authenticate` challenge; default `api`. */
  realm?: string | undefined;
  /**
   * Scopes the token must carry (all of them), in its `scope` claim (space-separated) or `scp` (an
   * array or a space-separated string); a valid token without one is 403 `insufficient_scope`.
   */
  scopes?: readonly string[] | undefined;
  /**
   * Documents the scheme as OAuth2's password flow: Swagger UI's Authorize form then asks for a user
   * name and password and gets the token from `tokenUrl` (the app's own token endpoint, which reads
   * `form(passwordForm)`). `scopes` names and describes the scopes the form offers.
   */
  oauth2?: OAuth2PasswordFlow | undefined;
  /** A cookie that may carry the token too (a browser session); the `Authorization` header wins when both do. */
  cookie?: string | undefined;
  /**
   * A query parameter that may carry the token too, for WebSocket upgrades from browsers (which cannot
   * set headers). Off by default; fnapi's logs redact its value.
   */
  queryParam?: string | undefined;
}

/** OAuth2's password flow (RFC 6749 §4.3) as the OpenAPI document describes it. */
export interface OAuth2PasswordFlow {
  /** Where the token is requested, e.g. `/token`: relative URLs are resolved against the document's server. */
  tokenUrl: string;
  /** The scopes a token can carry, each with its description. */
  scopes?: Record<string, string> | undefined;
  /** Where a token is refreshed, if the app does. */
  refreshUrl?: string | undefined;
}

const HMAC = /^HS(256|384|512)$/;
const ASYMMETRIC = /^(RS|PS|ES)(256|384|512)$|^EdDSA$|^Ed25519$|^ES256K$/;

/** Exactly one of `secret`, `key`, `jwksUrl`, and the algorithm family that goes with it. */
function checkOptions(options: JwtOptions, what: string): void {
  if (options === null || typeof options !== 'object') throw new TypeError(`${what} takes options`);
  const { algorithm } = options;
  if (typeof algorithm !== 'string' || !(HMAC.test(algorithm) || ASYMMETRIC.test(algorithm))) {
    throw new TypeError(`${what}: algorithm must be one of HS256/384/512, RS*, PS*, ES*, EdDSA; got ${String(algorithm)}`);
  }
  const given = (['secret', 'key', 'jwksUrl'] as const).filter((k) => options[k] !== undefined && options[k] !== '');
  if (given.length !== 1) throw new TypeError(`${what}: give exactly one of secret, key or jwksUrl (got ${given.join(', ') || 'none'})`);
  if (options.secret !== undefined && !HMAC.test(algorithm)) {
    throw new TypeError(`${what}: a secret goes with HS256/HS384/HS512, not ${algorithm}; give a key or a jwksUrl instead`);
  }
  if (options.jwksUrl !== undefined && HMAC.test(algorithm)) {
    throw new TypeError(`${what}: a JWKS holds public keys; ${algorithm} needs a secret`);
  }
}

/** The scopes, OAuth2 flow and extra token places of `jwtRequired`, checked when it is called. */
function checkTokenOptions(options: JwtOptions): void {
  const { scopes, oauth2, cookie, queryParam } = options;
  if (scopes !== undefined && (!Array.isArray(scopes) || scopes.some((scope) => typeof scope !== 'string' || !SCOPE.test(scope)))) {
    throw new TypeError('jwtRequired: scopes must be a list of scope names (no spaces or quotes)');
  }
  if (oauth2 !== undefined) {
    if (oauth2 === null || typeof oauth2 !== 'object' || typeof oauth2.tokenUrl !== 'string' || oauth2.tokenUrl === '') {
      throw new TypeError("jwtRequired: oauth2 takes { tokenUrl: '/token', scopes?: { [scope]: description } }");
    }
    const offered = oauth2.scopes ?? {};
    const unknown = (scopes ?? []).filter((scope) => !Object.hasOwn(offered, scope));
    if (unknown.length > 0) {
      throw new TypeError(
        `jwtRequired: scope ${unknown.map((scope) => JSON.stringify(scope)).join(', ')} is required but not among oauth2.scopes`,
      );
    }
  }
  for (const [what, name] of [
    ['cookie', cookie],
    ['queryParam', queryParam],
  ] as const) {
    if (name !== undefined && (typeof name !== 'string' || name === ''))
      throw new TypeError(`jwtRequired: ${what} must be a non-empty name`);
  }
}

/** A scope token (RFC 6749 §3.3): printable ASCII without space, `"` and `\`. */
const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** The token's scopes: its `scope` claim (space-separated), else `scp` (an array or a space-separated string); `[]` for none. */
function tokenScopes(payload: JWTPayload): string[] {
  const claim = payload.scope !== undefined ? payload.scope : payload.scp;
  if (typeof claim === 'string') return claim.split(' ').filter((scope) => scope !== '');
  if (Array.isArray(claim)) return claim.filter((scope): scope is string => typeof scope === 'string' && scope !== '');
  return [];
}

/** An HMAC secret as bytes: jose takes them on every runtime. */
function secretKey(secret: string): Uint8Array {
  return new TextEncoder().encode(secret);
}

async function verificationKey(key: KeyInput, algorithm: string): Promise<KeyObject | CryptoKey | Uint8Array> {
  if (typeof key !== 'string') return key;
  const pem = key.trim();
  if (HMAC.test(algorithm)) return secretKey(key);
  if (pem.startsWith('-----BEGIN CERTIFICATE-----')) return importX509(pem, algorithm);
  if (pem.startsWith('-----BEGIN PUBLIC KEY-----')) return importSPKI(pem, algorithm);
  // A private key given for verification: its public half is what verifies.
  // node:crypto at its one point of use (a Worker's bundle has none): Node, Bun and Deno derive it.
  return builtin('node:crypto').createPublicKey(pem);
}

async function signingKey(key: KeyInput, algorithm: string): Promise<KeyObject | CryptoKey | Uint8Array> {
  if (typeof key !== 'string') return key;
  if (HMAC.test(algorithm)) return new TextEncoder().encode(key);
  return importPKCS8(key.trim(), algorithm);
}

/** One remote key set per URL for the whole process, shared by every endpoint that names it. */
const keySets = new Map<string, JWTVerifyGetKey>();

function remoteKeySet(url: string | URL): JWTVerifyGetKey {
  const href = new URL(String(url)).href;
  let keys = keySets.get(href);
  if (!keys) {
    keys = createRemoteJWKSet(new URL(href), { timeoutDuration: 5000, cooldownDuration: 30_000, cacheMaxAge: Number.POSITIVE_INFINITY });
    keySets.set(href, keys);
  }
  return keys;
}

/** Why a token was refused, for the 401 detail (never the token itself). */
function refusal(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'The token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) return `The token's "${error.claim}" claim is not accepted`;
  if (error instanceof errors.JOSEAlgNotAllowed) return 'The token is signed with an algorithm this endpoint does not accept';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'The token signature is invalid';
  if (error instanceof errors.JWKSNoMatchingKey) return 'No key matches the token';
  return 'The token is malformed or invalid';
}

/** Failures of the key source (the JWKS could not be fetched), as opposed to a bad token. */
function isKeySourceFailure(error: unknown): boolean {
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) return true;
  // A generic JOSEError is what jose throws for a JWKS answer that is not 200 OK.
  if (error instanceof errors.JOSEError) return error.code === 'ERR_JOSE_GENERIC';
  return error instanceof Error; // network errors of the fetch, a key that cannot be imported
}

/**
 * `Authorization: Bearer <JWT>` verified with jose: signature, `exp`, `nbf`, and `iss`/`aud` when
 * configured; only `algorithm` is accepted. `request.auth = { scheme: 'bearer', subject: sub, claims }`.
 */
export function jwtRequired(options: JwtOptions): AuthWrapper {
  checkOptions(options, 'jwtRequired');
  checkTokenOptions(options);
  const { algorithm, issuer, audience, cookie, queryParam, oauth2 } = options;
  const required = [...(options.scopes ?? [])];
  const clockTolerance = durationSeconds('clockTolerance', options.clockTolerance ?? 0);
  const realm = options.realm ?? 'api';
  const missing = `Bearer realm=${quoted(realm)}`;
  const invalid = `Bearer realm=${quoted(realm)}, error="invalid_token"`;
  const insufficient = `Bearer realm=${quoted(realm)}, error="insufficient_scope", scope=${quoted(required.join(' '))}`;
  if (queryParam !== undefined) markCredentialQueryParam(queryParam);
  let key: Promise<KeyObject | CryptoKey | Uint8Array> | JWTVerifyGetKey;
  if (options.jwksUrl !== undefined) key = remoteKeySet(options.jwksUrl);
  else if (options.secret !== undefined) key = Promise.resolve(secretKey(options.secret));
  else {
    key = verificationKey(options.key as KeyInput, algorithm);
    key.catch(() => {}); // reported on first use
  }
  const verifyOptions = { algorithms: [algorithm], issuer, audience, clockTolerance };

  // The header's scheme (bearer, or OAuth2's password flow), and beside it each other place a token may
  // come from, as alternatives; each requirement names the scopes. An explicit schemeName names the
  // header's scheme; the others get it with their place appended.
  const withScopes = (sec: SecurityRequirement): SecurityRequirement => (required.length > 0 ? { ...sec, scopes: required } : sec);
  const chosen = (place: string) => (options.schemeName === undefined ? undefined : `${options.schemeName}${place}`);
  const security: SecurityRequirement[][] = [
    [
      withScopes(
        oauth2 === undefined
          ? requirement('bearerAuth', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, options.schemeName)
          : requirement('oauth2Password', { type: 'oauth2', flows: { password: passwordFlow(oauth2) } }, options.schemeName),
      ),
    ],
  ];
  if (cookie !== undefined) security.push([withScopes(placeRequirement('cookie', cookie, chosen('Cookie')))]);
  if (queryParam !== undefined) security.push([withScopes(placeRequirement('query', queryParam, chosen('Query')))]);

  /** The token the request carries: the `Authorization` header's, else the cookie's, else the query parameter's. */
  const given = (request: Request): string | undefined =>
    authorization(request, 'Bearer') ??
    (cookie === undefined ? undefined : cookieCredential(request, cookie)) ??
    (queryParam === undefined ? undefined : queryCredential(request, queryParam));

  return authWrapper(
    {
      challenge: missing,
      security,
      forbids: required.length > 0,
      present: (request) => given(request) !== undefined,
      async authenticate(request: Request): Promise<AuthInfo> {
        const token = given(request);
        if (token === undefined) throw unauthorized('A bearer token is required', missing);
        let payload: JWTPayload;
        try {
          const result =
            typeof key === 'function' ? await jwtVerify(token, key, verifyOptions) : await jwtVerify(token, await key, verifyOptions);
          payload = result.payload;
        } catch (error) {
          if (isKeySourceFailure(error)) {
            request.logger.error({ err: error, jwksUrl: options.jwksUrl ? String(options.jwksUrl) : undefined }, 'JWT keys unavailable');
            throw unauthorized('The token could not be verified right now', invalid);
          }
          throw unauthorized(refusal(error), invalid);
        }
        const scopes = tokenScopes(payload);
        const lacking = required.filter((scope) => !scopes.includes(scope));
        if (lacking.length > 0) {
          const refusal = forbidden('The token lacks a required scope', { missing: lacking });
          refusal.headers = { 'www-authenticate': insufficient };
          throw refusal;
        }
        return {
          scheme: 'bearer',
          subject: typeof payload.sub === 'string' ? payload.sub : undefined,
          claims: payload as Record<string, unknown>,
          scopes,
        };
      },
    },
    'jwtRequired',
  );
}

/** The Security Scheme Object's `flows.password`. */
function passwordFlow(flow: OAuth2PasswordFlow): Record<string, unknown> {
  return {
    tokenUrl: flow.tokenUrl,
    ...(flow.refreshUrl === undefined ? {} : { refreshUrl: flow.refreshUrl }),
    scopes: { ...(flow.scopes ?? {}) },
  };
}

export interface CreateTokenOptions {
  /** Shared secret for HS*. */
  secret?: string | undefined;
  /** Private key (PEM PKCS#8, `KeyObject` or `CryptoKey`) for RS*, PS*, ES*, EdDSA. */
  key?: KeyInput | undefined;
  algorithm: string;
  /**
   * Seconds from now, or a string with a unit (`'15m'`, `'2h'`, `'30d'`); any length; default 15
   * minutes. `null` signs a token without `exp`, one that never expires: only on purpose.
   */
  expiresIn?: Duration | null | undefined;
}

/** Default lifetime of a token from `createToken`: a forgotten `expiresIn` must not mean forever. */
const DEFAULT_EXPIRES_IN = 15 * 60;

/** Signs a JWT (for logins and tests): `iat` set, `exp` from `expiresIn` (default 15 minutes; `null`: none). */
export async function createToken(claims: Record<string, unknown>, options: CreateTokenOptions): Promise<string> {
  checkOptions({ ...options, jwksUrl: undefined }, 'createToken');
  const key = await signingKey((options.secret ?? options.key) as KeyInput, options.algorithm);
  const jwt = new SignJWT(claims as JWTPayload).setProtectedHeader({ alg: options.algorithm, typ: 'JWT' }).setIssuedAt();
  const expiresIn = options.expiresIn === undefined ? DEFAULT_EXPIRES_IN : options.expiresIn;
  if (expiresIn !== null)
    jwt.setExpirationTime(Math.floor(Date.now() / 1000 + durationSeconds('expiresIn', expiresIn, { negative: true })));
  return jwt.sign(key);
}
