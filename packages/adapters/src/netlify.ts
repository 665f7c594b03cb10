import { answerWeb, requestFrom, type Runtime, runtimeOf, type Servable } from '@fnapi/core/transport';
import { restProcessor } from './lambda.js';
import { type BinaryOptions, serveBuffered } from './platform-result.js';

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

  constructor(app: Servable, options: NetlifyAdapterOptions = {}) {
    this.app = runtimeOf(app);
    this.options = options;
  }

  /** The function (bound: `export const handler = adapter.handle` or `export default adapter.handle`). */
  handle: {
    (request: globalThis.Request, context?: unknown): Promise<globalThis.Response>;
    (event: NetlifyEvent, context?: unknown): Promise<NetlifyResult>;
  } = ((input: globalThis.Request | NetlifyEvent, context?: unknown) =>
    isWebRequest(input) ? this.handleRequest(input, context) : this.handleEvent(input, context)) as NetlifyAdapter['handle'];

  private async handleRequest(request: globalThis.Request, context?: unknown): Promise<globalThis.Response> {
    if (this.options.stripFunctionPath) {
      const url = new URL(request.url);
      const path = functionPath(url.pathname, this.options);
      if (path !== url.pathname) {
        url.pathname = path;
        request = new globalThis.Request(url, request);
      }
    }
    // Functions v2 hand a context with `waitUntil`: request.waitUntil and deferred work go there.
    const platformWaitUntil = (context as { waitUntil?: (promise: Promise<unknown>) => void } | undefined)?.waitUntil;
    return answerWeb(this.app, request, {
      platform: { runtime: 'netlify', ctx: context },
      waitUntil: typeof platformWaitUntil === 'function' ? (promise) => platformWaitUntil.call(context, promise) : undefined,
    });
  }

  // A v1 event is a REST event: its processor builds the parts and the result; only the path (the
  // function's prefix), the raw query and the client address header differ.
  private async handleEvent(event: NetlifyEvent, context: unknown): Promise<NetlifyResult> {
    const parts = restProcessor.parts({ ...event, path: functionPath(event.path, this.options) } as never, {});
    const rawQuery = event.rawQuery;
    if (rawQuery !== undefined) parts.query = rawQuery.startsWith('?') ? rawQuery.slice(1) : rawQuery;
    parts.client = { address: firstValue(parts.headers['x-nf-client-connection-ip']) };
    const request = requestFrom({ ...parts, platform: { runtime: 'netlify', ctx: context }, bodyLimit: this.app.limits.bodyLimit });
    request.state.platform = { name: 'netlify', event, context } satisfies NetlifyPlatform;
    const result = await serveBuffered(this.app, request);
    return restProcessor.result(event as never, result, this.options, this.app) as NetlifyResult;
  }
}

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
