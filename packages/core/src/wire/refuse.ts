// The wire's front door: what is answered before a request exists (a malformed target, a draining
// server, a client error node:http reports, a refused WebSocket upgrade) or after the app's answer
// could not be written. Every error that becomes an answer does so here or in the funnel.
import { HTTPError, type ProblemDetails } from '../http/errors.js';
import { PROBLEM_JSON, reasonPhrase } from '../http/facts.js';
import { utf8Length } from '../platform/platform.js';
import { internalErrorProblem } from '../serve/funnel.js';
import type { Serialized, SerializeContext } from './written.js';

/**
 * The answer to an error no request (or no app) answers: an `HTTPError`'s problem body with its
 * headers, anything else a 500 (logged, with debug details when asked for).
 */
export function refuse(error: unknown, context: SerializeContext): Serialized {
  if (error instanceof HTTPError) return problemAnswer(error.statusCode, error.toProblem(), error.headers);
  context.logger.error({ err: error }, 'answered 500 outside the app: unexpected error');
  return problemAnswer(500, internalErrorProblem(error, context.debug, context.debug), undefined);
}

/** A problem body as written, with nothing left that could fail to serialize. */
function problemAnswer(status: number, problem: ProblemDetails, extra: Record<string, string> | undefined): Serialized {
  const body = JSON.stringify(problem);
  const headers: (string | number)[] = [];
  if (extra !== undefined) for (const name of Object.keys(extra)) headers.push(name.toLowerCase(), extra[name]!);
  headers.push('content-type', PROBLEM_JSON, 'content-length', `${utf8Length(body)}`);
  return { status, headers, body, stream: undefined };
}

/** What the raw writer needs of a socket. */
export interface RawSocket {
  readonly destroyed: boolean;
  readonly writable: boolean;
  write(chunk: string | Uint8Array): unknown;
  end(): unknown;
}

/**
 * Writes a whole answer as HTTP/1.1 on a socket no `ServerResponse` owns (a client error, a refused
 * WebSocket upgrade), then closes the connection. A stream is not written (its body is dropped).
 */
export function writeRaw(socket: RawSocket, out: Serialized): void {
  if (socket.destroyed || !socket.writable) return;
  let head = `HTTP/1.1 ${out.status} ${reasonPhrase(out.status)}\r\n`;
  let length = false;
  for (let i = 0; i < out.headers.length; i += 2) {
    const name = String(out.headers[i]).toLowerCase();
    if (name === 'connection') continue;
    if (name === 'content-length') length = true;
    head += `${out.headers[i]}: ${out.headers[i + 1]}\r\n`;
  }
  const body = out.stream === undefined ? out.body : null;
  if (!length) head += `content-length: ${body === null ? 0 : typeof body === 'string' ? utf8Length(body) : body.byteLength}\r\n`;
  head += 'connection: close\r\n\r\n';
  socket.write(head);
  if (body !== null) socket.write(body);
  socket.end();
}

/** Where `splitTarget` puts a request target's path and query (a transport's request parts). */
export interface RequestTarget {
  path: string;
  query: string;
}

/**
 * Splits a request target into `into.path` and `into.query`: origin-form (`/a?b`, the common case,
 * with nothing allocated but the two strings) or absolute-form (proxies); false for anything else,
 * asterisk-form included (the caller refuses it with 400).
 */
export function splitTarget(url: string, into: RequestTarget): boolean {
  if (url.charCodeAt(0) === 47 /* / */) {
    const q = url.indexOf('?');
    if (q === -1) {
      into.path = url;
      into.query = '';
    } else {
      into.path = url.slice(0, q);
      into.query = url.slice(q + 1);
    }
    return true;
  }
  if (!/^https?:\/\//i.test(url)) return false;
  try {
    const parsed = new URL(url);
    into.path = parsed.pathname;
    into.query = parsed.search.slice(1);
    return true;
  } catch {
    return false;
  }
}
