import { PayloadTooLargeError } from '../errors.js';
import { concatBytes, utf8 } from '../platform.js';

/** The one 413 a transport raises for a body past the limit. */
export function tooLarge(limit: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`Request body exceeds the limit of ${limit} bytes`);
}

/** Collects an async stream of chunks, failing with 413 as soon as the total passes `limit`. */
export async function collectBody(chunks: AsyncIterable<Uint8Array | string>, limit: number): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    const part = typeof chunk === 'string' ? utf8(chunk) : chunk;
    size += part.byteLength;
    if (size > limit) {
      throw tooLarge(limit);
    }
    parts.push(part);
  }
  if (parts.length === 1) return parts[0]!;
  return concatBytes(parts, size);
}
