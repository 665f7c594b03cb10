import fc from 'fast-check';
import { curlLine } from './curl.js';
import { type DeferredFailures, DeferredWatch, type PluginHost } from './deferred.js';
import { type Draft, draftOf, type Input, mutationsOf, type Operation, operationsOf, urlOf, validInputs } from './operations.js';
import { type JsonSchema, SchemaBook } from './schemas.js';

/** What the check needs of an app: its document and in-process requests (an `API` has both). */
export interface CheckableApp {
  /** The whole document, or one of the app's `documents` by key. */
  openapi(key?: string): Record<string, unknown>;
  inject(options: { method?: string; url: string; headers?: Record<string, string | string[]>; body?: unknown }): Promise<{
    status: number;
    headers: Record<string, string | string[]>;
    body: string;
  }>;
  startup(): Promise<void>;
  readonly limits?: { readonly bodyLimit: number };
  /** Every registered route: those the document leaves out are listed as skipped, with the reason. */
  readonly routes?: readonly { method: string; route: string; operationId: string }[];
  /** The AsyncAPI document, whose channels name the WebSocket routes. */
  asyncapi?(): Record<string, unknown>;
  /** Where the check's watcher of deferred tasks is registered. */
  readonly pluginManager?: PluginHost;
}

export interface CheckOptions {
  /** Valid and invalid inputs per operation, each; default 100. */
  runs?: number;
  /** Same seed, same inputs, same report; default random (printed in the report). */
  seed?: number;
  /** operationIds to check (all others are left out). */
  only?: string[];
  /** operationIds to leave out. */
  skip?: string[];
  /** Sent with every request, e.g. `{ authorization: 'Bearer …' }` to go past guards. */
  headers?: Record<string, string>;
  /** Where the printed `curl` lines point; default `http://127.0.0.1:8000`. */
  baseUrl?: string;
  /** Only operations of these methods are called (others are listed as skipped); default all. */
  methods?: string[];
  /** Only GET, HEAD and QUERY operations are called (`methods` narrows it further). */
  readOnly?: boolean;
  /** Checks the operations of one of the app's `documents` (by key) against that document. */
  document?: string;
}

/** Methods that change nothing: what `--read-only` calls. */
export const READ_ONLY_METHODS = ['GET', 'HEAD', 'QUERY'];

/** Answers that show a valid input never reached the handler (a guard, a rate limit, a draining or failed startup). */
const NOT_REACHED = new Set([401, 429, 503]);

/**
 * Whether an answer to valid input says the handler was not reached: a 429 or 503 anywhere, a 401 only
 * where a guard stands (a public operation's 401, a login's, comes from its handler).
 */
function notReached(op: { secured: boolean }, status: number): boolean {
  return NOT_REACHED.has(status) && (status !== 401 || op.secured);
}

/** What `fnapi check` says before it calls anything. */
export function checkWarning(methods: readonly string[] | undefined): string {
  const which = methods ? `the ${methods.join(', ')} operations` : 'every operation, DELETE included,';
  return (
    `fnapi check calls ${which} with generated inputs, in process, against whatever services the app uses ` +
    '(databases, caches, rate limits, queues). Point the app at scratch services (FNAPI_CHECK=1 is set in its ' +
    'environment), or use --read-only (GET, HEAD and QUERY only) or --methods.'
  );
}

export type FailureKind =
  | 'server-error'
  | 'undocumented-status'
  | 'body-mismatch'
  | 'valid-rejected'
  | 'invalid-accepted'
  | 'guard-not-401'
  | 'not-exercised';

export interface CheckFailure {
  operationId: string;
  method: string;
  route: string;
  kind: FailureKind;
  /** Whether the input was valid; for an invalid one, what was broken. */
  input: { valid: true } | { valid: false; mutation: string };
  /** The smallest request found that shows the failure. */
  request: { method: string; url: string; headers: Record<string, string>; body?: string };
  curl: string;
  expected: string;
  actual: { status: number; body: string; reason?: string };
}

export interface OperationSummary {
  operationId: string;
  method: string;
  route: string;
  requests: number;
  /** Requests with valid input, those of them that reached the handler (not 401, 429 or 503), and those answered 2xx. */
  valid: { requests: number; reached: number; succeeded: number };
  /** Why the operation was not called. */
  skipped?: string;
  /** Deferred tasks (`request.defer`) of its requests that threw or rejected: they fail the run. */
  deferred?: DeferredFailures;
}

export interface CheckReport {
  ok: boolean;
  seed: number;
  runs: number;
  requests: number;
  durationMs: number;
  operations: OperationSummary[];
  failures: CheckFailure[];
  /** Environment variables the printed `curl` lines read, for the `--header` values they stand for. */
  placeholders: { variable: string; header: string }[];
}

interface Answer {
  status: number;
  headers: Record<string, string | string[]>;
  body: string;
}

interface Verdict {
  kind: FailureKind;
  expected: string;
  reason?: string;
}

const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * Calls every operation of the app's document in process with inputs generated from its own schemas,
 * and checks each answer against the document: a documented status, a body valid against that
 * status's schema, no 422 to valid input, no 2xx to invalid input, no 500. Failures are shrunk by
 * fast-check to the smallest input that shows them, one per kind and operation.
 */
export async function checkContract(app: CheckableApp, options: CheckOptions = {}): Promise<CheckReport> {
  const started = performance.now();
  const runs = options.runs ?? 100;
  const seed = options.seed ?? Math.floor(Math.random() * 0x7fffffff);
  const baseUrl = options.baseUrl ?? 'http://127.0.0.1:8000';
  const userHeaders = Object.entries(options.headers ?? {}).map(([n, v]) => [n.toLowerCase(), v] as [string, string]);
  // Credentials are printed as variables, never in clear.
  const placeholders = userHeaders.map(([header], i) => ({ variable: `FNAPI_CHECK_HEADER_${i + 1}`, header }));
  const secrets = new Map(placeholders.map(({ variable, header }) => [header, variable]));
  const methods = methodsOf(options);
  // The app may point itself at scratch services when it sees this (set before its startup).
  process.env.FNAPI_CHECK ??= '1';
  const deferred = DeferredWatch.on(app.pluginManager);
  await app.startup();
  const document = app.openapi(...(options.document !== undefined ? [options.document] : [])) as JsonSchema;
  const book = new SchemaBook(document);
  const bodyLimit = app.limits?.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const report: CheckReport = { ok: true, seed, runs, requests: 0, durationMs: 0, operations: [], failures: [], placeholders };

  for (const op of operationsOf(document)) {
    if (options.only?.length && !options.only.includes(op.id)) continue;
    if (options.skip?.includes(op.id)) continue;
    const summary: OperationSummary = {
      operationId: op.id,
      method: op.method,
      route: op.route,
      requests: 0,
      valid: { requests: 0, reached: 0, succeeded: 0 },
    };
    report.operations.push(summary);
    if (op.skip) {
      summary.skipped = op.skip;
      continue;
    }
    if (methods && !methods.includes(op.method)) {
      summary.skipped = `method not checked (${options.readOnly ? '--read-only' : '--methods'})`;
      continue;
    }
    let starved: { draft: Draft; answer: Answer } | undefined;
    const valid = validInputs(book, op);
    const mutations = mutationsOf(book, op, bodyLimit);
    const cases: { valid: boolean; arbitrary: fc.Arbitrary<{ input: Input; draft: Draft; mutation?: string }> }[] = [
      { valid: true, arbitrary: valid.map((input) => ({ input, draft: draftOf(op, input, userHeaders) })) },
    ];
    if (mutations.length) {
      cases.push({
        valid: false,
        arbitrary: fc.tuple(valid, fc.integer({ min: 0, max: mutations.length - 1 })).map(([input, index]) => {
          const mutation = mutations[index]!;
          return { input, draft: mutation.apply(input, draftOf(op, input, userHeaders)), mutation: mutation.label };
        }),
      });
    }
    for (const kase of cases) {
      const found = new Set<FailureKind>();
      // One round per kind of failure: each round ignores the kinds already reported.
      for (let round = 0; round < 6; round++) {
        let target: FailureKind | undefined;
        let last: CheckFailure | undefined;
        const property = fc.asyncProperty(kase.arbitrary, async ({ draft, mutation }) => {
          const answer = await send(app, draft);
          report.requests++;
          summary.requests++;
          if (kase.valid) {
            summary.valid.requests++;
            if (notReached(op, answer.status)) starved ??= { draft, answer };
            else summary.valid.reached++;
            if (answer.status >= 200 && answer.status < 300) summary.valid.succeeded++;
          }
          const verdict = judge(book, op, draft, answer, kase.valid, userHeaders.length > 0);
          // While shrinking, only the kind first seen counts, so the smallest input shows that failure.
          if (!verdict || found.has(verdict.kind) || (target && verdict.kind !== target)) return true;
          target = verdict.kind;
          last = failureOf(
            op,
            draft,
            answer,
            verdict,
            kase.valid ? { valid: true } : { valid: false, mutation: mutation! },
            baseUrl,
            secrets,
          );
          return false;
        });
        const details = await fc.check(property, { seed: seedFor(seed, op.id, kase.valid), numRuns: runs });
        if (!details.failed || !last) break;
        found.add(last.kind);
        report.failures.push(last);
      }
    }
    // A guard, a rate limit or a failed startup that answers (nearly) every valid input leaves the
    // handler unchecked: that is a failure, never a vacuous pass.
    const { requests, reached } = summary.valid;
    if (requests > 0 && reached * 2 < requests && starved) {
      report.failures.push(
        failureOf(
          op,
          starved.draft,
          starved.answer,
          {
            kind: 'not-exercised',
            expected: `valid inputs reach the handler (not 401, 429 or 503); ${reached} of ${requests} did`,
          },
          { valid: true },
          baseUrl,
          secrets,
        ),
      );
    }
  }
  report.operations.push(...undocumentedRoutes(app, document, options));
  // Deferred tasks run after their answers: wait for the last ones before reporting.
  await deferred.settled(DEFERRED_WAIT_MS);
  for (const [key, failures] of deferred.failures) {
    const summary = report.operations.find((op) => `${op.method} ${sameTemplate(op.route)}` === sameTemplate(key));
    if (summary) summary.deferred = failures;
    else {
      const [method, route] = key.split(' ') as [string, string];
      report.operations.push({
        operationId: key,
        method,
        route,
        requests: 0,
        valid: { requests: 0, reached: 0, succeeded: 0 },
        deferred: failures,
      });
    }
  }
  report.ok = report.failures.length === 0 && deferred.failures.size === 0;
  report.durationMs = Math.round(performance.now() - started);
  return report;
}

/** How long the check waits, at its end, for deferred tasks still running. */
const DEFERRED_WAIT_MS = 10_000;

/** A route template without converters (`{p:path}` is the document's `{p}`). */
function sameTemplate(route: string): string {
  return route.replace(/\{([^}:]+):[^}]*\}/g, '{$1}');
}

/**
 * Registered routes the document does not describe, so the check never calls them, each with the
 * reason: WebSocket endpoints (in the AsyncAPI document), and endpoints left out of the document.
 */
function undocumentedRoutes(app: CheckableApp, document: JsonSchema, options: CheckOptions): OperationSummary[] {
  // One of the app's documents (`--document v1`) describes only its routers: the rest belong to the
  // others, not skipped by this check.
  if (app.routes === undefined || options.document !== undefined) return [];
  const paths = (document.paths ?? {}) as Record<string, Record<string, unknown>>;
  const documented = new Set<string>();
  for (const [route, item] of Object.entries(paths)) {
    for (const method of Object.keys(item)) documented.add(`${method.replace('x-', '').toUpperCase()} ${sameTemplate(route)}`);
  }
  const channels = Object.values((app.asyncapi?.().channels ?? {}) as Record<string, { address?: string }>);
  const sockets = new Set(channels.flatMap((channel) => (channel.address === undefined ? [] : [sameTemplate(channel.address)])));
  const out: OperationSummary[] = [];
  for (const { method, route, operationId } of app.routes) {
    if (options.only?.length && !options.only.includes(operationId)) continue;
    if (options.skip?.includes(operationId)) continue;
    if (documented.has(`${method} ${sameTemplate(route)}`)) continue;
    const skipped = sockets.has(sameTemplate(route))
      ? 'a WebSocket endpoint: the check calls HTTP operations (its messages are in the AsyncAPI document)'
      : 'not in the OpenAPI document (includeInSchema: false): the check calls what the document describes';
    out.push({ operationId, method, route, requests: 0, valid: { requests: 0, reached: 0, succeeded: 0 }, skipped });
  }
  return out;
}

function methodsOf(options: CheckOptions): string[] | undefined {
  const listed = options.methods?.map((m) => m.trim().toUpperCase()).filter(Boolean);
  if (!options.readOnly) return listed?.length ? listed : undefined;
  return listed?.length ? listed.filter((m) => READ_ONLY_METHODS.includes(m)) : READ_ONLY_METHODS;
}

/** One seed per operation and kind of input, so `only`/`skip` do not change other operations' inputs. */
function seedFor(seed: number, id: string, valid: boolean): number {
  let hash = valid ? 17 : 31;
  for (const char of id) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return (seed ^ hash) | 0;
}

async function send(app: CheckableApp, draft: Draft): Promise<Answer> {
  const headers: Record<string, string> = {};
  for (const [name, value] of draft.headers) headers[name] = value;
  let body: string | undefined;
  if (draft.body) {
    body = 'oversize' in draft.body ? 'a'.repeat(draft.body.oversize) : draft.body.text;
    if (draft.body.contentType) headers['content-type'] = draft.body.contentType;
  }
  try {
    return await app.inject({ method: draft.method, url: urlOf(draft), headers, body });
  } catch (error) {
    return { status: 500, headers: {}, body: `inject failed: ${(error as Error).message}` };
  }
}

function responseFor(op: Operation, status: number): JsonSchema | undefined {
  return op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`] ?? op.responses.default;
}

function judge(book: SchemaBook, op: Operation, draft: Draft, answer: Answer, valid: boolean, credentials: boolean): Verdict | undefined {
  const { status } = answer;
  const documented = Object.keys(op.responses).join(', ');
  if (status === 500) return { kind: 'server-error', expected: `no 500; one of the documented statuses (${documented})` };
  const response = responseFor(op, status);
  if (!response) return { kind: 'undocumented-status', expected: `a documented status (${documented})` };
  if (valid && status === 422) return { kind: 'valid-rejected', expected: 'valid input accepted (not 422)' };
  if (!valid && status >= 200 && status < 300) return { kind: 'invalid-accepted', expected: 'invalid input refused (4xx)' };
  if (valid && op.secured && !credentials && status !== 401) return { kind: 'guard-not-401', expected: '401 without credentials' };
  const mismatch = bodyMismatch(book, draft, answer, response);
  if (mismatch) return { kind: 'body-mismatch', expected: `a body matching the documented ${status} response`, reason: mismatch };
  return undefined;
}

/** Why the body does not fit the documented response, or undefined when it does. */
function bodyMismatch(book: SchemaBook, draft: Draft, answer: Answer, response: JsonSchema): string | undefined {
  const content = (response.content ?? {}) as Record<string, JsonSchema>;
  const types = Object.keys(content);
  if (draft.method === 'HEAD' || answer.status === 304) return undefined;
  if (answer.body === '') return types.length && answer.status !== 204 ? `empty body; the document lists ${types.join(', ')}` : undefined;
  if (types.length === 0) return 'a body where the document lists none';
  const header = answer.headers['content-type'];
  const mediaType = (Array.isArray(header) ? header[0] : header)?.split(';')[0]?.trim().toLowerCase() ?? '';
  const key =
    types.find((type) => type.toLowerCase() === mediaType) ??
    types.find((type) => type.endsWith('/*') && mediaType.startsWith(type.slice(0, -1))) ??
    types.find((type) => type === '*/*');
  if (!key) return `content type ${mediaType || '(none)'}; the document lists ${types.join(', ')}`;
  if (!/[/+]json$/.test(mediaType)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(answer.body);
  } catch {
    return `${mediaType} body is not JSON`;
  }
  const schema = content[key]!.schema ?? {};
  return book.valid(schema, value) ? undefined : book.explain(schema, value);
}

function failureOf(
  op: Operation,
  draft: Draft,
  answer: Answer,
  verdict: Verdict,
  input: CheckFailure['input'],
  baseUrl: string,
  secrets: ReadonlyMap<string, string>,
): CheckFailure {
  const headers: Record<string, string> = {};
  for (const [name, value] of draft.headers) headers[name] = secrets.has(name) ? `$${secrets.get(name)}` : value;
  let body: string | undefined;
  if (draft.body && 'oversize' in draft.body) body = `(${draft.body.oversize} bytes of "a")`;
  else if (draft.body) body = draft.body.text;
  if (draft.body?.contentType) headers['content-type'] = draft.body.contentType;
  return {
    operationId: op.id,
    method: op.method,
    route: op.route,
    kind: verdict.kind,
    input,
    request: { method: draft.method, url: urlOf(draft), headers, body },
    curl: curlLine(draft, baseUrl, secrets),
    expected: verdict.expected,
    actual: {
      status: answer.status,
      body: answer.body.length > 500 ? `${answer.body.slice(0, 500)}…` : answer.body,
      reason: verdict.reason,
    },
  };
}

const TITLES: Record<FailureKind, string> = {
  'server-error': 'answered 500',
  'undocumented-status': 'answered a status the document does not list',
  'body-mismatch': 'answered a body that does not match its documented schema',
  'valid-rejected': 'answered 422 to valid input',
  'invalid-accepted': 'answered 2xx to invalid input',
  'guard-not-401': 'answered without credentials other than 401',
  'not-exercised': 'not exercised: its valid inputs did not reach the handler',
};

/** The report as `fnapi check` prints it. */
export function formatReport(report: CheckReport): string {
  const lines: string[] = [];
  const failed = new Set(report.failures.map((f) => f.operationId));
  for (const op of report.operations) {
    const mark = failed.has(op.operationId) || op.deferred ? '✗' : op.skipped ? '-' : '✓';
    const { requests, succeeded } = op.valid;
    lines.push(
      `${mark} ${op.operationId}  ${op.method} ${op.route}  ` +
        (op.skipped ? `skipped: ${op.skipped}` : `${op.requests} requests; ${succeeded} of ${requests} valid inputs answered 2xx`) +
        (op.deferred ? `; ${op.deferred.failed} deferred task${op.deferred.failed === 1 ? '' : 's'} failed` : ''),
    );
  }
  const deferredFailed = report.operations.filter((op) => op.deferred);
  for (const op of deferredFailed) {
    const { failed, errors, request } = op.deferred!;
    lines.push(
      '',
      `FAIL ${op.operationId}  ${op.method} ${op.route}: ${failed} deferred task${failed === 1 ? '' : 's'} failed after the answer`,
    );
    lines.push(`  request:  ${request} (the first whose task failed)`);
    for (const error of errors) lines.push(`  error:    ${error.replace(/\s+/g, ' ').slice(0, 300)}`);
  }
  for (const f of report.failures) {
    lines.push('', `FAIL ${f.operationId}  ${f.method} ${f.route}: ${TITLES[f.kind]}`);
    lines.push(`  input:    ${f.input.valid ? 'valid' : `invalid (${f.input.mutation})`}`);
    lines.push(`  expected: ${f.expected}`);
    lines.push(`  actual:   ${f.actual.status} ${f.actual.body.replace(/\s+/g, ' ').slice(0, 300)}`);
    if (f.actual.reason) lines.push(`  why:      ${f.actual.reason}`);
    lines.push(`  curl:     ${f.curl}`);
    for (const { variable, header } of report.placeholders) {
      if (f.curl.includes(`$${variable}`)) lines.push(`  set:      ${variable} to the ${header} header given with --header`);
    }
  }
  const seconds = (report.durationMs / 1000).toFixed(1);
  const problems = report.failures.length + deferredFailed.length;
  lines.push(
    '',
    `${problems ? `${problems} failure${problems === 1 ? '' : 's'}` : 'All answers match the document'}: ` +
      `${report.operations.length} operations, ${report.requests} requests, ${report.runs} runs, seed ${report.seed} (${seconds} s)`,
  );
  if (problems) lines.push(`Rerun with --seed ${report.seed} to get the same inputs.`);
  return lines.join('\n');
}
