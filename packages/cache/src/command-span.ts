import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

// A proxy tracer: no-op until the app registers an OpenTelemetry SDK, which it then follows.
const tracer = trace.getTracer('@fnapi/cache');

/**
 * Runs a Redis command inside a CLIENT span, a child of the active one (the request's, under
 * `TracingMiddleware`). `text` is the command without its keys and values (`GET ?`).
 */
export async function inCommandSpan<T>(operation: string, text: string, run: () => Promise<T>): Promise<T> {
  if (!trace.getActiveSpan()?.isRecording()) return run();
  const span = tracer.startSpan(operation, {
    kind: SpanKind.CLIENT,
    attributes: { 'db.system.name': 'redis', 'db.operation.name': operation, 'db.query.text': text },
  });
  try {
    return await run();
  } catch (error) {
    span.recordException(error as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
    throw error;
  } finally {
    span.end();
  }
}
