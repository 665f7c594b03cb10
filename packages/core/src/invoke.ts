import {
  compileBinder,
  compileForm,
  compiledParser,
  isArrayLikeSchema,
  type RawInput,
  type ValidationIssue,
  type z,
} from '@fnapi/validation';
import { isJsonContentType } from './http.js';
import { type EndpointDefinition, type Guard, handlerMetadata } from './endpoint.js';
import { GatewayTimeoutError, RequestValidationError, UnsupportedMediaTypeError } from './errors.js';
import type { MaybePromise, Step } from './pipeline.js';
import type { Request } from './request.js';
// Busboy and the disk spool where node:stream and a file system exist; the platform's form parser elsewhere.
import { loadFormParser, readForm } from '#fnapi/form-reader';
import { fromWebResponse, isWebResponse, JSONResponse, Response } from './response.js';
import { compileStreamResult } from './streams.js';

/** Runs an endpoint's guards in order, before anything of the request is read. */
async function runGuards(guards: readonly Guard[], request: Request): Promise<void> {
  for (const guard of guards) await guard(request);
}

/** A returned value that did not fit the endpoint's `response` model: a server bug, so a 500. */
export class ResponseValidationError extends Error {
  constructor(
    readonly endpoint: string,
    readonly issues: readonly z.core.$ZodIssue[],
  ) {
    super(
      `${endpoint} returned a value that does not match its response model: ` +
        issues.map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`).join('; '),
    );
    this.name = 'ResponseValidationError';
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    value instanceof Promise || (typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function')
  );
}

function isStatus(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 100 && value <= 599;
}

function refuseContentType(contentType: string | null): UnsupportedMediaTypeError {
  return new UnsupportedMediaTypeError(
    `Expected a JSON body (application/json), got ${contentType ? `"${contentType}"` : 'no content type'}`,
  );
}

/**
 * Whether binding reads the body: absent → undefined; non-JSON content with bytes → 415 (the check is
 * made before reading, the refusal after, so an empty body of any type is fine).
 */
function bodyState(request: Request): 'none' | 'json' | 'other' {
  if (!request.hasBody) return 'none';
  return isJsonContentType(request.headerValue('content-type')) ? 'json' : 'other';
}

/** The binder's view of a request: the query is parsed only if the binder reads it. */
class RawView implements RawInput {
  constructor(
    private readonly request: Request,
    readonly body: unknown,
  ) {}
  get path(): Record<string, string> {
    return this.request.pathParams;
  }
  get query(): RawInput['query'] {
    return this.request.queryValues;
  }
  get headers(): RawInput['headers'] {
    return this.request.headers;
  }
  cookies = (): Record<string, string | undefined> => this.request.cookies;
}

/**
 * Compiles one endpoint into `request → Response`: the binder is built here, once; what the route
 * does not use (body, query, timeout, response model) costs nothing per request.
 */
export function compileInvoker(method: string, path: string, pathParams: string[], definition: EndpointDefinition): Step {
  const { options, handler } = definition;
  const params = options.params ?? {};
  const binder = compileBinder({ method, pathParams, params });
  const noInput = pathParams.length === 0 && Object.keys(params).length === 0;
  const usesBody = binder.usesBody;
  const model = options.response === undefined ? undefined : compiledParser(options.response);
  const modelIsArray = options.response !== undefined && isArrayLikeSchema(options.response);
  const explicitStatus = options.statusCode;
  const status = explicitStatus ?? 200;
  const label = `${method} ${path}`;

  const toResponse = (result: unknown): Response => {
    if (result instanceof Response) return result;
    if (result === undefined) return new Response(undefined, { statusCode: explicitStatus ?? 204 });
    if (isWebResponse(result)) return fromWebResponse(result);
    let body: unknown = result;
    let code = status;
    if (!modelIsArray && Array.isArray(result) && result.length === 2 && isStatus(result[1])) {
      body = result[0];
      code = result[1];
      if (body instanceof Response) {
        body.statusCode = code;
        return body;
      }
    }
    if (model !== undefined) {
      const parsed = model.safeParse(body);
      if (!parsed.success) throw new ResponseValidationError(label, parsed.error.issues);
      body = parsed.data;
    }
    // A plain Response renders an object as JSON just as JSONResponse does, and is cheaper to make;
    // strings and null still need JSONResponse (a Response would send them as text or empty).
    const response =
      body === undefined || (typeof body === 'object' && body !== null && !(body instanceof ArrayBuffer))
        ? new Response(body)
        : new JSONResponse(body);
    response.statusCode = code;
    return response;
  };

  const streamed = compileStreamResult(options, label);
  const callHandler = (input: Record<string, unknown>, request: Request): MaybePromise<Response> => {
    const result: unknown = handler(input, request);
    if (streamed !== undefined) return streamed(result, request);
    return isPromiseLike(result) ? Promise.resolve(result).then(toResponse) : toResponse(result);
  };
  const bindAndCall = (request: Request, body: unknown, issues?: ValidationIssue[]): MaybePromise<Response> => {
    const bound = binder(new RawView(request, body));
    if (!bound.ok) throw new RequestValidationError(issues ? [...issues, ...bound.issues] : bound.issues);
    if (issues?.length) throw new RequestValidationError(issues);
    return callHandler(bound.value, request);
  };
  // Sync all the way down when the route reads no body and the handler is sync: no promise at all.
  // One promise for the body: the bytes are parsed and bound in the same continuation.
  const callWithBody: Step = (request) => {
    switch (bodyState(request)) {
      case 'none':
        return bindAndCall(request, undefined);
      case 'json':
        return request.bytes().then((bytes) => bindAndCall(request, bytes.byteLength === 0 ? undefined : request.parseJson(bytes)));
      default:
        return request.bytes().then((bytes) => {
          if (bytes.byteLength === 0) return bindAndCall(request, undefined);
          throw refuseContentType(request.headerValue('content-type') ?? null);
        });
    }
  };
  // Forms and uploads: read (and spooled) whole before binding, so the handler runs only on a valid form.
  const form = compileForm(method, params, pathParams);
  // The multipart parser loads while the app is still being built, not on the first upload.
  if (form) loadFormParser().catch(() => {});
  const unguarded: Step = form
    ? (request) => readForm(request, form).then(({ body, issues }) => bindAndCall(request, body, issues))
    : usesBody
      ? callWithBody
      : noInput
        ? (request) => callHandler({}, request)
        : (request) => bindAndCall(request, undefined);

  const guards = handlerMetadata(handler)?.guards ?? [];
  const call: Step = guards.length === 0 ? unguarded : (request) => runGuards(guards, request).then(() => unguarded(request));

  const timeout = options.timeout;
  if (timeout === undefined || timeout <= 0) return call;
  const ms = timeout * 1000;
  return (request) =>
    new Promise<Response>((resolve, reject) => {
      const timer = setTimeout(() => {
        const error = new GatewayTimeoutError(`${label} did not answer within ${timeout} s`);
        request.abort(error);
        reject(error);
      }, ms);
      Promise.resolve()
        .then(() => call(request))
        .then(
          (response) => {
            clearTimeout(timer);
            resolve(response);
          },
          (error: unknown) => {
            clearTimeout(timer);
            reject(error);
          },
        );
    });
}
