import type { BodyChunk } from '../http/response.js';
import type { Logger } from '../platform/logger.js';

/** A response reduced to what every writer needs: status, a flat header list and the body. */
export interface Serialized {
  status: number;
  /** `[name, value, name, value, …]`, the form node's `writeHead` takes in one call. */
  headers: (string | number)[];
  body: string | Uint8Array | null;
  stream: AsyncIterable<BodyChunk> | ReadableStream<BodyChunk> | undefined;
}

export interface SerializeContext {
  debug: boolean;
  logger: Logger;
}
