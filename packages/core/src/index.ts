export { API, type APIOptions, type RouteInfo, type ValidationErrorFormat } from './app/app.js';
export { Router, RouteGroup, type RouterOptions, type RouteEntry } from './app/route-group.js';
export {
  api,
  annotateHandler,
  assertStandardDecorator,
  handlerMetadata,
  HANDLER_METADATA,
  isEndpointDefinition,
  type EndpointDefinition,
  type EndpointFactory,
  type EndpointOptions,
  type Guard,
  type DeclaredResponse,
  type Handler,
  type HandlerMetadata,
  type HandlerResult,
  type HTTPMethod,
  type RouteOptions,
  type StreamHandler,
  type HandlerFor,
} from './serve/endpoint.js';
export type { TrustProxy } from './platform/proxy-trust.js';
export { addressKey, normalizeAddress } from './platform/address.js';
export { Request, type AuthInfo, type ClientInfo, type RequestInit } from './http/request.js';
export {
  Response,
  JSONResponse,
  HTMLResponse,
  PlainTextResponse,
  RedirectResponse,
  StreamingResponse,
  problemResponse,
  type BodyChunk,
  type ResponseOptions,
} from './http/response.js';
export { RequestHeaders, ResponseHeaders } from './http/headers.js';
export { FileResponse, contentDisposition, type FileResponseOptions, type FileSource } from './http/file-response.js';
export { binary, type BinarySchema } from './http/binary.js';
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
  PROBLEM_JSON,
  problemDetails,
  RequestValidationError,
  ResponseValidationError,
  ServiceUnavailableError,
  statusOf,
  TooManyRequestsError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
  ValidationError,
  type HTTPErrorOptions,
  type ProblemDetails,
} from './http/errors.js';
export { compose, type CallNext, type Middleware, type MiddlewareFunction, type MiddlewareObject } from './serve/pipeline.js';
export {
  EVENT_NAMES,
  HOOK_NAMES,
  PluginManager,
  type EventCallback,
  type EventName,
  type HookName,
  type OnErrorHook,
  type OnEventHook,
  type PluginLike,
  type PluginMetadata,
  type PostResponseHook,
  type PreRequestHook,
} from './serve/plugins.js';
export {
  sseEvent,
  ItemValidationError,
  StreamInterrupted,
  EVENT_STREAM_TYPE,
  JSON_LINES_TYPE,
  type EventItem,
  type EventsOption,
  type NamedEventItem,
  type SSEEvent,
  type SSEEventInit,
  type StreamResult,
} from './serve/streams.js';
export { defaultLogger, roundMs, silentLogger, type Logger } from './platform/logger.js';
export { currentSignal, runWithSignal } from './platform/signal-scope.js';
export type { Platform, RuntimeName } from './platform/platform.js';
export { errorResponse, type ErrorResponseOptions } from './serve/runtime.js';
export {
  BYTES_TYPE,
  HTML_TYPE,
  JSON_TYPE,
  TEXT_TYPE,
  isJsonContentType,
  isTextContentType,
  reasonPhrase,
  statusHasBody,
} from './http/facts.js';
export { CREDENTIAL_FIELDS, CREDENTIAL_HEADERS, CREDENTIAL_QUERY_PARAMS } from './http/credentials.js';
export type { RunOptions, RunningServer } from './server/node.js';
export { ServingState, type ServingPhase } from './serve/serving-state.js';
export {
  webSocketEnded,
  WebSocketUpgrade,
  type ReceivedMessage,
  type SentMessage,
  type ServerWebSocket,
  type WebSocketEnd,
  type WebSocketHandler,
  type WebSocketOptions,
} from './ws/endpoint.js';
export { MessageValidationError, WebSocketConnection, type CloseInfo } from './ws/connection.js';
export type { BunWebSocketHandler } from './ws/fetch.js';
export { Hub, HubSubscription, MemoryHub, type HubOptions, type HubStats, type SubscribeOptions } from './ws/hub.js';
export { PortUnavailableError } from './server/listen.js';
export type { InjectOptions, InjectResponse } from './server/inject.js';
export {
  z,
  header,
  cookie,
  query,
  body,
  file,
  type ParamOptions,
  form,
  type ValidationIssue,
  type InferInput,
  type ParamsShape,
  type UploadedFile,
  type FileOptions,
  isStandardSchema,
  validate,
  type Schema,
  type SchemaIssue,
  type ValidateResult,
  type StandardSchemaV1,
} from '@fnapi/validation';
export type { SecurityRequirement } from '@fnapi/openapi';
