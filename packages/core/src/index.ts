// `@fnapi/core`: what apps write. Helpers for packages that extend fnapi are at `@fnapi/core/extend`,
// what transports and adapters need at `@fnapi/core/transport`, `TestClient` at `@fnapi/core/testing`.
export { API, type APIOptions, type DependencyInfo, type DocumentOptions, type RouteInfo, type ValidationErrorFormat } from './app/app.js';
export { Router, type RouterEndpointDefaults, type RouterOptions } from './app/route-group.js';
export type { OverrideHandle, Replacement } from './app/app.js';
export {
  dependency,
  type Dependency,
  type DependencyInput,
  type DependencyOptions,
  type DependencyValue,
  type Lifetime,
  type Uses,
  type UsesValues,
} from './serve/dependency.js';
export {
  api,
  type EndpointOptions,
  type Guard,
  type Handler,
  type HTTPMethod,
  type McpToolOptions,
  type RouteOptions,
} from './serve/endpoint.js';
export { Request, type AuthInfo } from './http/request.js';
export {
  Response,
  JSONResponse,
  HTMLResponse,
  PlainTextResponse,
  RedirectResponse,
  StreamingResponse,
  type BodyChunk,
  type ResponseOptions,
} from './http/response.js';
export { FileResponse } from './http/file-response.js';
export { binary } from './http/binary.js';
export type { CookieOptions } from './http/cookies.js';
export {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  GatewayTimeoutError,
  HTTPError,
  InternalServerError,
  NotFoundError,
  PayloadTooLargeError,
  RequestValidationError,
  ResponseValidationError,
  ServiceUnavailableError,
  TooManyRequestsError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
  ValidationError,
  type ProblemDetails,
} from './http/errors.js';
export { StreamInterrupted } from './http/interrupted.js';
export type { CallNext, Middleware, MiddlewareObject } from './serve/pipeline.js';
export { sseEvent, ItemValidationError, type EventItem, type SSEEvent } from './serve/streams.js';
export type { Logger } from './platform/logger.js';
export type { RunOptions, RunningServer } from './server/node.js';
export type { InjectOptions, InjectResponse } from './server/inject.js';
export type { ReceivedMessage, SentMessage, ServerWebSocket, WebSocketHandler, WebSocketOptions } from './ws/endpoint.js';
export { MessageValidationError } from './ws/connection.js';
export { Hub, type HubOptions } from './ws/hub.js';
export {
  z,
  header,
  cookie,
  query,
  body,
  file,
  form,
  type InferInput,
  type Schema,
  type StandardSchemaV1,
  type Duration,
  type UploadedFile,
  type ValidationIssue,
} from '@fnapi/validation';
