export { API, type APIOptions, type RouteInfo, type ValidationErrorFormat } from './app.js';
export { Router, RouteGroup, type RouterOptions, type RouteEntry } from './route-group.js';
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
} from './endpoint.js';
export type { TrustProxy } from './edge.js';
export { Request, type AuthInfo, type ClientInfo, type RequestInit } from './request.js';
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
} from './response.js';
export { RequestHeaders, ResponseHeaders } from './headers.js';
export * from './errors.js';
export { compose, type CallNext, type Middleware, type MiddlewareFunction, type MiddlewareObject } from './pipeline.js';
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
} from './plugins.js';
export { ResponseValidationError } from './invoke.js';
export {
  sseEvent,
  ItemValidationError,
  StreamInterrupted,
  EVENT_STREAM_TYPE,
  JSON_LINES_TYPE,
  type EventItem,
  type SSEEvent,
  type SSEEventInit,
  type StreamResult,
} from './streams.js';
export { defaultLogger, silentLogger, type Logger } from './logger.js';
export type { Platform, RuntimeName } from './platform.js';
export { errorResponse, type ErrorResponseOptions } from './runtime.js';
export {
  BYTES_TYPE,
  HTML_TYPE,
  JSON_TYPE,
  TEXT_TYPE,
  isJsonContentType,
  isTextContentType,
  reasonPhrase,
  statusHasBody,
} from './http.js';
export { CREDENTIAL_FIELDS, CREDENTIAL_HEADERS, CREDENTIAL_QUERY_PARAMS } from './credentials.js';
export type { RunOptions, RunningServer } from './server/node.js';
export { ServingState, type ServingPhase } from './serving-state.js';
export { PortUnavailableError } from './server/listen.js';
export type { InjectOptions, InjectResponse } from './server/inject.js';
export {
  z,
  header,
  cookie,
  query,
  body,
  file,
  form,
  type ValidationIssue,
  type InferInput,
  type ParamsShape,
  type UploadedFile,
  type FileOptions,
} from '@fnapi/validation';
export type { SecurityRequirement } from '@fnapi/openapi';
