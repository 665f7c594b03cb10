import type { CallNext, Request, Response } from '@fnapi/core';
import { spanAttributesOf, statusOf, webSocketEnded } from '@fnapi/core/extend';
import { Middleware } from '@fnapi/middleware';
import { ADDS_TRACE_IDS } from './logger.js';
import {
  type Attributes,
  isSpanContextValid,
  type Context,
  context,
  type ProxyTracerProvider,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type Tracer,
  trace,
} from '@opentelemetry/api';

export interface TracingMiddlewareOptions {
  /** The tracer to use; default `trace.getTracer('@fnapi/monitoring')` from the global provider. */
  tracer?: Tracer;
}

// Reads the carrier only when a propagator is registered: with none, headers stay unparsed.
const headerGetter: TextMapGetter<Request> = {
  keys: (request) => [...request.headers.keys()],
  get: (request, key) => request.headers.get(key) ?? undefined,
};

/**
 * One SERVER span per request, named `{method} {route}`, through `@opentelemetry/api` alone: the app
 * registers whichever SDK and exporter it likes; with none, each request costs a few no-op calls.
 * Continues the caller's `traceparent` (with a propagator registered), makes the span the active
 * context while the handler runs (so database and cache calls become its children), and marks a 5xx
 * or a thrown error as an error, recording the exception. Add it first, so it covers everything after it.
 */
export class TracingMiddleware extends Middleware {
  readonly tracer: Tracer;
  private readonly explicit: boolean;

  constructor(options: TracingMiddlewareOptions = {}) {
    super();
    // A proxy tracer: it follows a provider registered later.
    this.tracer = options.tracer ?? trace.getTracer('@fnapi/monitoring');
    this.explicit = options.tracer !== undefined;
  }

  /**
   * Whether a tracer provider is registered when the app compiles its chain: with none, the
   * middleware stays out of the chain and costs nothing per request. Register the SDK before the app
   * serves (OpenTelemetry's own advice: load it with `--import` ahead of the app).
   */
  isActive(): boolean {
    if (this.explicit) return true;
    // The global provider is a proxy; without a registered SDK it has no delegate tracer. Duck-typed:
    // the api's CommonJS and ES builds each have their own class.
    const provider = trace.getTracerProvider() as Partial<ProxyTracerProvider>;
    return typeof provider.getDelegateTracer !== 'function' || provider.getDelegateTracer('@fnapi/monitoring') !== undefined;
  }

  // Not async: an unsampled request passes on with no extra promise.
  dispatch(request: Request, callNext: CallNext): Promise<Response> {
    const parent = propagation.extract(context.active(), request, headerGetter);
    const span = this.tracer.startSpan(request.method, { kind: SpanKind.SERVER }, parent);
    if (!span.isRecording()) {
      // Keep only the caller's trace (for outgoing calls); skip every attribute.
      if (!trace.getSpanContext(parent)) return callNext(request);
      bindTraceIds(request, span);
      return context.with(trace.setSpan(parent, span), callNext, undefined, request);
    }
    bindTraceIds(request, span);
    return traced(span, parent, request, callNext);
  }
}

async function traced(span: Span, parent: Context, request: Request, callNext: CallNext): Promise<Response> {
  span.setAttributes(requestAttributes(request));
  let open = false;
  try {
    const response = await context.with(trace.setSpan(parent, span), callNext, undefined, request);
    finish(span, request, response.statusCode);
    // A WebSocket's span lasts as long as the connection, and ends with its close code.
    const ended = webSocketEnded(response);
    if (ended !== undefined) {
      open = true;
      void ended.then((end) => {
        span.setAttribute('websocket.close_code', end.code);
        span.addEvent('websocket.closed', { 'websocket.close_code': end.code, 'websocket.messages_sent': end.sent });
        span.end();
      });
    }
    return response;
  } catch (error) {
    span.recordException(error instanceof Error ? error : String(error));
    finish(span, request, statusOf(error), error);
    throw error;
  } finally {
    if (!open) span.end();
  }
}

/**
 * Puts the span's `trace_id` and `span_id` on the request's logger, so every line the request writes
 * carries them whichever pino logger the app was given (not only `createLogger`'s).
 */
function bindTraceIds(request: Request, span: Span): void {
  const spanContext = span.spanContext();
  if (!isSpanContextValid(spanContext)) return;
  const logger = request.logger;
  if ((logger as unknown as Record<symbol, boolean | undefined>)[ADDS_TRACE_IDS]) return;
  const { traceId, spanId, traceFlags } = spanContext;
  request.logger = request.logger.child({ trace_id: traceId, span_id: spanId, trace_flags: traceFlags });
}

function requestAttributes(request: Request): Attributes {
  const url = request.url;
  const ip = request.ip;
  const attributes: Attributes = {
    'http.request.method': request.method,
    'url.path': request.path,
    'url.scheme': url.protocol.slice(0, -1),
    'server.address': url.hostname,
  };
  if (url.port !== '') attributes['server.port'] = Number(url.port);
  if (ip !== undefined) attributes['client.address'] = ip;
  const agent = request.headers.get('user-agent');
  if (agent) attributes['user_agent.original'] = agent;
  const given = spanAttributesOf(request);
  return given === undefined ? attributes : Object.assign(attributes, given);
}

function finish(span: Span, request: Request, status: number, error?: unknown): void {
  const route = request.route;
  if (route !== undefined) {
    span.updateName(`${request.method} ${route}`);
    span.setAttribute('http.route', route);
  }
  span.setAttribute('http.response.status_code', status);
  if (status >= 500 || error !== undefined) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : undefined });
    span.setAttribute('error.type', error instanceof Error ? error.name : String(status));
  }
}
