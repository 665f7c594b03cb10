import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { Request } from '@fnapi/core';
import { reasonPhrase } from '@fnapi/core/extend';
import {
  type BinaryOptions,
  type BufferedResult,
  encodeBody,
  headerPairs,
  multiValueHeaders,
  serveBuffered,
  setCookies,
  singleValueHeaders,
  splitHeaders,
} from './platform-result.js';
import { decodeBody, encodeQuery, joinRawQuery, lowerCaseHeaders, protocolOf, stripPrefix, toWirePath } from './event-parts.js';
import {
  afterAnswer,
  answer,
  type RequestParts,
  requestFrom,
  type Runtime,
  drain,
  streamBody,
  toChunk,
  writeChunk,
  runtimeOf,
  type Servable,
} from '@fnapi/core/transport';

// The event and result shapes, as far as the adapter reads or writes them (the full ones are in
// `@types/aws-lambda`, which users need not install).

/** API Gateway REST API (payload format 1.0) proxy event. */
export interface APIGatewayProxyEvent {
  httpMethod: string;
  path: string;
  headers?: Record<string, string | undefined> | null;
  multiValueHeaders?: Record<string, string[] | undefined> | null;
  queryStringParameters?: Record<string, string | undefined> | null;
  multiValueQueryStringParameters?: Record<string, string[] | undefined> | null;
  body?: string | null;
  isBase64Encoded?: boolean;
  requestContext: { stage?: string; identity?: { sourceIp?: string | null; [key: string]: unknown }; [key: string]: unknown };
  [key: string]: unknown;
}

/** API Gateway HTTP API (payload format 2.0) and Lambda Function URL event. */
export interface APIGatewayProxyEventV2 {
  version: '2.0' | string;
  rawPath: string;
  rawQueryString?: string;
  cookies?: string[];
  headers?: Record<string, string | undefined> | null;
  body?: string | null;
  isBase64Encoded?: boolean;
  requestContext: {
    stage?: string;
    domainName?: string;
    http: { method: string; sourceIp?: string; [key: string]: unknown };
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** Application Load Balancer target event (single- or multi-value headers). */
export interface ALBEvent {
  httpMethod: string;
  path: string;
  headers?: Record<string, string | undefined>;
  multiValueHeaders?: Record<string, string[] | undefined>;
  queryStringParameters?: Record<string, string | undefined>;
  multiValueQueryStringParameters?: Record<string, string[] | undefined>;
  body?: string | null;
  isBase64Encoded?: boolean;
  requestContext: { elb: { targetGroupArn: string } };
  [key: string]: unknown;
}

export type LambdaEvent = APIGatewayProxyEvent | APIGatewayProxyEventV2 | ALBEvent;

/** Result of a REST (v1) event: no `cookies` key (API Gateway answers 502 to unknown keys). */
export interface APIGatewayProxyResult {
  statusCode: number;
  headers: Record<string, string>;
  multiValueHeaders: Record<string, string[]>;
  body: string;
  isBase64Encoded: boolean;
}

/** Result of an HTTP API (v2) or Function URL event. */
export interface APIGatewayProxyResultV2 {
  statusCode: number;
  headers: Record<string, string>;
  cookies?: string[];
  body: string;
  isBase64Encoded: boolean;
}

/** Result of an ALB event: `multiValueHeaders` when the target group has them enabled, else `headers`. */
export interface ALBResult {
  statusCode: number;
  statusDescription: string;
  headers?: Record<string, string>;
  multiValueHeaders?: Record<string, string[]>;
  body: string;
  isBase64Encoded: boolean;
}

export type LambdaResult = APIGatewayProxyResult | APIGatewayProxyResultV2 | ALBResult;

/** The Lambda context, as far as the adapter passes it on (see `request.state.platform`). */
export interface LambdaContext {
  awsRequestId?: string;
  [key: string]: unknown;
}

export interface LambdaAdapterOptions extends BinaryOptions {
  /** Remove a leading `/<requestContext.stage>` from the path (never the `$default` stage). Default false. */
  stripStagePath?: boolean;
  /** A custom domain's base path mapping, e.g. `/v1`, removed from the front of the path. */
  basePath?: string;
}

/** What a handler finds in `request.state.platform` when it is served through Lambda. */
export interface LambdaPlatform {
  name: 'lambda';
  event: LambdaEvent;
  context: LambdaContext | undefined;
}

/** The Node.js runtime's `awslambda` global (response streaming). */
interface AwsLambdaGlobal {
  streamifyResponse(
    handler: (event: LambdaEvent, stream: Writable, context: LambdaContext) => Promise<void>,
  ): (event: LambdaEvent, stream: Writable, context: LambdaContext) => Promise<void>;
  HttpResponseStream: { from(stream: Writable, prelude: Record<string, unknown>): Writable };
}

/** A request's parts as an event gives them (the body limit is the app's). */
export type EventParts = Omit<RequestParts, 'bodyLimit'>;

/**
 * One kind of event: only what differs per kind, its parts and its result shape. The request is then
 * built by core's one `requestFrom`, and the answer comes from core's one `answer`.
 */
export interface EventProcessor<E, R> {
  parts(event: E, options: LambdaAdapterOptions): EventParts;
  result(event: E, result: BufferedResult, options: LambdaAdapterOptions, app: Runtime): R;
  /** The metadata prelude of a streamed answer. */
  prelude(status: number, headers: [string, string][]): Record<string, unknown>;
}

/** API Gateway's own request id, used as `request.id` when the client sent none. */
function gatewayRequestId(context: { [key: string]: unknown } | undefined): string | undefined {
  const id = context?.requestId;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

function stagePath(path: string, stage: string | undefined, options: LambdaAdapterOptions): string {
  let out = path;
  if (options.stripStagePath && stage && stage !== '$default') out = stripPrefix(out, `/${stage}`);
  if (options.basePath) out = stripPrefix(out, options.basePath);
  return toWirePath(out);
}

export const restProcessor: EventProcessor<APIGatewayProxyEvent, APIGatewayProxyResult> = {
  parts(event, options) {
    const headers = lowerCaseHeaders(event.headers, event.multiValueHeaders);
    return {
      method: event.httpMethod,
      path: stagePath(event.path, event.requestContext?.stage, options),
      // API Gateway delivers decoded values; the multi-value map holds every repeated key.
      query: encodeQuery(event.multiValueQueryStringParameters ?? event.queryStringParameters),
      headers,
      body: decodeBody(event.body, event.isBase64Encoded),
      client: { address: event.requestContext?.identity?.sourceIp ?? undefined },
      protocol: protocolOf(headers, 'https'),
      id: gatewayRequestId(event.requestContext),
    };
  },
  result(_event, result, options) {
    const { headers, multiValueHeaders: multi } = splitHeaders(result.headers);
    return { statusCode: result.status, headers, multiValueHeaders: multi, ...encodeBody(result, options) };
  },
  prelude(status, pairs) {
    const { headers, multiValueHeaders: multi } = splitHeaders(pairs);
    return { statusCode: status, headers, multiValueHeaders: multi };
  },
};

const httpApiProcessor: EventProcessor<APIGatewayProxyEventV2, APIGatewayProxyResultV2> = {
  parts(event, options) {
    const headers = lowerCaseHeaders(event.headers);
    // v2 moves the Cookie header into `cookies`.
    if (event.cookies && event.cookies.length > 0) headers.cookie = event.cookies.join('; ');
    if (headers.host === undefined && event.requestContext.domainName) headers.host = event.requestContext.domainName;
    return {
      method: event.requestContext.http.method,
      path: stagePath(event.rawPath, event.requestContext.stage, options),
      // `queryStringParameters` joins repeated keys with commas; the raw string keeps them apart.
      query: event.rawQueryString ?? '',
      headers,
      body: decodeBody(event.body, event.isBase64Encoded),
      client: { address: event.requestContext.http.sourceIp },
      protocol: protocolOf(headers, 'https'),
      id: gatewayRequestId(event.requestContext),
    };
  },
  result(_event, result, options) {
    const out: APIGatewayProxyResultV2 = {
      statusCode: result.status,
      headers: singleValueHeaders(result.headers),
      body: '',
      isBase64Encoded: false,
    };
    const cookies = setCookies(result.headers);
    if (cookies.length > 0) out.cookies = cookies;
    Object.assign(out, encodeBody(result, options));
    return out;
  },
  prelude(status, pairs) {
    const prelude: Record<string, unknown> = { statusCode: status, headers: singleValueHeaders(pairs) };
    const cookies = setCookies(pairs);
    if (cookies.length > 0) prelude.cookies = cookies;
    return prelude;
  },
};

const albProcessor: EventProcessor<ALBEvent, ALBResult> = {
  parts(event, options) {
    const headers = lowerCaseHeaders(event.headers, event.multiValueHeaders);
    return {
      method: event.httpMethod,
      path: stagePath(event.path, undefined, options),
      // ALB passes the query on as sent: still percent-encoded, so it is joined, not encoded again.
      query: joinRawQuery(event.multiValueQueryStringParameters ?? event.queryStringParameters),
      headers,
      body: decodeBody(event.body, event.isBase64Encoded),
      client: { address: firstForwardedFor(headers['x-forwarded-for']) },
      protocol: protocolOf(headers, 'http'),
    };
  },
  result(event, result, options, app) {
    const base = {
      statusCode: result.status,
      statusDescription: `${result.status} ${reasonPhrase(result.status)}`,
      ...encodeBody(result, options),
    };
    if (event.multiValueHeaders !== undefined) return { ...base, multiValueHeaders: multiValueHeaders(result.headers) };
    // Without multi-value headers the target group carries one value per name: repeated headers are
    // joined, and only the last Set-Cookie survives.
    const headers = singleValueHeaders(result.headers);
    const cookies = setCookies(result.headers);
    if (cookies.length > 0) {
      headers['set-cookie'] = cookies[cookies.length - 1];
      if (cookies.length > 1) {
        app.logger.warn(
          { dropped: cookies.slice(0, -1).map(cookieName) },
          'ALB target group without multi-value headers carries one Set-Cookie; only the last was sent (enable multi-value headers on the target group to keep all)',
        );
      }
    }
    return { ...base, headers };
  },
  // ALB does not stream; an ALB event reaching a streaming handler gets the REST prelude.
  prelude: (status, pairs) => restProcessor.prelude(status, pairs),
};

function cookieName(setCookie: string): string {
  const eq = setCookie.indexOf('=');
  return eq === -1 ? setCookie : setCookie.slice(0, eq).trim();
}

function firstForwardedFor(value: string | string[] | undefined): string | undefined {
  const header = Array.isArray(value) ? value[0] : value;
  return header?.split(',')[0]?.trim() || undefined;
}

function processorFor(event: LambdaEvent): EventProcessor<LambdaEvent, LambdaResult> {
  const context = (event as { requestContext?: Record<string, unknown> }).requestContext;
  if (context !== undefined && 'elb' in context) return albProcessor as unknown as EventProcessor<LambdaEvent, LambdaResult>;
  if ('rawPath' in event && (event as APIGatewayProxyEventV2).version === '2.0') {
    return httpApiProcessor as unknown as EventProcessor<LambdaEvent, LambdaResult>;
  }
  if ('httpMethod' in event) return restProcessor as unknown as EventProcessor<LambdaEvent, LambdaResult>;
  throw new TypeError('LambdaAdapter: the event is not an API Gateway (REST or HTTP API), Function URL or ALB request event');
}

/**
 * Serves an app on AWS Lambda. `handle` answers API Gateway REST (v1), HTTP API (v2), Function URL
 * and ALB events, each in its own result shape; `streamHandler()` streams answers (Function URLs and
 * REST APIs with response streaming).
 */
export class LambdaAdapter {
  private readonly app: Runtime;
  private readonly options: LambdaAdapterOptions;

  constructor(app: Servable, options: LambdaAdapterOptions = {}) {
    this.app = runtimeOf(app);
    this.options = options;
  }

  /** The Lambda handler (bound: `export const handler = adapter.handle`). */
  handle = async (event: LambdaEvent, context?: LambdaContext): Promise<LambdaResult> => {
    const processor = processorFor(event);
    const request = this.request(processor, event, context);
    const result = await serveBuffered(this.app, request);
    // Lambda freezes the container once the handler returns: work handed to request.waitUntil
    // finishes first (one invocation at a time per container, so only this one's is pending).
    await drain(this.app, this.app.limits.shutdownTimeout);
    return processor.result(event, result, this.options, this.app);
  };

  /**
   * A handler for response streaming, wrapped with the runtime's `awslambda.streamifyResponse`:
   * status, headers and cookies go out in the metadata prelude before the first chunk, and each
   * chunk is written as the app produces it, waiting whenever the stream asks to (backpressure).
   */
  streamHandler(): (event: LambdaEvent, stream: Writable, context: LambdaContext) => Promise<void> {
    const runtime = (globalThis as { awslambda?: AwsLambdaGlobal }).awslambda;
    if (runtime === undefined) {
      throw new Error('LambdaAdapter.streamHandler() needs the Lambda Node.js runtime (its `awslambda` global); use handle() elsewhere');
    }
    return runtime.streamifyResponse(async (event, responseStream, context) => {
      const processor = processorFor(event);
      const request = this.request(processor, event, context);
      const out = await answer(this.app, request);
      const stream = runtime.HttpResponseStream.from(responseStream, processor.prelude(out.status, headerPairs(out)));
      const closed = () => request.abort(new Error('client disconnected'));
      stream.once('close', closed);
      try {
        if (out.stream !== undefined) {
          const finished = once(stream, 'finish');
          finished.catch(() => {});
          // A failed stream is logged and cut off by the writer; the invocation ends quietly.
          if (await streamBody(stream, out.stream, this.app.logger)) await finished;
          // Deferred work runs before the invocation ends: Lambda freezes the process after it.
          await afterAnswer(request);
          return;
        }
        if (out.body !== null) {
          await writeChunk(stream, toChunk(out.body));
        } else {
          // The prelude goes out with the first write; an empty body still needs one.
          await writeChunk(stream, new Uint8Array(0));
        }
        // A client that went away ends the invocation quietly: there is no one left to answer.
        if (!stream.destroyed) {
          const done = once(stream, 'finish');
          stream.end();
          await done;
        }
        // Deferred work runs before the invocation ends: Lambda freezes the process after it.
        await afterAnswer(request);
      } catch (error) {
        if (request.aborted) return;
        this.app.logger.error({ err: error }, 'streamed response failed');
        if (!stream.destroyed) stream.destroy(error as Error);
        throw error;
      } finally {
        stream.off('close', closed);
      }
    });
  }

  private request(processor: EventProcessor<LambdaEvent, LambdaResult>, event: LambdaEvent, context: LambdaContext | undefined): Request {
    const request = requestFrom({
      ...processor.parts(event, this.options),
      platform: { runtime: 'lambda', ctx: context },
      bodyLimit: this.app.limits.bodyLimit,
    });
    request.state.platform = { name: 'lambda', event, context } satisfies LambdaPlatform;
    return request;
  }
}
