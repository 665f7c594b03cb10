import { type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

// A proxy tracer: no-op until the app registers an OpenTelemetry SDK, which it then follows.
const tracer = trace.getTracer('@fnapi/performance');

/** The SQL command, as `db.operation.name` wants it: `SELECT`, `INSERT`, … */
function operationOf(text: string): string {
  const match = /^\s*(?:--[^\n]*\n\s*)*([A-Za-z]+)/.exec(text);
  return match ? match[1]!.toUpperCase() : 'QUERY';
}

/** The query without literal values (strings and numbers become `?`; `$1` placeholders stay). */
export function queryWithoutValues(text: string): string {
  return text.replace(/'(?:[^']|'')*'/g, '?').replace(/(?<![\w$])\d+(?:\.\d+)?\b/g, '?');
}

/**
 * Runs a PostgreSQL query inside a CLIENT span, a child of the active one (the request's, under
 * `TracingMiddleware`). With no SDK registered no span records and only the query runs.
 */
export async function inQuerySpan<T>(text: string, run: () => Promise<T>): Promise<T> {
  if (!trace.getActiveSpan()?.isRecording()) return run();
  const operation = operationOf(text);
  const span: Span = tracer.startSpan(operation, {
    kind: SpanKind.CLIENT,
    attributes: { 'db.system.name': 'postgresql', 'db.operation.name': operation, 'db.query.text': queryWithoutValues(text) },
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
