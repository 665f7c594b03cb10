import type { KeyObject, webcrypto } from 'node:crypto';
import type { AuthInfo, Request } from '@fnapi/core';
import { builtin, type Duration, durationSeconds } from '@fnapi/core/extend';
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
import { type AuthWrapper, authorization, authWrapper, quoted, requirement, type SchemeNameOption, unauthorized } from './scheme.js';

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
  const { algorithm, issuer, audience } = options;
  const clockTolerance = durationSeconds('clockTolerance', options.clockTolerance ?? 0);
  const realm = options.realm ?? 'api';
  const missing = `Bearer realm=${quoted(realm)}`;
  const invalid = `Bearer realm=${quoted(realm)}, error="invalid_token"`;
  let key: Promise<KeyObject | CryptoKey | Uint8Array> | JWTVerifyGetKey;
  if (options.jwksUrl !== undefined) key = remoteKeySet(options.jwksUrl);
  else if (options.secret !== undefined) key = Promise.resolve(secretKey(options.secret));
  else {
    key = verificationKey(options.key as KeyInput, algorithm);
    key.catch(() => {}); // reported on first use
  }
  const verifyOptions = { algorithms: [algorithm], issuer, audience, clockTolerance };

  return authWrapper(
    {
      challenge: missing,
      security: [[requirement('bearerAuth', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, options.schemeName)]],
      async authenticate(request: Request): Promise<AuthInfo> {
        const token = authorization(request, 'Bearer');
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
        return {
          scheme: 'bearer',
          subject: typeof payload.sub === 'string' ? payload.sub : undefined,
          claims: payload as Record<string, unknown>,
        };
      },
    },
    'jwtRequired',
  );
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
