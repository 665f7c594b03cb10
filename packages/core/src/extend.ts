// `@fnapi/core/extend`: what packages that extend fnapi (middleware, plugins, auth, monitoring, cache,
// jobs, mcp, dev) need of core beyond what apps write. Apps never import it; it is off the main entry.
export {
  addTransportRoute,
  type EndpointWatcher,
  type TransportRoute,
  watchEndpoints,
  type Extensible,
  type Extension,
  type ExtensionKey,
  extensionKey,
  MCP_RUNTIME,
  type McpRuntime,
  METRICS_REGISTRY,
  provide,
  provided,
  WORKER_RUNTIME,
  type WorkerRuntime,
} from './app/extensions.js';
export {
  annotateHandler,
  assertStandardDecorator,
  type Guard,
  handlerMetadata,
  type HandlerMetadata,
  type McpToolOptions,
} from './serve/endpoint.js';
export { routeGuards } from './serve/invoke.js';
export type { RegisteredEndpoint } from './serve/compile.js';
export { guardDependency, isDependency } from './serve/dependency.js';
export { dependencyRunner } from './app/app.js';
export type { DependencyRun, DependencyRunner } from './serve/resolve.js';
export { errorResponse, type ErrorResponseOptions } from './serve/funnel.js';
export {
  EVENT_NAMES,
  HOOK_NAMES,
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
export { problemDetails, statusOf, type HTTPErrorOptions } from './http/errors.js';
export { problemResponse } from './http/response.js';
export { RequestHeaders, ResponseHeaders } from './http/headers.js';
export { isTextContentType, reasonPhrase, statusHasBody } from './http/facts.js';
export {
  CREDENTIAL_FIELDS,
  CREDENTIAL_HEADERS,
  CREDENTIAL_QUERY_PARAMS,
  isCredentialHeader,
  isCredentialQueryParam,
  markCredentialHeader,
  markCredentialQueryParam,
} from './http/credentials.js';
/** Stops a body stream without reading it (a generator's `finally` runs): a HEAD answer's, a replaced response's. */
export { closeStream } from './wire/answer.js';
export type { ClientInfo } from './http/request.js';
export { setSpanAttributes, spanAttributesOf } from './http/span-attributes.js';
export { addressKey, normalizeAddress } from './platform/address.js';
export { defaultLogger, roundMs, silentLogger } from './platform/logger.js';
export { currentSignal, runWithSignal } from './platform/signal-scope.js';
export { webSocketEnded } from './ws/endpoint.js';
export { PortUnavailableError } from './server/listen.js';
export type { SecurityRequirement } from '@fnapi/openapi';
// Node's built-ins at their point of use, the one way every package reaches them.
export { builtin, nodeBuiltin } from './platform/platform.js';
export { HubSubscription, MemoryHub, type HubStats, type SubscribeOptions } from './ws/hub.js';
// One reading of every duration option (seconds, or a string with its unit), for every package.
export { durationMs, durationSeconds, HOUR, type Duration, type DurationOptions } from '@fnapi/validation';
