import { reasonOverride } from '../http/facts.js';
import type { Logger } from '../platform/logger.js';
import type { BodyChunk } from '../http/response.js';
import { closeStream } from './answer.js';
import { StreamInterrupted } from '../http/interrupted.js';
import { refuse } from './refuse.js';
import { type Serialized, toChunk } from './serialize.js';
import { type ChunkSink, writeChunks } from './stream-writer.js';

/** A Node writable a body is written to: a `ServerResponse`, or a platform's response stream. */
export interface BodySink extends ChunkSink {
  end(chunk?: Uint8Array | string): unknown;
  destroy(error?: Error): unknown;
  /** The connection under a `ServerResponse`: a stream cut off is ended there, after what was written. */
  readonly socket?: { readonly destroyed: boolean; end(): unknown } | null;
}

/** What the writer needs of node:http's `ServerResponse` (or an Express response over one). */
export interface NodeResponse extends BodySink {
  readonly headersSent: boolean;
  writeHead(statusCode: number, headers: (string | number)[]): unknown;
  writeHead(statusCode: number, reason: string, headers: (string | number)[]): unknown;
  flushHeaders?(): void;
}

export interface NodeWriteOptions {
  logger: Logger;
  /** Debug details in the 500 of an answer whose head could not be written. */
  debug?: boolean;
  /** Adds `Connection: close`: the connection is not reused (a body refused unread, a draining server). */
  close?: boolean;
  /**
   * Awaited once the whole body is written and before the response is ended: a platform that freezes
   * the function when its response ends runs the request's deferred work here.
   */
  beforeEnd?: () => Promise<void> | undefined;
}

/**
 * The one Node writer: the head (a head node refuses — a bad header — becomes a 500), then the whole
 * body, or the stream (its headers sent at once, chunks with back-pressure). Returns undefined once a
 * whole body is written, or a promise settled when the stream has ended.
 */
export function writeNode(res: NodeResponse, out: Serialized, options: NodeWriteOptions): Promise<void> | undefined {
  if (options.close) out.headers.push('connection', 'close');
  try {
    const reason = reasonOverride(out.status);
    if (reason === undefined) res.writeHead(out.status, out.headers);
    else res.writeHead(out.status, reason, out.headers);
  } catch (error) {
    if (out.stream !== undefined) void closeStream(out.stream);
    const refused = refuse(error, { debug: options.debug ?? false, logger: options.logger });
    refused.headers.push('connection', 'close');
    res.writeHead(refused.status, refused.headers);
    res.end(refused.body ?? undefined);
    return undefined;
  }
  const beforeEnd = options.beforeEnd;
  if (out.stream === undefined) {
    if (beforeEnd === undefined) {
      res.end(out.body ?? undefined);
      return undefined;
    }
    if (out.body !== null) res.write(toChunk(out.body));
    return Promise.resolve(beforeEnd()).then(() => {
      res.end();
    });
  }
  // Headers at once: an event stream opens before its first event, however long that takes.
  res.flushHeaders?.();
  return streamBody(res, out.stream, options.logger, beforeEnd).then(() => undefined);
}

/**
 * Writes a body stream to a sink and ends it; resolves true when it ended cleanly. A stream that fails
 * is logged (unless `StreamInterrupted`: logged where it failed) and cut off without its final chunk,
 * after what was written has reached the client.
 */
export function streamBody(
  sink: BodySink,
  stream: AsyncIterable<BodyChunk> | ReadableStream<BodyChunk>,
  logger: Logger,
  beforeEnd?: () => Promise<void> | undefined,
): Promise<boolean> {
  return writeChunks(sink, stream).then(
    async () => {
      if (sink.destroyed) return false;
      if (beforeEnd !== undefined) await beforeEnd();
      sink.end();
      return true;
    },
    (error: unknown) => {
      if (!(error instanceof StreamInterrupted)) logger.error({ err: error }, 'response stream failed');
      cutOff(sink);
      return false;
    },
  );
}

/** Ends a response without its final chunk: the connection closes once what was written is sent. */
function cutOff(sink: BodySink): void {
  const socket = sink.socket;
  if (socket == null || socket.destroyed) {
    sink.destroy();
    return;
  }
  // `end()` sends what is buffered (the last items), then closes; the client sees no final chunk.
  socket.end();
  setTimeout(() => sink.destroy(), 5000).unref();
}
