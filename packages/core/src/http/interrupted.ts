import { ServiceUnavailableError } from './errors.js';

/**
 * Thrown by a body stream to be cut off without its final chunk, so the client sees an incomplete
 * answer rather than a clean end; the cause was logged where it happened, so writers do not log it.
 */
export class StreamInterrupted extends Error {
  constructor(cause: unknown) {
    super('stream interrupted', { cause });
    this.name = 'StreamInterrupted';
  }
}

/**
 * A draining server's 503: the answer to a request that arrives while it drains, and the abort reason
 * of the streams it ends.
 */
export function drainingReason(): ServiceUnavailableError {
  return new ServiceUnavailableError('The server is shutting down', undefined, { headers: { 'retry-after': '1' } });
}
