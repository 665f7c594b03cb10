import { MAX_ISSUES } from '@fnapi/validation';
import { PROBLEM_JSON, reasonPhrase } from './facts.js';

export { PROBLEM_JSON };

/** RFC 9457 problem details, the body of every error response. */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail?: string;
  details?: unknown;
  [extension: string]: unknown;
}

export interface HTTPErrorOptions {
  /** Headers sent with the error response (for example `WWW-Authenticate`). */
  headers?: Record<string, string>;
  cause?: unknown;
}

/** The one builder of problem bodies: `about:blank`, the status's reason phrase as title. */
export function problemDetails(status: number, detail?: string, details?: unknown): ProblemDetails {
  const problem: ProblemDetails = { type: 'about:blank', title: reasonPhrase(status), status };
  if (detail !== undefined) problem.detail = detail;
  if (details !== undefined) problem.details = details;
  return problem;
}

/** An error that is meant to reach the client: thrown anywhere, it becomes a problem response of its status. */
export class HTTPError extends Error {
  readonly statusCode: number;
  readonly details: unknown;
  headers: Record<string, string> | undefined;

  constructor(statusCode: number, message?: string, details?: unknown, options?: HTTPErrorOptions) {
    super(message ?? reasonPhrase(statusCode), options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.statusCode = statusCode;
    this.details = details;
    this.headers = options?.headers;
  }

  toProblem(): ProblemDetails {
    return problemDetails(this.statusCode, this.message, this.details);
  }
}

function statusError(status: number, name: string) {
  const cls = class extends HTTPError {
    constructor(message?: string, details?: unknown, options?: HTTPErrorOptions) {
      super(status, message, details, options);
    }
  };
  Object.defineProperty(cls, 'name', { value: name });
  return cls;
}

export const BadRequestError = statusError(400, 'BadRequestError');
export const UnauthorizedError = statusError(401, 'UnauthorizedError');
export const ForbiddenError = statusError(403, 'ForbiddenError');
export const NotFoundError = statusError(404, 'NotFoundError');
export const ConflictError = statusError(409, 'ConflictError');
export const PayloadTooLargeError = statusError(413, 'PayloadTooLargeError');
export const UnsupportedMediaTypeError = statusError(415, 'UnsupportedMediaTypeError');
export const ValidationError = statusError(422, 'ValidationError');
export const TooManyRequestsError = statusError(429, 'TooManyRequestsError');
export const InternalServerError = statusError(500, 'InternalServerError');
export const ServiceUnavailableError = statusError(503, 'ServiceUnavailableError');
export const GatewayTimeoutError = statusError(504, 'GatewayTimeoutError');

export type BadRequestError = InstanceType<typeof BadRequestError>;
export type UnauthorizedError = InstanceType<typeof UnauthorizedError>;
export type ForbiddenError = InstanceType<typeof ForbiddenError>;
export type NotFoundError = InstanceType<typeof NotFoundError>;
export type ConflictError = InstanceType<typeof ConflictError>;
export type PayloadTooLargeError = InstanceType<typeof PayloadTooLargeError>;
export type UnsupportedMediaTypeError = InstanceType<typeof UnsupportedMediaTypeError>;
export type ValidationError = InstanceType<typeof ValidationError>;
export type TooManyRequestsError = InstanceType<typeof TooManyRequestsError>;
export type InternalServerError = InstanceType<typeof InternalServerError>;
export type ServiceUnavailableError = InstanceType<typeof ServiceUnavailableError>;
export type GatewayTimeoutError = InstanceType<typeof GatewayTimeoutError>;

/**
 * Raised by the binder's result: request input failed validation. Its body is built by the app's
 * `validationError.format`, so it carries the issues rather than a message.
 */
export class RequestValidationError extends HTTPError {
  /** At most `MAX_ISSUES` (100) issues, the first found. */
  readonly issues: readonly import('@fnapi/validation').ValidationIssue[];
  /** True when more issues were found than `issues` lists (validation stopped there). */
  readonly truncated: boolean;
  constructor(issues: readonly import('@fnapi/validation').ValidationIssue[], truncated = false) {
    super(422, 'Request validation failed');
    this.truncated = truncated || issues.length > MAX_ISSUES;
    this.issues = issues.length > MAX_ISSUES ? issues.slice(0, MAX_ISSUES) : issues;
  }
}

/**
 * The status of a request that ended in a thrown value: an `HTTPError`'s own status, else 500. The
 * one function that decides it, for responses, metrics, logs and traces alike.
 */
export function statusOf(error: unknown): number {
  return error instanceof HTTPError ? error.statusCode : 500;
}

/**
 * A returned value that did not fit the endpoint's `response` model, or a streamed item that did not
 * fit its `events`/`lines` schema: a server bug, so a 500 (or a stream's error ending).
 */
export class ResponseValidationError extends Error {
  constructor(
    readonly endpoint: string,
    readonly issues: readonly import('@fnapi/validation').ParseIssue[],
    what: 'returned a value' | 'yielded an item' = 'returned a value',
  ) {
    super(
      `${endpoint} ${what} that does not match its ${what === 'returned a value' ? 'response model' : 'schema'}: ` +
        issues.map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`).join('; '),
    );
    this.name = 'ResponseValidationError';
  }
}

/** The last error reported in each scope (a request, a WebSocket connection, an app's startup). */
const lastReported = new WeakMap<object, unknown>();

/**
 * The one "already reported" mark: true the first time `error` is reported (offered to plugins,
 * logged) in `scope`, false after, so an error caught again further out is not reported twice.
 */
export function firstReport(scope: object, error: unknown): boolean {
  if (lastReported.has(scope) && lastReported.get(scope) === error) return false;
  lastReported.set(scope, error);
  return true;
}
