import { createRequire } from 'node:module';
import { ServiceUnavailableError } from '@fnapi/core';
import { currentSignal, type Duration, durationSeconds, HOUR } from '@fnapi/core/extend';
import type { Client, ClientConfig, QueryResult as PgResult } from 'pg';
import { inQuerySpan, queryWithoutValues } from './query-span.js';

/** A query's answer: the rows, and how many rows the command touched. */
export interface QueryResult<R = Record<string, unknown>> {
  rows: R[];
  rowCount: number | null;
  command: string;
}

/** A borrowed connection: query it, then release it (or let `await using` do so). */
export interface PooledConnection {
  query<R = Record<string, unknown>>(text: string, values?: readonly unknown[]): Promise<QueryResult<R>>;
  /** Gives the connection back; a broken one, or one left inside a transaction, is closed instead. */
  release(): void;
  [Symbol.asyncDispose](): Promise<void>;
}

export interface PoolOptions {
  /** Connections kept open, from construction on and after losses; default 1. */
  minSize?: number | undefined;
  /** Connections never exceeded; default 10. */
  maxSize?: number | undefined;
  /** Seconds (or `'500ms'`) a caller waits for a connection before a `PoolTimeoutError` (a 503); default 10. */
  acquireTimeout?: Duration | undefined;
  /** Seconds (or `'1m'`) an idle connection above `minSize` is kept; default 30; 0 keeps it. */
  idleTimeout?: Duration | undefined;
  /**
   * Seconds a query may run; default 30. Past it the server cancels the query (`statement_timeout`)
   * and it rejects with a `QueryTimeoutError` (a 503); the connection is reused, the server having
   * confirmed the cancel. A server that does not answer at all is given one more second, then the
   * connection is closed (never reused) and the query rejects the same way. A string takes a unit
   * (`'5s'`); for the three timeouts a number over an hour is refused.
   */
  queryTimeout?: Duration | undefined;
}

export interface PoolStats {
  /** Open connections plus those being opened. */
  size: number;
  idle: number;
  inUse: number;
  waiting: number;
}

/** No connection within `acquireTimeout`: a 503 when it reaches a request. */
export class PoolTimeoutError extends ServiceUnavailableError {
  readonly stats: PoolStats;
  constructor(seconds: number, stats: PoolStats, maxSize: number, lastError?: Error) {
    super(
      `No database connection within ${seconds} s (pool: ${stats.size}/${maxSize} connections, ` +
        `${stats.inUse} in use, ${stats.idle} idle, ${stats.waiting} waiting` +
        `${lastError ? `; last connection error: ${lastError.message}` : ''})`,
    );
    this.name = 'PoolTimeoutError';
    this.stats = stats;
  }
}

/** A query ran past `queryTimeout`: a 503 when it reaches a request. */
export class QueryTimeoutError extends ServiceUnavailableError {
  constructor(seconds: number, text: string, options?: { cause?: unknown }) {
    super(`Query cancelled after the queryTimeout of ${seconds} s: ${queryWithoutValues(text)}`, undefined, options);
    this.name = 'QueryTimeoutError';
  }
}

/** How long past `queryTimeout` a server that does not answer (even to cancel) is given. */
const UNANSWERED_GRACE_MS = 1000;

export class PoolClosedError extends Error {
  constructor() {
    super('The connection pool is closed');
    this.name = 'PoolClosedError';
  }
}

interface Member {
  client: Client;
  /** The server's transaction status after the last command: `I` idle, `T` in a transaction, `E` failed one. */
  transaction: string;
  broken: boolean;
  idleTimer: NodeJS.Timeout | undefined;
}

interface Waiter {
  resolve(member: Member): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

type PgModule = { Client: new (config: ClientConfig) => Client };

function loadPg(): PgModule {
  try {
    return createRequire(import.meta.url)('pg') as PgModule;
  } catch (error) {
    throw new Error('ConnectionPool speaks PostgreSQL through the "pg" package: install @fnapi/database (or pg)', { cause: error });
  }
}

const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5000;

/**
 * A PostgreSQL pool on `pg` clients that survives the faults pools meet in the field: an idle
 * connection that errors (server restart, `pg_terminate_backend`) is dropped and replaced, never an
 * unhandled error; `minSize` connections are opened from construction and reopened after losses (with
 * backoff while the server is down); `maxSize` is never exceeded; waiters are served in order and
 * time out; a connection left inside a transaction is closed, not reused.
 */
export class ConnectionPool {
  readonly minSize: number;
  readonly maxSize: number;
  readonly acquireTimeout: number;
  readonly idleTimeout: number;
  readonly queryTimeout: number;
  private readonly pg: PgModule;
  private readonly config: ClientConfig;
  private readonly idle: Member[] = [];
  private readonly busy = new Set<Member>();
  private readonly waiters: Waiter[] = [];
  private opening = 0;
  private closed = false;
  private retryDelay = RETRY_MIN_MS;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly closing = new Set<Promise<void>>();
  private lastError: Error | undefined;

  constructor(url: string, options: PoolOptions = {}) {
    this.minSize = options.minSize ?? 1;
    this.maxSize = options.maxSize ?? 10;
    this.acquireTimeout = durationSeconds('acquireTimeout', options.acquireTimeout ?? 10, { maxNumber: HOUR });
    this.idleTimeout = durationSeconds('idleTimeout', options.idleTimeout ?? 30, { maxNumber: HOUR });
    this.queryTimeout = durationSeconds('queryTimeout', options.queryTimeout ?? 30, { maxNumber: HOUR, zero: false });
    if (!Number.isInteger(this.maxSize) || this.maxSize < 1) throw new RangeError('maxSize must be a whole number of at least 1');
    if (!Number.isInteger(this.minSize) || this.minSize < 0 || this.minSize > this.maxSize) {
      throw new RangeError('minSize must be a whole number from 0 to maxSize');
    }
    this.pg = loadPg();
    this.config = {
      connectionString: url,
      connectionTimeoutMillis: Math.max(1, Math.round(this.acquireTimeout * 1000)),
      // The server cancels a query past it, and says so: the connection stays usable.
      statement_timeout: Math.max(1, Math.round(this.queryTimeout * 1000)),
    };
    this.fill();
  }

  /** `{ size, idle, inUse, waiting }`. */
  stats(): PoolStats {
    return {
      size: this.idle.length + this.busy.size + this.opening,
      idle: this.idle.length,
      inUse: this.busy.size,
      waiting: this.waiters.length,
    };
  }

  /** Borrows a connection; waits (in order) up to `acquireTimeout` when all `maxSize` are in use. */
  async acquire(): Promise<PooledConnection> {
    return this.wrap(await this.take());
  }

  /** Runs `fn` with a borrowed connection and gives it back, whatever happens. */
  async withConnection<T>(fn: (connection: PooledConnection) => T | Promise<T>): Promise<T> {
    const connection = await this.acquire();
    try {
      return await fn(connection);
    } finally {
      connection.release();
    }
  }

  /** One query on a borrowed connection. */
  query<R = Record<string, unknown>>(text: string, values?: readonly unknown[]): Promise<QueryResult<R>> {
    return this.withConnection((connection) => connection.query<R>(text, values));
  }

  /**
   * BEGIN, `fn`, COMMIT; ROLLBACK when `fn` throws (the error is re-thrown). A connection whose
   * ROLLBACK fails is closed, not reused.
   */
  async transaction<T>(fn: (connection: PooledConnection) => T | Promise<T>): Promise<T> {
    const connection = await this.acquire();
    try {
      await connection.query('BEGIN');
      const result = await fn(connection);
      await connection.query('COMMIT');
      return result;
    } catch (error) {
      await connection.query('ROLLBACK').catch(() => {
        // Left as it is, the status check on release closes it.
      });
      throw error;
    } finally {
      connection.release();
    }
  }

  /**
   * Refuses new callers, fails waiters, closes every connection: busy ones as they are released, or
   * after `acquireTimeout` seconds if they are not (a leaked connection must not hang shutdown).
   */
  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      clearTimeout(this.retryTimer);
      for (const waiter of this.waiters.splice(0)) {
        clearTimeout(waiter.timer);
        waiter.reject(new PoolClosedError());
      }
      for (const member of this.idle.splice(0)) this.destroy(member);
    }
    const deadline = Date.now() + this.acquireTimeout * 1000;
    while (this.busy.size > 0 || this.opening > 0 || this.closing.size > 0) {
      if (Date.now() > deadline) for (const member of this.busy) this.destroy(member);
      await Promise.race([...this.closing, new Promise((resolve) => setTimeout(resolve, 20))]);
      for (const member of this.busy) if (member.broken && Date.now() > deadline) this.busy.delete(member);
    }
  }

  private take(): Promise<Member> {
    if (this.closed) return Promise.reject(new PoolClosedError());
    const member = this.idle.pop();
    if (member) {
      clearTimeout(member.idleTimer);
      this.busy.add(member);
      return Promise.resolve(member);
    }
    const signal = currentSignal();
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<Member>((resolve, reject) => {
      // The caller's work was abandoned (a health check past its timeout): it stops waiting.
      const abandoned = () => {
        const index = this.waiters.indexOf(waiter);
        if (index === -1) return;
        this.waiters.splice(index, 1);
        clearTimeout(waiter.timer);
        reject(signal!.reason);
      };
      const waiter: Waiter = {
        resolve: (member) => {
          signal?.removeEventListener('abort', abandoned);
          resolve(member);
        },
        reject,
        timer: setTimeout(() => {
          signal?.removeEventListener('abort', abandoned);
          const stats = this.stats(); // with this waiter still counted
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          reject(new PoolTimeoutError(this.acquireTimeout, stats, this.maxSize, this.lastError));
        }, this.acquireTimeout * 1000),
      };
      signal?.addEventListener('abort', abandoned, { once: true });
      this.waiters.push(waiter);
      this.grow();
    });
  }

  /** Opens connections while there are waiters (or fewer than `minSize`) and room under `maxSize`. */
  private grow(): void {
    const wanted = Math.max(this.minSize - this.size(), this.waiters.length - this.opening);
    for (let i = 0; i < wanted && this.size() < this.maxSize; i++) this.open();
  }

  private fill(): void {
    if (!this.closed) this.grow();
  }

  private size(): number {
    return this.idle.length + this.busy.size + this.opening;
  }

  private open(): void {
    this.opening++;
    const client = new this.pg.Client(this.config);
    const member: Member = { client, transaction: 'I', broken: false, idleTimer: undefined };
    // Always listened to: an 'error' with no listener would crash the process.
    client.on('error', (error) => this.lost(member, error));
    client.on('end', () => this.lost(member, undefined));
    const connection = (client as unknown as { connection: NodeJS.EventEmitter }).connection;
    connection.on('readyForQuery', (message: { status?: string }) => {
      if (message.status) member.transaction = message.status;
    });
    client.connect().then(
      () => {
        this.opening--;
        this.retryDelay = RETRY_MIN_MS;
        this.lastError = undefined;
        if (this.closed || member.broken) {
          this.destroy(member);
          return;
        }
        this.hand(member);
      },
      (error: Error) => {
        this.opening--;
        member.broken = true;
        this.lastError = error;
        this.destroy(member);
        this.scheduleRetry();
      },
    );
  }

  /** The server cannot be reached: try again later, backing off, until it answers or the pool closes. */
  private scheduleRetry(): void {
    if (this.closed || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.fill();
    }, this.retryDelay);
    this.retryTimer.unref();
    this.retryDelay = Math.min(this.retryDelay * 2, RETRY_MAX_MS);
  }

  /** A connection is free: to the first waiter, else idle. */
  private hand(member: Member): void {
    const waiter = this.waiters.shift();
    if (waiter) {
      clearTimeout(waiter.timer);
      this.busy.add(member);
      waiter.resolve(member);
      return;
    }
    this.idle.push(member);
    if (this.idleTimeout > 0) {
      member.idleTimer = setTimeout(() => this.expire(member), this.idleTimeout * 1000);
      member.idleTimer.unref();
    }
  }

  /** An idle connection above `minSize` has waited long enough. */
  private expire(member: Member): void {
    const index = this.idle.indexOf(member);
    if (index === -1 || this.size() <= this.minSize) return;
    this.idle.splice(index, 1);
    this.destroy(member);
  }

  private release(member: Member): void {
    if (!this.busy.delete(member)) return;
    if (this.closed || member.broken || member.transaction !== 'I') {
      this.destroy(member);
      this.fill();
      return;
    }
    this.hand(member);
  }

  /** A connection errored or ended: drop it (a busy one when it is released) and refill. */
  private lost(member: Member, error: Error | undefined): void {
    if (member.broken) return;
    member.broken = true;
    if (error) this.lastError = error;
    const index = this.idle.indexOf(member);
    if (index !== -1) {
      this.idle.splice(index, 1);
      clearTimeout(member.idleTimer);
      this.destroy(member);
    }
    // Replace it once the server answers again (at once if it does).
    if (!this.busy.has(member)) this.scheduleRefill();
  }

  private scheduleRefill(): void {
    if (this.closed) return;
    setImmediate(() => this.fill());
  }

  private destroy(member: Member, now = false): void {
    member.broken = true;
    clearTimeout(member.idleTimer);
    // A server that does not answer would never acknowledge a polite end: close the socket itself.
    if (now) (member.client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    const ended = member.client.end().catch(() => {});
    this.closing.add(ended);
    ended.finally(() => this.closing.delete(ended));
  }

  private wrap(member: Member): PooledConnection {
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.release(member);
    };
    return {
      query: async <R>(text: string, values?: readonly unknown[]): Promise<QueryResult<R>> => {
        if (released) throw new Error('This connection was released to the pool; acquire another');
        const result = await inQuerySpan(text, () => this.run(member, text, values));
        return { rows: result.rows as R[], rowCount: result.rowCount, command: result.command };
      },
      release,
      [Symbol.asyncDispose]: async () => release(),
    };
  }

  /**
   * One query, bounded: the server cancels it past `queryTimeout` (its error confirms the cancel, so
   * the connection is reused); a server that does not answer within one more second, or an ambient
   * signal that aborts (a health check past its timeout), closes the connection, which is never reused.
   */
  private run(member: Member, text: string, values: readonly unknown[] | undefined): Promise<PgResult> {
    const signal = currentSignal();
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<PgResult>((resolve, reject) => {
      let settled = false;
      const settle = () => {
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', abandon);
      };
      const drop = (error: unknown) => {
        if (settled) return;
        settle();
        this.destroy(member, true);
        reject(error);
      };
      const abandon = () => drop(signal!.reason);
      const timer = setTimeout(() => drop(new QueryTimeoutError(this.queryTimeout, text)), this.queryTimeout * 1000 + UNANSWERED_GRACE_MS);
      signal?.addEventListener('abort', abandon, { once: true });
      member.client.query(text, values as unknown[] | undefined).then(
        (result) => {
          if (settled) return;
          settle();
          resolve(result);
        },
        (error: unknown) => {
          if (settled) return;
          settle();
          // 57014: query_canceled, here by statement_timeout.
          reject((error as { code?: string }).code === '57014' ? new QueryTimeoutError(this.queryTimeout, text, { cause: error }) : error);
        },
      );
    });
  }
}
