import { Hub, type HubOptions, ServiceUnavailableError } from '@fnapi/core';
import { createClient, type RedisClientType } from 'redis';
import { RedisConnection } from './connection.js';

export interface RedisHubOptions extends HubOptions {
  /** Redis URL; default `REDIS_URL`, else `redis://127.0.0.1:6379`. */
  url?: string | undefined;
  /** Prefix of every channel; default `fnapi:hub:`. Instances that share it share topics. */
  keyPrefix?: string | undefined;
  /** Seconds a publish may take before it rejects with 503; default 1. */
  timeout?: number | undefined;
}

/**
 * A `Hub` across every instance that shares a Redis: `publish` is a Redis `PUBLISH` (one connection,
 * so messages from one publisher arrive in order), and each instance holds one subscriber connection
 * however many topics it listens to, subscribing to a topic's channel while it has local subscribers.
 * While Redis is unreachable `publish` rejects with `ServiceUnavailableError` (503) at once, and the
 * subscriber reconnects and subscribes again by itself (what was published meanwhile is not replayed).
 */
export class RedisHub extends Hub {
  readonly keyPrefix: string;
  private readonly url: string;
  private readonly publisher: RedisConnection;
  private subscriber: RedisClientType | undefined;
  private subscriberReady: Promise<unknown> | undefined;
  /** SUBSCRIBE commands on their way: a publish from this instance waits for them (bounded by `timeout`). */
  private readonly subscribing = new Set<Promise<unknown>>();
  private readonly timeoutMs: number;
  /** The subscriber connection failed or dropped and has not been ready since. */
  private subscriberDown = false;

  constructor(options: RedisHubOptions = {}) {
    super(options);
    this.keyPrefix = options.keyPrefix ?? 'fnapi:hub:';
    this.url = options.url ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    const timeout = options.timeout ?? 1;
    if (!(timeout > 0)) throw new RangeError('RedisHub: timeout must be a positive number of seconds');
    this.timeoutMs = timeout * 1000;
    this.publisher = new RedisConnection({
      url: this.url,
      timeoutMs: timeout * 1000,
      unavailable: (message, cause) => new ServiceUnavailableError(`Hub unavailable: ${message}`, undefined, cause),
    });
  }

  /** Publishes to every instance; rejects with `ServiceUnavailableError` while Redis is unreachable. */
  override async publish(topic: string, message: unknown): Promise<void> {
    if (this.isClosed) throw new Error('This hub is closed');
    const payload = JSON.stringify(message ?? null);
    // A subscription made on this instance just before sees this message: its SUBSCRIBE goes first.
    if (this.subscribing.size > 0 && !this.subscriberDown) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.allSettled([...this.subscribing]),
        new Promise((resolve) => {
          timer = setTimeout(resolve, this.timeoutMs);
        }),
      ]);
      clearTimeout(timer);
    }
    await this.publisher.call((client) => client.publish(this.keyPrefix + topic, payload));
    this.countPublished();
  }

  /** Ends every subscription and closes both connections. */
  override async close(): Promise<void> {
    await super.close();
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    await this.publisher.close();
    if (subscriber?.isOpen) {
      // A Redis that went away mid-close would leave QUIT unanswered: give it a second.
      if (subscriber.isReady) await Promise.race([subscriber.close().catch(() => {}), new Promise((r) => setTimeout(r, 1000).unref())]);
      if (subscriber.isOpen) subscriber.destroy();
    }
  }

  /** Settles once the subscriber connection is ready (for tests and startup checks). */
  async ready(): Promise<void> {
    this.connectSubscriber();
    await this.subscriberReady;
  }

  protected override topicOpened(topic: string): void {
    const subscriber = this.connectSubscriber();
    // Queued until connected; node-redis subscribes again after every reconnect.
    const subscribed = subscriber.subscribe(this.keyPrefix + topic, this.onMessage).catch((error: unknown) => {
      this.logger?.warn({ err: error, topic }, 'hub could not subscribe yet; it will when Redis is back');
    });
    this.subscribing.add(subscribed);
    void subscribed.finally(() => this.subscribing.delete(subscribed));
  }

  protected override topicClosed(topic: string): void {
    const subscriber = this.subscriber;
    if (subscriber === undefined) return;
    subscriber.unsubscribe(this.keyPrefix + topic, this.onMessage).catch(() => {});
  }

  private readonly onMessage = (message: string, channel: string): void => {
    let value: unknown;
    try {
      value = JSON.parse(message);
    } catch {
      return;
    }
    this.deliver(channel.slice(this.keyPrefix.length), value);
  };

  private connectSubscriber(): RedisClientType {
    if (this.subscriber === undefined) {
      const subscriber = createClient({
        url: this.url,
        name: `fnapi-hub:${this.keyPrefix}`.replace(/[^\x21-\x7e]/g, '_'),
        socket: { connectTimeout: 1000, reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 1000) },
      }) as RedisClientType;
      let reported = false;
      subscriber.on('error', (error: unknown) => {
        this.subscriberDown = true;
        if (reported) return;
        reported = true;
        this.logger?.warn({ err: error }, 'hub lost its Redis subscriber connection; reconnecting');
      });
      subscriber.on('ready', () => {
        reported = false;
        this.subscriberDown = false;
      });
      this.subscriber = subscriber;
      this.subscriberReady = subscriber.connect().catch(() => {});
    }
    return this.subscriber;
  }
}
