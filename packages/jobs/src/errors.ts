import { type Logger, ServiceUnavailableError } from '@fnapi/core';

/** One problem with a payload: where, what, and a machine-readable code. */
export interface PayloadIssue {
  path: (string | number)[];
  message: string;
  code: string;
}

/**
 * A payload that does not fit its job's `payload` schema (or is not JSON, or is too large): the
 * caller's bug, so an unhandled one is a 500.
 */
export class JobPayloadError extends Error {
  readonly issues: PayloadIssue[];
  constructor(job: string, issues: PayloadIssue[]) {
    const first = issues[0];
    super(`Payload of job "${job}" is invalid${first ? `: ${first.path.length ? `${first.path.join('.')}: ` : ''}${first.message}` : ''}`);
    this.name = 'JobPayloadError';
    this.issues = issues;
  }
}

/** How long a store call may go unanswered before it counts as the store being away. */
const STORE_CALL_TIMEOUT_MS = 5000;
/** An outage is logged once: a connection error within this long of the last one is not logged again. */
const OUTAGE_QUIET_MS = 10_000;

/**
 * What becomes of the store's failures: a call that fails or goes unanswered rejects with core's
 * `ServiceUnavailableError` (a 503 unless the handler catches it), and a connection error is logged
 * once per outage (the clients reconnect by themselves).
 */
export class StoreErrors {
  private outage = false;

  constructor(
    private readonly store: 'redis' | 'postgres',
    private readonly logger: () => Logger,
  ) {}

  /** A store call: its result, or a `ServiceUnavailableError` when the store fails it or does not answer. */
  async guard<T>(operation: Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      return await Promise.race([
        operation,
        new Promise<never>((_resolve, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${STORE_CALL_TIMEOUT_MS / 1000} s`)), STORE_CALL_TIMEOUT_MS);
        }),
      ]);
    } catch (error) {
      // The caller's mistakes are not the store's.
      if (error instanceof JobPayloadError || error instanceof RangeError || error instanceof TypeError) throw error;
      throw this.unavailable(error);
    } finally {
      clearTimeout(timer);
    }
  }

  /** A store failure as the error an enqueue rejects with. */
  unavailable(error: unknown): Error {
    if (error instanceof ServiceUnavailableError) return error;
    const reason = error instanceof Error ? error.message : String(error);
    const name = this.store === 'redis' ? 'Redis' : 'PostgreSQL';
    return new ServiceUnavailableError(`The job store (${name}) is unavailable: ${reason}`, undefined, { cause: error });
  }

  /** A connection error of one of the store's clients (`role`: producer, worker, queue). */
  connectionFailed(error: unknown, role: string): void {
    if (this.outage) return;
    this.outage = true;
    this.logger().error({ err: error, role, store: this.store }, 'job store connection failed; reconnecting');
    setTimeout(() => {
      this.outage = false;
    }, OUTAGE_QUIET_MS).unref();
  }
}
