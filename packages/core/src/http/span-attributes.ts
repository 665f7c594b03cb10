import type { Request } from './request.js';

type Attributes = Readonly<Record<string, string | number | boolean>>;

/** Attributes a transport gives a request's span (MCP's `mcp.method.name`, `gen_ai.tool.name`); read by tracing. */
const attributes = new WeakMap<Request, Attributes>();

/** Gives the span of `request` these attributes besides the HTTP ones (set before the request is served). */
export function setSpanAttributes(request: Request, values: Attributes): void {
  attributes.set(request, values);
}

/** The attributes a transport gave the span of `request`, if any. */
export function spanAttributesOf(request: Request): Attributes | undefined {
  return attributes.get(request);
}
