import { Writable } from 'node:stream';

/**
 * The Lambda Node.js runtime's `awslambda` global, reproduced for tests from the runtime interface
 * client (aws-lambda-nodejs-runtime-interface-client: `HttpResponseStream.js`, `ResponseStream.js`):
 * `HttpResponseStream.from` sets the integration content type and writes the JSON prelude plus eight
 * NUL bytes before the first body byte; the response stream is a Writable with a small buffer, so a
 * producer that ignores backpressure would overrun it.
 */
const PRELUDE_TYPE = 'application/vnd.awslambda.http-integration-response';
const DELIMITER_LENGTH = 8;

type InvocationContext = { awsRequestId?: string; [key: string]: unknown };
type StreamingHandler<E = never> = (event: E, stream: Writable, context: InvocationContext) => Promise<void>;

interface ResponseStream extends Writable {
  setContentType(type: string): void;
  _onBeforeFirstWrite?: (write: (chunk: string | Uint8Array) => void) => void;
}

export interface StreamedInvocation {
  contentType: string | undefined;
  prelude: Record<string, unknown>;
  body: Buffer;
  /** The body as the client received it, one entry per write, with the time it arrived. */
  writes: { bytes: Buffer; at: number }[];
  /** Times `write` returned false (the handler had to wait for drain). */
  backpressureWaits: number;
}

function createResponseStream(onWire: (bytes: Buffer) => void, delayMs: number): ResponseStream {
  let firstWrite = true;
  let contentType: string | undefined;
  const stream = new Writable({
    highWaterMark: 16,
    write(chunk: Buffer, _encoding, callback) {
      if (firstWrite) {
        firstWrite = false;
        stream._onBeforeFirstWrite?.((part) => onWire(Buffer.from(part)));
      }
      onWire(chunk);
      // A slow network: each chunk takes a while to leave.
      setTimeout(callback, delayMs);
    },
  }) as ResponseStream;
  stream.setContentType = (type) => {
    contentType = type;
  };
  Object.defineProperty(stream, 'contentType', { get: () => contentType });
  return stream;
}

export function installLambdaRuntime(): { uninstall(): void } {
  const globals = globalThis as { awslambda?: unknown };
  const previous = globals.awslambda;
  globals.awslambda = {
    streamifyResponse<E>(handler: StreamingHandler<E>): StreamingHandler<E> {
      return handler;
    },
    HttpResponseStream: {
      from(stream: ResponseStream, prelude: Record<string, unknown>): ResponseStream {
        stream.setContentType(PRELUDE_TYPE);
        const metadata = JSON.stringify(prelude);
        stream._onBeforeFirstWrite = (write) => {
          write(metadata);
          write(new Uint8Array(DELIMITER_LENGTH));
        };
        return stream;
      },
    },
  };
  return {
    uninstall() {
      globals.awslambda = previous;
    },
  };
}

/** Invokes a streaming handler as the runtime does and splits what went on the wire into prelude and body. */
export async function invokeStreaming<E>(
  handler: StreamingHandler<E>,
  event: E,
  options: { delayMs?: number; onWrite?: (bytes: Buffer) => void } = {},
): Promise<StreamedInvocation> {
  const wire: { bytes: Buffer; at: number }[] = [];
  const stream = createResponseStream((bytes) => {
    wire.push({ bytes, at: performance.now() });
    options.onWrite?.(bytes);
  }, options.delayMs ?? 1);
  let backpressureWaits = 0;
  const write = stream.write.bind(stream) as (chunk: unknown) => boolean;
  stream.write = ((chunk: unknown) => {
    const ok = write(chunk);
    if (!ok) backpressureWaits += 1;
    return ok;
  }) as typeof stream.write;
  await handler(event, stream, { awsRequestId: 'test-request' });
  const all = Buffer.concat(wire.map((w) => w.bytes));
  const end = all.indexOf(Buffer.alloc(DELIMITER_LENGTH));
  if (end === -1) throw new Error('no metadata prelude on the wire');
  const prelude = JSON.parse(all.subarray(0, end).toString('utf8')) as Record<string, unknown>;
  // Writes after the prelude's two.
  const writes = wire.slice(2).filter((w) => w.bytes.byteLength > 0);
  return {
    contentType: (stream as unknown as { contentType?: string }).contentType,
    prelude,
    body: all.subarray(end + DELIMITER_LENGTH),
    writes,
    backpressureWaits,
  };
}
