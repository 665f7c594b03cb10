import {
  compileBinder,
  compileForm,
  compiledParser,
  compileJsonWriter,
  durationMs,
  HOUR,
  isArrayLikeSchema,
  type Binder,
  type BindResult,
  type JsonWriter,
  type RawInput,
  type ValidationIssue,
} from '@fnapi/validation';
import { isJsonContentType } from '../http/facts.js';
import { type EndpointDefinition, type Guard, handlerGuards } from './endpoint.js';
import { GatewayTimeoutError, RequestValidationError, ResponseValidationError, UnsupportedMediaTypeError } from '../http/errors.js';
import { type Done, isPromiseLike, settle, type Step } from './pipeline.js';
import type { Request } from '../http/request.js';
import { headerValueOf, parseJsonOf, readBytesOf } from '../http/request-access.js';
// Busboy and the disk spool where node:stream and a file system exist; the platform's form parser elsewhere.
import { loadFormParser, readForm } from '#fnapi/form-reader';
import {
  fromWebResponse,
  isWebResponse,
  JSONResponse,
  OBJECT_WRITER,
  Response,
  StreamingResponse,
  SWITCHES_PROTOCOLS,
  WrittenJSONResponse,
} from '../http/response.js';
import { ObjectWriter } from '../http/json-text.js';
import { compileStreamResult } from './streams.js';
import { mergeResponseHeaders } from '../http/cookies.js';
import { pruneUnset } from './exclude-unset.js';
import { isBinarySchema } from '../http/binary.js';
import { FileResponse } from '../http/file-response.js';
import { afterDeferred } from '../http/deferred.js';
import { closeAll, type DependencyPlan, handlerInput, repeatKey, Resolution, resolveSteps, runGuardSlots, throwInto } from './resolve.js';

/** Runs an endpoint's guards in order, before anything of the request is read. */
async function runGuards(guards: readonly Guard[], request: Request): Promise<void> {
  for (const guard of guards) await guard(request);
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
  return isJsonContentType(headerValueOf(request, 'content-type')) ? 'json' : 'other';
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
  queryString(): string {
    return this.request.rawQuery;
  }
  get headers(): RawInput['headers'] {
    return this.request.headers;
  }
  // A method, not an arrow field: a view costs no closure.
  cookies(): Record<string, string | undefined> {
    return this.request.cookies;
  }
}

/**
 * Compiles one endpoint into `request → Response`: the binder is built here, once; what the route
 * does not use (body, query, timeout, response model) costs nothing per request. `afterGuards` wraps
 * what follows the guards (the endpoint's own middleware, which so sees `request.auth`).
 */
export function compileInvoker(
  method: string,
  path: string,
  pathParams: string[],
  definition: EndpointDefinition,
  afterGuards?: (next: Step) => Step,
  plan?: DependencyPlan,
): Step {
  const { options, handler } = definition;
  // With dependencies, their params are bound with the endpoint's, in one pass.
  const params = plan?.params ?? options.params ?? {};
  const binder = compileBinder({ method, pathParams, params });
  // A name two declarers read with different schemas: each other schema binds it again, from the same request.
  const repeatBinders = (plan?.repeats ?? []).map((shape) => compileBinder({ method, pathParams, params: shape }));
  const noInput = pathParams.length === 0 && Object.keys(params).length === 0 && (plan === undefined || plan.repeats.length === 0);
  const usesBody = binder.usesBody || repeatBinders.some((b) => b.usesBody);
  const binaryResponse = options.response !== undefined && isBinarySchema(options.response);
  const model = options.response === undefined || binaryResponse ? undefined : compiledParser(options.response);
  // A `binary()` endpoint answers with a `FileResponse` or a `Response`; anything else is a server bug.
  const binaryAnswer = (value: unknown): Response => {
    if (value instanceof Response) return value;
    if (isWebResponse(value)) return fromWebResponse(value);
    throw new ResponseValidationError(label, [
      { code: 'custom', path: [], message: 'a binary() endpoint answers with a FileResponse or a Response', input: value } as never,
    ]);
  };
  const modelIsArray = options.response !== undefined && isArrayLikeSchema(options.response);
  const explicitStatus = options.statusCode;
  const status = explicitStatus ?? 200;
  const label = `${method} ${path}`;
  const excludeUnset = options.responseExcludeUnset === true;
  // The model's JSON writer checks and writes in one pass; it is made on the first answer, as the
  // parser is, so an app that never calls the route (a cold start) does not generate it.
  let writer: JsonWriter | undefined | null = model === undefined || excludeUnset ? null : undefined;
  // The model's output of a value its writer vouched for (zod accepts it), made when middleware reads it.
  const modelOutput = (value: unknown): unknown => {
    const parsed = model!.safeParse(value);
    return parsed.success ? parsed.data : value;
  };

  // The JSON of the route's plain-object answers, by code made for their keys.
  const objectWriter = new ObjectWriter();
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
      if (writer === undefined) writer = compileJsonWriter(options.response) ?? null;
      const json = writer === null ? undefined : writer(body);
      if (json !== undefined) return new WrittenJSONResponse(json, body, modelOutput, code);
      const parsed = model.safeParse(body);
      if (!parsed.success) throw new ResponseValidationError(label, parsed.error.issues);
      body = excludeUnset ? pruneUnset(parsed.data, body) : parsed.data;
    }
    // A plain Response renders an object as JSON just as JSONResponse does, and is cheaper to make;
    // strings and null still need JSONResponse (a Response would send them as text or empty).
    if (body === undefined || (typeof body === 'object' && body !== null && !(body instanceof ArrayBuffer))) {
      const response = new Response(body);
      response.statusCode = code;
      // A plain object is written by the route's own writer (code made for the keys it has).
      response[OBJECT_WRITER] = objectWriter;
      return response;
    }
    const response = new JSONResponse(body);
    response.statusCode = code;
    return response;
  };

  const streamed = compileStreamResult(options, label);
  // What the handler set on its request (`responseHeaders`, cookies) joins its answer. A file is
  // settled against the request here, so middleware around the endpoint sees the answer it will be
  // (304, 206, or the funnel's 404/416); the runtime prepares one a middleware returned. A stream waits
  // here for its first chunk, so a source that fails before it is an error answer, not a 200 cut off.
  const withExtras = (response: Response, request: Request, done: Done): void => {
    const extra = request.responseHeadersIfAny;
    if (extra !== undefined) mergeResponseHeaders(response.headers, extra);
    if (response instanceof FileResponse) settle(response.prepare(request), done);
    else if (response instanceof StreamingResponse && !response.primed) settle(response.prime(), done);
    else done(undefined, response);
  };
  const answerWith = (result: unknown, request: Request, done: Done): void => {
    let response: Response;
    try {
      response = binaryResponse ? binaryAnswer(result) : toResponse(result);
      // A 1xx is never a final answer (the client would read the next answer on the connection as this
      // one's); only an accepted WebSocket upgrade answers 101, and the transport completes it.
      if (response.statusCode < 200 && (response as { [SWITCHES_PROTOCOLS]?: true })[SWITCHES_PROTOCOLS] !== true)
        throw new Error(`${label} answered status ${response.statusCode}: a 1xx status is never a final answer`);
    } catch (error) {
      done(error, undefined);
      return;
    }
    withExtras(response, request, done);
  };
  const callHandler = (input: Record<string, unknown>, request: Request, done: Done): void => {
    let result: unknown;
    try {
      result = handler(input, request);
    } catch (error) {
      done(error, undefined);
      return;
    }
    if (streamed !== undefined)
      streamed(result, request).then(
        (response) => withExtras(response, request, done),
        (error: unknown) => done(error, undefined),
      );
    else if (isPromiseLike(result))
      Promise.resolve(result).then(
        (value) => answerWith(value, request, done),
        (error: unknown) => done(error, undefined),
      );
    else answerWith(result, request, done);
  };
  const callBound = plan === undefined ? callHandler : dependentCall(plan, callHandler, streamed !== undefined);
  const bindAndCall = (request: Request, body: unknown, issues: ValidationIssue[] | undefined, done: Done): void => {
    let bound: ReturnType<typeof binder>;
    try {
      const raw = new RawView(request, body);
      bound = binder(raw);
      if (repeatBinders.length > 0) bound = bindRepeats(bound, repeatBinders, raw);
    } catch (error) {
      done(error, undefined);
      return;
    }
    if (!bound.ok) done(new RequestValidationError(issues ? [...issues, ...bound.issues] : bound.issues, bound.truncated), undefined);
    else if (issues?.length) done(new RequestValidationError(issues), undefined);
    else callBound(bound.value, request, done);
  };
  // A JSON body parsed and bound where it has been read: in the transport's callback (node:http), or
  // in the continuation of the one promise of the body elsewhere.
  const callWithBody: Step = (request, done) => {
    const state = bodyState(request);
    if (state === 'none') {
      bindAndCall(request, undefined, undefined, done);
      return;
    }
    readBytesOf(request, (error, bytes) => {
      if (bytes === undefined) done(error, undefined);
      else if (bytes.byteLength === 0) bindAndCall(request, undefined, undefined, done);
      else if (state === 'other') done(refuseContentType(headerValueOf(request, 'content-type') ?? null), undefined);
      else {
        let body: unknown;
        try {
          body = parseJsonOf(request, bytes);
        } catch (failure) {
          done(failure, undefined);
          return;
        }
        bindAndCall(request, body, undefined, done);
      }
    });
  };
  // Forms and uploads: read (and spooled) whole before binding, so the handler runs only on a valid form.
  const form = compileForm(method, params, pathParams);
  // The multipart parser loads while the app is still being built, not on the first upload.
  if (form) loadFormParser().catch(() => {});
  const bound: Step = form
    ? (request, done) =>
        readForm(request, form).then(
          ({ body, issues }) => bindAndCall(request, body, issues, done),
          (error: unknown) => done(error, undefined),
        )
    : usesBody
      ? callWithBody
      : noInput
        ? (request, done) => callBound({}, request, done)
        : (request, done) => bindAndCall(request, undefined, undefined, done);
  const unguarded = afterGuards ? afterGuards(bound) : bound;

  const guards = handlerGuards({ definition });
  const call: Step =
    plan !== undefined && (plan.outerGuards.length > 0 || plan.innerGuards.length > 0)
      ? (request, done) => {
          const resolution = new Resolution(plan.slots.length);
          guardPhase(plan, resolution, guards, request).then(
            () => {
              guarded.set(request, resolution);
              unguarded(request, done);
            },
            (error: unknown) => done(error, undefined),
          );
        }
      : guards.length === 0
        ? unguarded
        : (request, done) =>
            runGuards(guards, request).then(
              () => unguarded(request, done),
              (error: unknown) => done(error, undefined),
            );

  const ms = options.timeout === undefined ? 0 : durationMs(`${label}: timeout`, options.timeout, { maxNumber: HOUR });
  if (ms === 0) return call;
  const timeout = ms / 1000;
  return (request, done) => {
    let settled = false;
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      const error = new GatewayTimeoutError(`${label} did not answer within ${timeout} s`);
      request.abort(error);
      done(error, undefined);
    }, ms);
    call(request, (error, response) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      done(error, response);
    });
  };
}

/** The bound input with the repeated parameters' other bindings under their own keys; every issue in one list. */
function bindRepeats(bound: BindResult, binders: readonly Binder[], raw: RawInput): BindResult {
  const issues = bound.ok ? [] : [...bound.issues];
  const value = bound.ok ? bound.value : undefined;
  binders.forEach((bind, level) => {
    const result = bind(raw);
    if (!result.ok) issues.push(...result.issues);
    else if (value !== undefined) for (const [name, v] of Object.entries(result.value)) value[repeatKey(name, level)] = v;
  });
  return issues.length > 0 ? { ok: false, issues } : bound;
}

/** Resolutions begun by guard dependencies, picked up after binding. */
const guarded = new WeakMap<Request, Resolution>();

/** The app's and routers' guards, the handler's own (auth wrappers), then the endpoint's guard dependencies. */
/**
 * Every guard of a route, in the order a request meets them: the app's and routers' guard
 * dependencies, the handler's auth wrappers, the endpoint's own guard dependencies. For a transport
 * that must know a refusal before it hands a message on (`/mcp`); the route's plan without overrides.
 */
export function routeGuards(route: {
  readonly definition: { readonly handler: unknown };
  readonly plan?: DependencyPlan | undefined;
}): readonly Guard[] {
  const plan = route.plan;
  const own = handlerGuards(route);
  if (plan === undefined) return own;
  const slotGuard =
    (index: number): Guard =>
    async (request) => {
      const out = await plan.slots[index]!.node.fn({}, request);
      if (out !== undefined && request.auth === undefined) request.auth = out as never;
    };
  return [...plan.outerGuards.map(slotGuard), ...own, ...plan.innerGuards.map(slotGuard)];
}

async function guardPhase(plan: DependencyPlan, resolution: Resolution, guards: readonly Guard[], request: Request): Promise<void> {
  await runGuardSlots(plan, plan.outerGuards, resolution, request);
  await runGuards(guards, request);
  await runGuardSlots(plan, plan.innerGuards, resolution, request);
}

type CallHandler = (input: Record<string, unknown>, request: Request, done: Done) => void;

/**
 * The handler behind its dependencies: they are resolved from the bound input, the handler runs, and
 * what they opened is closed — before the error answer when anything threw (the error thrown into
 * each), `'call'` ones before the answer, `'request'` ones after it and its deferred tasks (for a
 * stream or a WebSocket, when it ends), everything at once when the request was aborted.
 */
function dependentCall(plan: DependencyPlan, callHandler: CallHandler, streaming: boolean): CallHandler {
  const finish = (resolution: Resolution, error: unknown, response: Response | undefined, request: Request, done: Done): void => {
    const open = resolution.open;
    if (open === undefined) {
      done(error, response);
      return;
    }
    const logger = () => request.logger;
    if (error !== undefined || response === undefined) {
      throwInto(open, error, logger).then((answer) => done(answer, undefined));
      return;
    }
    if (request.aborted) {
      closeAll(open, logger).then((failure) => done(failure, failure === undefined ? response : undefined));
      return;
    }
    const later = (list: typeof open) => {
      if (list.length === 0) return;
      const close = () =>
        closeAll(list, logger).then((failure) => {
          if (failure !== undefined) logger().error({ err: failure }, 'closing a dependency after the answer failed');
        });
      const ended = response.statusCode === 101 ? (response as { ended?: Promise<unknown> }).ended : undefined;
      if (ended !== undefined) void ended.then(close);
      else afterDeferred(request, close);
    };
    if (streaming || response.statusCode === 101) {
      later(open);
      done(undefined, response);
      return;
    }
    const calls = open.filter((entry) => entry.node.lifetime === 'call');
    if (calls.length === 0) {
      later(open);
      done(undefined, response);
      return;
    }
    const rest = open.filter((entry) => entry.node.lifetime !== 'call');
    closeAll(calls, logger).then((failure) => {
      if (failure === undefined) {
        later(rest);
        done(undefined, response);
      } else throwInto(rest, failure, logger).then((answer) => done(answer, undefined));
    });
  };
  const hasGuards = plan.outerGuards.length > 0 || plan.innerGuards.length > 0;
  return (bound, request, done) => {
    const resolution = (hasGuards ? guarded.get(request) : undefined) ?? new Resolution(plan.slots.length);
    resolveSteps(plan, resolution, 0, bound, request, (error) => {
      if (error !== undefined) {
        finish(resolution, error, undefined, request, done);
        return;
      }
      const input = handlerInput(plan, bound, resolution);
      if (resolution.open === undefined) callHandler(input, request, done);
      else callHandler(input, request, (failure, response) => finish(resolution, failure, response, request, done));
    });
  };
}
