import { sha256 } from '@noble/hashes/sha2.js';
import { type AuthInfo, type Dependency, ForbiddenError, type Request, UnauthorizedError } from '@fnapi/core';
import { annotateHandler, assertStandardDecorator, guardDependency, type HandlerMetadata, handlerMetadata } from '@fnapi/core/extend';
import type { SecurityRequirement } from '@fnapi/core/extend';

/**
 * One way of proving who is calling. `authenticate` resolves to the caller, or throws an
 * `UnauthorizedError` (no or bad credential; its `WWW-Authenticate` is `challenge`) or a
 * `ForbiddenError` (a known caller without a required permission).
 */
export interface AuthScheme {
  /** `WWW-Authenticate` challenge sent when no credential of this scheme was given. */
  readonly challenge: string;
  /** How the document describes it: alternatives, any one of which the scheme accepts. */
  readonly security: SecurityRequirement[][];
  /** Whether it can refuse a known caller for a missing permission (403); documented only then. */
  readonly forbids?: boolean;
  /**
   * Whether the request carries a credential of this scheme at all, valid or not: `optional()` lets
   * a request without one pass and checks one that has one.
   */
  present?(request: Request): boolean;
  /** Set by `optional()`: `authenticate` resolves to `undefined` when no credential is present. */
  readonly optional?: boolean;
  authenticate(request: Request): Promise<AuthInfo | undefined>;
}

type AnyHandler = (input: any, ...rest: any[]) => unknown;

/**
 * An auth function's result: wraps a handler (`jwtRequired(opts)(handler)`), or decorates a method
 * under `@api` (`@jwtRequired(opts)`). The wrapped handler carries a guard that core runs before the
 * body is read and the parameters bound, so an unauthenticated request learns nothing of the input
 * rules, and the scheme for the OpenAPI document. It is a guard dependency too.
 */
export interface AuthWrapper extends Dependency<AuthInfo> {
  <H extends AnyHandler>(handler: H): H;
  <H extends AnyHandler>(method: H, context: ClassMethodDecoratorContext): H;
  readonly scheme: AuthScheme;
}

/** The option every auth function takes to name its scheme in the OpenAPI document. */
export interface SchemeNameOption {
  /**
   * Key under `components.securitySchemes` (default: `bearerAuth`, `apiKeyHeader`, `basicAuth`, …).
   * Two different definitions given the same `schemeName` are an error at registration.
   */
  schemeName?: string;
}

/** A scheme requirement under the app's chosen name, else under its default one. */
export function requirement(defaultName: string, scheme: Record<string, unknown>, chosen: string | undefined): SecurityRequirement {
  return chosen === undefined ? { name: defaultName, scheme } : { name: chosen, scheme, explicit: true };
}

/**
 * A credential in a cookie or a query parameter, documented as an `apiKey` scheme there. The default
 * name depends only on the definition, so an API key and a JWT read from the same place share one entry.
 */
export function placeRequirement(place: 'cookie' | 'query', name: string, chosen: string | undefined): SecurityRequirement {
  const defaultName =
    place === 'cookie' ? `apiKeyCookie_${nameSuffix(name)}` : name === 'api_key' ? 'apiKeyQuery' : `apiKeyQuery_${nameSuffix(name)}`;
  return requirement(defaultName, { type: 'apiKey', in: place, name }, chosen);
}

/** A component-name-safe form of a header or parameter name (`X-Service-Token` stays as is). */
export function nameSuffix(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_');
}

export function authWrapper(scheme: AuthScheme, name: string): AuthWrapper {
  const guard = async (request: Request): Promise<void> => {
    const auth = await scheme.authenticate(request);
    // An optional scheme without a credential leaves what another guard found.
    if (auth !== undefined) request.auth = auth;
  };
  const metadata: HandlerMetadata = {
    securityAlternatives: scheme.security,
    errorStatuses: scheme.forbids ? [401, 403] : [401],
    guards: [guard],
  };
  const wrap = <H extends AnyHandler>(handler: H): H => {
    if (typeof handler !== 'function') throw new TypeError(`${name}(…) wraps a handler function`);
    // A new function, so the same handler can also be served unprotected elsewhere.
    // Every argument passes through: a WebSocket handler takes (input, socket, request).
    const wrapped = function (this: unknown, ...args: unknown[]) {
      return handler.apply(this, args as Parameters<H>);
    } as H;
    Object.defineProperty(wrapped, 'name', { value: handler.name });
    const inner = handlerMetadata(handler);
    if (inner) annotateHandler(wrapped, inner);
    return annotateHandler(wrapped, metadata);
  };
  const wrapper = ((target: AnyHandler, context?: unknown) => {
    if (context !== undefined) {
      assertStandardDecorator(context, `@${name}`);
      if (context.kind !== 'method') throw new TypeError(`@${name} decorates class methods`);
    }
    return wrap(target);
  }) as AuthWrapper;
  Object.defineProperty(wrapper, 'scheme', { value: scheme });
  // Also a dependency: `dependencies: [guard]` guards, `uses: { auth: guard }` gives the `AuthInfo`.
  return guardDependency(wrapper, name, guard, metadata);
}

/** 401 with a challenge; `detail` says what was wrong without repeating the credential. */
export function unauthorized(detail: string, challenge: string): UnauthorizedError {
  return new UnauthorizedError(detail, undefined, { headers: { 'www-authenticate': challenge } });
}

export function forbidden(detail: string, details?: unknown): ForbiddenError {
  return new ForbiddenError(detail, details);
}

const encoder = new TextEncoder();

/**
 * SHA-256 of a string: a fixed-length value to compare, whatever the secret's length. Synchronous on
 * every runtime (keys are hashed when the guard is made): noble's, where node:crypto may be missing.
 */
export function digest(value: string): Uint8Array {
  return sha256(encoder.encode(value));
}

/** Constant-time equality of two digests (no early exit on the first differing byte). */
export function same(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  let difference = 0;
  for (let i = 0; i < a.byteLength; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}

/** A quoted-string for a challenge parameter (RFC 9110 §5.6.4). */
export function quoted(value: string): string {
  return `"${value.replace(/["\\]/g, '\\$&')}"`;
}

/** The credential of an `Authorization: <scheme> <credential>` header, if it uses that scheme. */
export function authorization(request: Request, scheme: string): string | undefined {
  const header = request.headers.get('authorization');
  if (header === null) return undefined;
  const space = header.indexOf(' ');
  if (space === -1 || header.slice(0, space).toLowerCase() !== scheme.toLowerCase()) return undefined;
  const credential = header.slice(space + 1).trim();
  return credential === '' ? undefined : credential;
}

/** A cookie's value, if the request carries it non-empty. */
export function cookieCredential(request: Request, name: string): string | undefined {
  const value = request.cookies[name];
  return value === undefined || value === '' ? undefined : value;
}

/** A query parameter's value, if the request carries it non-empty. */
export function queryCredential(request: Request, name: string): string | undefined {
  const value = request.queryParams.get(name);
  return value === null || value === '' ? undefined : value;
}

/** What a `verify` callback resolves to for an accepted caller: an `AuthInfo` whose `scheme` may be left out. */
export type VerifiedCaller = Omit<AuthInfo, 'scheme'> & { scheme?: string };

/**
 * What a `verify` callback resolved to, as the request's caller: `null`/`undefined` is a refusal;
 * `scheme` defaults to the auth function's own, `subject` to `fallbackSubject`.
 */
export function verified(result: unknown, scheme: string, fallbackSubject: string | undefined, what: string): AuthInfo | undefined {
  if (result === null || result === undefined) return undefined;
  if (typeof result !== 'object')
    throw new TypeError(`${what}: verify must resolve to an object (the caller) or null, got ${typeof result}`);
  const given = result as Partial<AuthInfo>;
  const info: AuthInfo = { ...given, scheme: given.scheme ?? scheme };
  if (info.subject === undefined && fallbackSubject !== undefined) info.subject = fallbackSubject;
  return info;
}
