import { Request } from '@fnapi/core';
import { type BinaryOptions, encodeBody, serveBuffered, splitHeaders } from './platform-result.js';
import { decodeBody, encodeQuery, lowerCaseHeaders, protocolOf, toWirePath } from './event-parts.js';
import { handleFetch, type Runtime } from '@fnapi/core/transport';

/** A Netlify Functions v1 event (the Lambda-compatible shape). */
export interface NetlifyEvent {
  httpMethod: string;
  path: string;
  rawUrl?: string;
  /** The query as sent; Netlify has delivered it both with and without the leading `?`. */
  rawQuery?: string;
  headers?: Record<string, string | undefined>;
  multiValueHeaders?: Record<string, string[] | undefined>;
  queryStringParameters?: Record<string, string | undefined> | null;
  multiValueQueryStringParameters?: Record<string, string[] | undefined> | null;
  body?: string | null;
  isBase64Encoded?: boolean;
  [key: string]: unknown;
}

/** A Netlify Functions v1 result. */
export interface NetlifyResult {
  statusCode: number;
  headers: Record<string, string>;
  multiValueHeaders: Record<string, string[]>;
  body: string;
  isBase64Encoded: boolean;
}

export interface NetlifyAdapterOptions extends BinaryOptions {
  /** Remove `/.netlify/functions/<name>` from the front of the path. Default false. */
  stripFunctionPath?: boolean;
}

/** What a handler finds in `request.state.platform` when it is served through a v1 Netlify Function. */
export interface NetlifyPlatform {
  name: 'netlify';
  event: NetlifyEvent;
  context: unknown;
}

const FUNCTION_PATH = /^\/\.netlify\/functions\/[^/]+/;

function functionPath(path: string, options: NetlifyAdapterOptions): string {
  if (!options.stripFunctionPath) return path;
  const stripped = path.replace(FUNCTION_PATH, '');
  return stripped === '' ? '/' : stripped;
}

function isWebRequest(value: unknown): value is globalThis.Request {
  return value instanceof globalThis.Request;
}

/**
 * Serves an app as a Netlify Function: `handle(event, context)` for Functions v1 (answering in the
 * Lambda result shape) and `handle(request, context)` with a Web `Request` for Functions v2.
 */
export class NetlifyAdapter {
  private readonly app: Runtime;
  private readonly options: NetlifyAdapterOptions;

  constructor(app: Runtime, options: NetlifyAdapterOptions = {}) {
    this.app = app;
    this.options = options;
  }

  /** The function (bound: `export const handler = adapter.handle` or `export default adapter.handle`). */
  handle: {
    (request: globalThis.Request, context?: unknown): Promise<globalThis.Response>;
    (event: NetlifyEvent, context?: unknown): Promise<NetlifyResult>;
  } = ((input: globalThis.Request | NetlifyEvent, context?: unknown) =>
    isWebRequest(input) ? this.handleRequest(input) : this.handleEvent(input, context)) as NetlifyAdapter['handle'];

  private async handleRequest(request: globalThis.Request): Promise<globalThis.Response> {
    if (this.options.stripFunctionPath) {
      const url = new URL(request.url);
      const path = functionPath(url.pathname, this.options);
      if (path !== url.pathname) {
        url.pathname = path;
        request = new globalThis.Request(url, request);
      }
    }
    return handleFetch(this.app, request);
  }

  private async handleEvent(event: NetlifyEvent, context: unknown): Promise<NetlifyResult> {
    const headers = lowerCaseHeaders(event.headers, event.multiValueHeaders);
    const rawQuery = event.rawQuery;
    const request = new Request({
      method: event.httpMethod,
      path: toWirePath(functionPath(event.path, this.options)),
      query:
        rawQuery !== undefined
          ? rawQuery.startsWith('?')
            ? rawQuery.slice(1)
            : rawQuery
          : encodeQuery(event.multiValueQueryStringParameters ?? event.queryStringParameters),
      headers,
      body: decodeBody(event.body, event.isBase64Encoded),
      client: { address: firstValue(headers['x-nf-client-connection-ip']) },
      protocol: protocolOf(headers, 'https'),
      bodyLimit: this.app.limits.bodyLimit,
    });
    request.state.platform = { name: 'netlify', event, context } satisfies NetlifyPlatform;
    const result = await serveBuffered(this.app, request);
    return { statusCode: result.status, ...splitHeaders(result.headers), ...encodeBody(result, this.options) };
  }
}

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
