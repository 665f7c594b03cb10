export { type ClientOptions, createClient, toFormData } from './client.js';
export { type EventOf, readEvents, readLines, type StreamEvent, StreamError, type StreamSource, type StreamingBody } from './read.js';
// openapi-fetch's types a caller names: the client, a call's options and answer, middleware. Its
// `Middleware` is renamed, as fnapi's server middleware owns that name.
export type {
  BodySerializer,
  Client,
  ClientMethod,
  ClientPathsWithMethod,
  FetchOptions,
  FetchResponse,
  HeadersOptions,
  MethodResponse,
  Middleware as ClientMiddleware,
  MiddlewareCallbackParams,
  ParseAs,
  PathSerializer,
  QuerySerializer,
  QuerySerializerOptions,
} from 'openapi-fetch';
