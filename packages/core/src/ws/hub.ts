import { defaultLogger, type Logger } from '../platform/logger.js';

export interface HubOptions {
  /** Messages each subscription holds unread before the oldest are dropped; default 1,000. */
  bufferSize?: number;
  /** Where a subscription's first drop is logged; default core's logger; `false` silences it. */
  logger?: Logger | false;
}

export interface SubscribeOptions {
  /** Ends the subscription when aborted (`request.signal`, `socket.signal`). */
  signal?: AbortSignal;
  /** This subscription's buffer, instead of the hub's. */
  bufferSize?: number;
}

export interface HubStats {
  /** Topics with at least one subscription on this instance. */
  topics: number;
  subscriptions: number;
  /** Messages published through this hub instance. */
  published: number;
  /** Messages handed to subscriptions' buffers. */
  delivered: number;
  /** Messages dropped from full buffers (the oldest go first). */
  dropped: number;
}

/**
 * A publish/subscribe hub: `publish` a JSON value to a topic, `subscribe` to a topic's messages
 * published from then on. `new Hub()` is the in-process one (`MemoryHub`); `RedisHub` (`@fnapi/cache`)
 * reaches every instance that shares a Redis.
 */
export interface Hub {
  /** Delivers `message` (any JSON value) to every subscription of `topic` that is ready. */
  publish(topic: string, message: unknown): Promise<void>;
  /** The topic's messages published after its `ready` resolves, until `signal` aborts, the iteration is left or the hub closes. */
  subscribe<T = unknown>(topic: string, options?: SubscribeOptions): HubSubscription<T>;
  /** Resolves once every subscription made so far is ready (or has ended). */
  ready(): Promise<void>;
  stats(): HubStats;
  /** Ends every subscription and closes a client the hub created. */
  close(): Promise<void>;
}

const DONE: IteratorResult<never> = { done: true, value: undefined };
const DEFAULT_BUFFER = 1000;
/** The readiness of a subscription no hub holds: it ends before it could be ready. */
const NEVER_READY: Promise<void> = new Promise(() => {});

/**
 * One subscription: an async iterable of a topic's messages, in the order they arrived, holding at
 * most `bufferSize` unread (past it the oldest are dropped and counted). It ends when its signal
 * aborts, when the iteration is left (`break`, `return`) or when the hub closes. `ready` resolves once
 * the hub has it (every message published from then on reaches it) and rejects with an `AbortError`
 * when it ends first.
 */
export class HubSubscription<T = unknown> implements AsyncIterable<T>, AsyncIterator<T> {
  /** Messages this subscription dropped because its buffer was full. */
  dropped = 0;
  /** Resolves once the hub has this subscription; rejects with an `AbortError` if it ends first. */
  readonly ready: Promise<void>;
  private rejectReady: ((reason: unknown) => void) | undefined;
  private buffer: T[] = [];
  private head = 0;
  private waiter: ((result: IteratorResult<T>) => void) | undefined;
  private done = false;

  constructor(
    readonly topic: string,
    private readonly bufferSize: number,
    private readonly onDrop: (subscription: HubSubscription<T>) => void,
    private readonly onEnd: (subscription: HubSubscription<T>) => void,
    /** Settles once the hub has it; without it, it is ready at once. */
    hubReady?: PromiseLike<void>,
  ) {
    this.ready = new Promise<void>((resolve, reject) => {
      if (hubReady === undefined) return resolve();
      this.rejectReady = reject;
      hubReady.then(
        () => {
          this.rejectReady = undefined;
          resolve();
        },
        (error: unknown) => {
          this.rejectReady = undefined;
          reject(error);
        },
      );
    });
    // Nobody has to await it: a subscription that ends first must not be an unhandled rejection.
    this.ready.catch(() => {});
  }

  /** Whether it has ended. */
  get ended(): boolean {
    return this.done;
  }

  /** Unread messages held. */
  get pending(): number {
    return this.buffer.length - this.head;
  }

  /** Hands a message over; false when the buffer was full and the oldest message was dropped. */
  push(message: T): boolean {
    if (this.done) return true;
    const waiter = this.waiter;
    if (waiter !== undefined) {
      this.waiter = undefined;
      waiter({ done: false, value: message });
      return true;
    }
    this.buffer.push(message);
    if (this.buffer.length - this.head <= this.bufferSize) return true;
    this.head++;
    this.compact();
    this.dropped++;
    this.onDrop(this);
    return false;
  }

  next(): Promise<IteratorResult<T>> {
    if (this.head < this.buffer.length) {
      const value = this.buffer[this.head]!;
      (this.buffer as unknown[])[this.head] = undefined;
      this.head++;
      this.compact();
      return Promise.resolve({ done: false, value });
    }
    if (this.done) return Promise.resolve(DONE);
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  /** Ends the subscription (leaving a `for await` does this). */
  return(): Promise<IteratorResult<T>> {
    this.end();
    return Promise.resolve(DONE);
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return this;
  }

  /** Ends it: unread messages are dropped, a waiting reader gets the end. */
  end(): void {
    if (this.done) return;
    this.done = true;
    this.buffer = [];
    this.head = 0;
    this.rejectReady?.(new DOMException(`The subscription to "${this.topic}" ended before it was ready`, 'AbortError'));
    this.rejectReady = undefined;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.(DONE);
    this.onEnd(this);
  }

  private compact(): void {
    if (this.head === this.buffer.length) {
      this.buffer = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.buffer.length) {
      this.buffer = this.buffer.slice(this.head);
      this.head = 0;
    }
  }
}

/**
 * The in-process hub (`new Hub()`): `publish(topic, message)` reaches every subscription of that
 * topic made before it, in publish order; a subscription is ready at once. `RedisHub` (`@fnapi/cache`)
 * builds on it to reach every instance that shares a Redis. Delivery is at most once; a subscription
 * that does not keep up loses its oldest messages (counted in `stats()`, logged once per subscription).
 */
export class MemoryHub implements Hub {
  protected readonly bufferSize: number;
  private readonly topics = new Map<string, Set<HubSubscription<any>>>();
  private readonly counts = { published: 0, delivered: 0, dropped: 0 };
  private readonly loggerOption: Logger | false | undefined;
  private loggerInstance: Logger | undefined;
  private closedHub = false;

  constructor(options: HubOptions = {}) {
    const size = options.bufferSize ?? DEFAULT_BUFFER;
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`bufferSize is a whole number ≥ 1, got ${String(size)}`);
    this.bufferSize = size;
    this.loggerOption = options.logger;
  }

  protected get logger(): Logger | undefined {
    if (this.loggerOption === false) return undefined;
    return (this.loggerInstance ??= this.loggerOption ?? defaultLogger());
  }

  /** Delivers `message` (any JSON value) to every subscription of `topic` on this instance. */
  async publish(topic: string, message: unknown): Promise<void> {
    this.checkOpen();
    this.counts.published++;
    this.deliver(topic, message);
  }

  /**
   * The topic's messages published from now on, until `signal` aborts, the iteration is left or the
   * hub closes. An `events` endpoint can return it; a WebSocket handler can `socket.forward` it.
   */
  subscribe<T = unknown>(topic: string, options: SubscribeOptions = {}): HubSubscription<T> {
    this.checkOpen();
    const size = options.bufferSize ?? this.bufferSize;
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`bufferSize is a whole number ≥ 1, got ${String(size)}`);
    const signal = options.signal;
    let onAbort: (() => void) | undefined;
    const ended = signal?.aborted === true;
    if (!ended && !this.topics.has(topic)) {
      this.topics.set(topic, new Set());
      this.topicOpened(topic);
    }
    const subscription = new HubSubscription<T>(
      topic,
      size,
      (s) => {
        this.counts.dropped++;
        if (s.dropped === 1)
          this.logger?.warn(
            { topic, bufferSize: size },
            `hub subscription to "${topic}" is not keeping up: dropping its oldest messages (more than ${size} unread)`,
          );
      },
      (s) => {
        if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
        this.remove(s);
      },
      ended ? NEVER_READY : this.topicReady(topic),
    );
    const set = ended ? undefined : this.topics.get(topic);
    if (set === undefined) {
      subscription.end();
      return subscription;
    }
    set.add(subscription);
    if (signal !== undefined) {
      onAbort = () => subscription.end();
      signal.addEventListener('abort', onAbort, { once: true });
    }
    return subscription;
  }

  /** Resolves once every subscription made so far is ready or has ended. */
  async ready(): Promise<void> {
    const pending: Promise<void>[] = [];
    for (const set of this.topics.values()) for (const subscription of set) pending.push(subscription.ready);
    await Promise.allSettled(pending);
  }

  stats(): HubStats {
    let subscriptions = 0;
    for (const set of this.topics.values()) subscriptions += set.size;
    return { topics: this.topics.size, subscriptions, ...this.counts };
  }

  /** Ends every subscription; later calls to `publish` and `subscribe` throw. */
  async close(): Promise<void> {
    this.closedHub = true;
    for (const set of [...this.topics.values()]) for (const subscription of [...set]) subscription.end();
  }

  /** Hands a message to every subscription of a topic on this instance. */
  protected deliver(topic: string, message: unknown): void {
    const set = this.topics.get(topic);
    if (set === undefined) return;
    for (const subscription of set) {
      subscription.push(message);
      this.counts.delivered++;
    }
  }

  /** Called when a topic gets its first subscription on this instance (a Redis hub subscribes here). */
  protected topicOpened(_topic: string): void {}

  /** When the hub has a topic's new subscription; `undefined`: at once. */
  protected topicReady(_topic: string): Promise<void> | undefined {
    return undefined;
  }

  /** Called when a topic's last subscription on this instance ends. */
  protected topicClosed(_topic: string): void {}

  /** Counts a publish made by a subclass's own transport. */
  protected countPublished(): void {
    this.counts.published++;
  }

  protected get isClosed(): boolean {
    return this.closedHub;
  }

  private checkOpen(): void {
    if (this.closedHub) throw new Error('This hub is closed');
  }

  private remove(subscription: HubSubscription<any>): void {
    const set = this.topics.get(subscription.topic);
    if (set === undefined || !set.delete(subscription)) return;
    if (set.size === 0) {
      this.topics.delete(subscription.topic);
      this.topicClosed(subscription.topic);
    }
  }
}

/** `new Hub(options)` makes the in-process hub; `hub: Hub` takes any hub (`RedisHub` too). */
export const Hub: new (options?: HubOptions) => Hub = MemoryHub;
