import type { OperationResponse } from '@fnapi/openapi';
import {
  describeParams,
  isOptionalSchema as acceptsMissing,
  problemSchemaFor,
  type Schema,
  validationProblemSchema,
  type z,
} from '@fnapi/validation';
import type { RegisteredEndpoint } from '../serve/compile.js';
import { annotateHandler, type DeclaredResponse, type HandlerMetadata, handlerMetadata } from '../serve/endpoint.js';
import { JSON_TYPE, PROBLEM_JSON, reasonPhrase, statusHasBody } from '../http/facts.js';
import type { Middleware } from '../serve/pipeline.js';
import { streamOf } from '../serve/streams.js';
import { binaryTypesOf } from '../http/binary.js';

/** What decides an operation's statuses besides the endpoint itself. */
export interface StatusContext {
  /** Every middleware that runs for the endpoint (app, routers, its own); their `responses` are added. */
  middleware: readonly Middleware[];
  /** The app's 422 body schema, when it formats validation errors itself. */
  validationErrorSchema?: z.ZodType;
}

/** Descriptions of the statuses the stack itself answers. */
const FRAMEWORK_DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed JSON body',
  401: 'Missing or invalid credentials',
  403: 'The caller lacks a required permission',
  404: 'Not Found',
  413: 'Request body larger than the limit',
  415: 'Request body is not JSON',
  422: 'Validation Error',
};

function problem(status: number, description: string): OperationResponse {
  return {
    status,
    description,
    content: { mediaType: PROBLEM_JSON, schema: problemSchemaFor(status), component: `Problem${status}` },
  };
}

function declared(status: number, value: DeclaredResponse, success?: { status: number; schema?: z.ZodType }): OperationResponse {
  const spec = typeof value === 'string' ? { description: value } : value;
  // OpenAPI requires a description: an entry that gives only headers or a schema gets the status's.
  const description = spec.description ?? FRAMEWORK_DESCRIPTIONS[status] ?? reasonPhrase(status);
  const headers = spec.headers
    ? Object.fromEntries(
        Object.entries(spec.headers).map(([name, header]) => [
          name,
          typeof header === 'string'
            ? { description: header }
            : isSchema(header)
              ? { schema: header, required: !acceptsMissing(header) }
              : { ...header, required: header.required ?? (header.schema !== undefined && !acceptsMissing(header.schema)) },
        ]),
      )
    : undefined;
  let content: OperationResponse['content'];
  if (spec.schema) content = { mediaType: JSON_TYPE, schema: spec.schema };
  // An entry for the success status adds its description and headers and keeps the response model.
  else if (success !== undefined && status === success.status && statusHasBody(status)) content = successContent(success.schema);
  else if (status >= 400) content = problem(status, description).content;
  else if (statusHasBody(status)) content = { mediaType: JSON_TYPE };
  return { status, description, ...(content ? { content } : {}), ...(headers ? { headers } : {}) };
}

/** A success body: JSON of the model, or a binary body of each of a `binary()` model's types. */
function successContent(schema: Schema | undefined): NonNullable<OperationResponse['content']> {
  const types = binaryTypesOf(schema);
  if (types !== undefined) return { mediaType: types[0]!, schema, ...(types.length > 1 ? { alsoMediaTypes: types.slice(1) } : {}) };
  return { mediaType: JSON_TYPE, ...(schema ? { schema } : {}) };
}

function isSchema(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && ('_zod' in value || '~standard' in value);
}

/** The endpoint's parameters and body; one the binder cannot analyse is left to the document to report. */
function inputsOf(endpoint: RegisteredEndpoint): { params: readonly unknown[]; body: { kind: string; mediaTypes?: readonly string[] } } {
  const params = endpointParams(endpoint);
  try {
    return describeParams({ method: endpoint.method, pathParams: endpoint.pathParams, params });
  } catch {
    return { params: Object.keys(params ?? {}), body: { kind: 'none' } };
  }
}

/**
 * The one list of answers an operation can give, each with its description and body: computed here
 * once per operation and only rendered by `@fnapi/openapi`. 500 and a draining server's 503 are
 * answers of any operation, so they are not listed.
 */
export function operationResponses(endpoint: RegisteredEndpoint, context: StatusContext): OperationResponse[] {
  const { options } = endpoint.definition;
  const answers = new Map<number, OperationResponse>();
  const add = (answer: OperationResponse) => {
    if (!answers.has(answer.status)) answers.set(answer.status, answer);
  };

  // The declared ones first: the author's words and schemas win over the framework's.
  const stream = streamOf(options);
  const successStatus = { status: options.statusCode ?? 200, ...(options.response ? { schema: options.response } : {}) };
  // The endpoint's own entries, then those of the dependencies it reaches (the first for a status wins).
  const declaredResponses = [
    endpoint.terms?.responses ?? options.responses ?? {},
    ...(endpoint.plan?.documentation.responses ?? []),
  ].flatMap((list) => Object.entries(list));
  for (const [status, value] of declaredResponses) {
    const answer = declared(Number(status), value, stream ? undefined : successStatus);
    if (stream && answer.status === (options.statusCode ?? 200)) {
      // A stream's success entry keeps its item schema; only the description and headers are the author's.
      const { content: _, ...rest } = answer;
      add({ ...rest, content: { mediaType: stream.mediaType, schema: stream.item } });
    } else add(answer);
  }

  const success = (status: number, schema: Schema | undefined) =>
    add({
      status,
      description: reasonPhrase(status),
      ...(statusHasBody(status) ? { content: successContent(schema) } : {}),
    });
  if (stream) {
    // A stream's body is documented by its item schema (the document places it as `itemSchema`).
    const status = options.statusCode ?? 200;
    add({ status, description: reasonPhrase(status), content: { mediaType: stream.mediaType, schema: stream.item } });
  } else if (options.statusCode !== undefined) success(options.statusCode, options.response);
  else {
    success(200, options.response);
    // A handler returning nothing answers 204 when no status is set; without a model it may do either.
    if (!options.response) success(204, undefined);
  }

  const { params, body } = inputsOf(endpoint);
  if (body.mediaTypes !== undefined) {
    // Forms and uploads.
    add(problem(400, 'Malformed form body'));
    add(problem(413, 'Request body, a file or a form field larger than its limit, or too many files or parts'));
    add(problem(415, `Request body is not ${body.mediaTypes.join(' or ')}`));
  } else if (body.kind !== 'none') for (const status of [400, 413, 415]) add(problem(status, FRAMEWORK_DESCRIPTIONS[status]!));
  const metadata = endpointMetadata(endpoint);
  for (const status of metadata?.errorStatuses ?? []) add(problem(status, FRAMEWORK_DESCRIPTIONS[status] ?? reasonPhrase(status)));
  if (/\{[^{}]+\}/.test(endpoint.path)) add(problem(404, FRAMEWORK_DESCRIPTIONS[404]!));
  if (params.length > 0 || body.kind !== 'none') {
    add({
      status: 422,
      description: FRAMEWORK_DESCRIPTIONS[422]!,
      content: {
        mediaType: PROBLEM_JSON,
        schema: context.validationErrorSchema ?? validationProblemSchema(),
        component: 'ValidationProblem',
      },
    });
  }
  for (const middleware of context.middleware) {
    const statuses = typeof middleware === 'object' ? middleware.responses : undefined;
    for (const [status, description] of Object.entries(statuses ?? {})) add(problem(Number(status), description));
  }
  if (options.timeout) add(problem(504, reasonPhrase(504)));
  return [...answers.values()].sort((a, b) => a.status - b.status);
}

/** The params bound for an endpoint: its own and every reached dependency's. */
export function endpointParams(endpoint: RegisteredEndpoint): RegisteredEndpoint['definition']['options']['params'] {
  return endpoint.plan?.params ?? endpoint.definition.options.params;
}

/**
 * What an endpoint's guards document (security, 401/403): those an auth function put on its handler
 * and those of every guard dependency it reaches, combined as annotating the handler with each would.
 */
export function endpointMetadata(endpoint: RegisteredEndpoint): HandlerMetadata | undefined {
  const own = handlerMetadata(endpoint.definition.handler);
  const guards = endpoint.plan?.documentation.guards;
  if (guards === undefined || guards.length === 0) return own;
  const holder = () => {};
  if (own) annotateHandler(holder, own);
  for (const metadata of guards) annotateHandler(holder, metadata);
  return handlerMetadata(holder);
}
