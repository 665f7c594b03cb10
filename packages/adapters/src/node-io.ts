import { BadRequestError } from '@fnapi/core';
import { afterAnswer, answer, collectBody, type NodeResponse, requestFrom, type Runtime, tooLarge, writeNode } from '@fnapi/core/transport';

/**
 * A Node request as platforms hand it over: an `IncomingMessage`, or an Express request whose body
 * the framework already read (`rawBody` with the bytes, `body` with the parsed value). Structural,
 * so that any platform's typings of it fit.
 */
export interface PlatformNodeRequest extends AsyncIterable<unknown> {
  readonly method?: string;
  readonly url?: string;
  readonly originalUrl?: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly socket?: { readonly remoteAddress?: string; readonly remotePort?: number } | null;
  readonly readableEnded?: boolean;
  readonly complete?: boolean;
  readonly rawBody?: Uint8Array;
  readonly body?: unknown;
}

/** The `ServerResponse` (or Express response) the answer is written to. */
export interface PlatformNodeResponse extends NodeResponse {
  readonly writableFinished: boolean;
  once(event: 'close', listener: () => void): unknown;
}

/** An fnapi request over a Node request whose body may already have been consumed upstream. */
function platformRequest(
  source: PlatformNodeRequest,
  response: PlatformNodeResponse,
  bodyLimit: number,
  runtime: 'vercel' | 'cloud-function',
  waitUntil: ((promise: Promise<unknown>) => void) | undefined,
) {
  const url = source.originalUrl ?? source.url ?? '/';
  const q = url.indexOf('?');
  const encrypted = (source.socket as { encrypted?: boolean } | null | undefined)?.encrypted === true;
  const forwarded = source.headers['x-forwarded-proto'];
  const proto = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
  return requestFrom({
    method: source.method ?? 'GET',
    path: q === -1 ? url : url.slice(0, q),
    query: q === -1 ? '' : url.slice(q + 1),
    headers: source.headers as Record<string, string | string[]>,
    protocol: proto === 'https' || (proto === undefined && encrypted) ? 'https' : 'http',
    client: { address: source.socket?.remoteAddress, port: source.socket?.remotePort },
    platform: { runtime, ctx: { req: source, res: response } },
    body: (limit) => readPlatformBody(source, limit),
    onDisconnect: (abort) => {
      response.once('close', () => {
        if (!response.writableFinished) abort(new Error('client disconnected'));
      });
    },
    bodyLimit,
    waitUntil,
  });
}

async function readPlatformBody(source: PlatformNodeRequest, limit: number): Promise<Uint8Array> {
  if (source.rawBody instanceof Uint8Array) return withinLimit(source.rawBody, limit);
  // Nobody read the stream yet: read it here.
  if (!source.readableEnded && !source.complete) return collectBody(source as AsyncIterable<Uint8Array>, limit);
  return withinLimit(alreadyParsed(source), limit);
}

function withinLimit(bytes: Uint8Array, limit: number): Uint8Array {
  if (bytes.byteLength > limit) throw tooLarge(limit);
  return bytes;
}

/** The bytes of a body that an upstream parser consumed and left only as `req.body`. */
function alreadyParsed(source: PlatformNodeRequest): Uint8Array {
  let body: unknown;
  try {
    body = source.body;
  } catch (error) {
    // Vercel's `req.body` is a getter that parses on access and throws on malformed JSON.
    throw new BadRequestError(`Malformed JSON body: ${(error as Error).message}`);
  }
  if (body === undefined || body === null) return new Uint8Array(0);
  if (body instanceof Uint8Array) return body;
  if (typeof body === 'string') return Buffer.from(body);
  // A parsed value (JSON or form) is handed on as JSON: the best that can be rebuilt.
  return Buffer.from(JSON.stringify(body));
}

/** Vercel's `waitUntil` for the current invocation (what `@vercel/functions` reads), where the runtime has one. */
export function vercelWaitUntil(): ((promise: Promise<unknown>) => void) | undefined {
  const context = (
    globalThis as Record<symbol, { get?: () => { waitUntil?: (promise: Promise<unknown>) => void } | undefined } | undefined>
  )[Symbol.for('@vercel/request-context')]?.get?.();
  const waitUntil = context?.waitUntil;
  return typeof waitUntil === 'function' ? (promise) => waitUntil.call(context, promise) : undefined;
}

/**
 * Serves a Node request/response pair through the app and writes the answer, streaming if it streams.
 * Deferred work (`request.defer`): handed to the platform's `waitUntil` where it has one (Vercel);
 * otherwise the platform may stop the function once the response ends, so the whole answer is written
 * (a client with its `Content-Length` has it all), the deferred tasks run, and only then is the
 * response ended.
 */
export async function serveNode(
  app: Runtime,
  req: PlatformNodeRequest,
  res: PlatformNodeResponse,
  platform: unknown,
  waitUntil?: (promise: Promise<unknown>) => void,
): Promise<void> {
  const request = platformRequest(req, res, app.limits.bodyLimit, (platform as { name: 'vercel' | 'cloud-function' }).name, waitUntil);
  request.state.platform = platform;
  const out = await answer(app, request);
  if (res.headersSent) {
    app.logger.error({ path: request.path }, 'response headers were already sent by someone else; answer dropped');
    return;
  }
  // Without a `waitUntil` the platform may stop the function once the response ends: the whole answer
  // is written, the deferred tasks run, and only then is the response ended.
  if (waitUntil === undefined) await writeNode(res, out, { logger: app.logger, beforeEnd: () => afterAnswer(request) });
  else {
    await writeNode(res, out, { logger: app.logger });
    afterAnswer(request);
  }
}
