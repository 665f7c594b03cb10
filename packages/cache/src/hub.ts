import { type Hub, type HubOptions, ServiceUnavailableError } from '@fnapi/core';
import { type Duration, durationSeconds, MemoryHub } from '@fnapi/core/extend';
import { createClient, type RedisClientType } from '@redis/client';
import { RedisConnection } from './connection.js';

export interface RedisHubOptions extends HubOptions {
  /** Redis URL; default `REDIS_URL`, else `redis://127.0.0.1:6379`. */
  url?: string | undefined;
  /** Prefix of every channel; default `fnapi:hub:`. Instances that share it share topics. */
  keyPrefix?: string | undefined;
  /** Seconds (or `'500ms'`) a publish may take before it rejects with 503; default 1. */
  timeout?: Duration | undefined;
}

/** A topic's channel on the subscriber connection, while this instance has subscribers to it. */
interface Channel {
  /** Resolves once Redis confirmed the SUBSCRIBE on the current connection; replaced when it drops. */
  ready: Promise<void>;
  confirm: () => void;
  confirmed: boolean;
  /** The SUBSCRIBE on its way: node-redis holds a channel (and subscribes again after a reconnect) only once Redis confirmed it. */
  subscribing: Promise<void> | undefined;
  /** The SUBSCRIBE failed with the connection: it is sent again once Redis is back. */
  lost: boolean;
}

/**
 * A `Hub` across every instance that shares a Redis: `publish` is a Redis `PUBLISH` (one connection,
 * so messages from one publisher arrive in order), and each instance holds one subscriber connection
 * however many topics it listens to, subscribing to a topic's channel while it has local subscribers.
 * While Redis is unreachable `publish` rejects with `ServiceUnavailableError` (503) at once, and the
 * subscriber reconnects and subscribes again by itself (what was published meanwhile is not replayed).
 */
export class RedisHub extends MemoryHub implements Hub {
  readonly keyPrefix: string;
  private readonly url: string;
  private readonly publisher: RedisConnection;
  private subscriber: RedisClientType | undefined;
  private readonly channels = new Map<string, Channel>();
  /** Channels Redis has not confirmed yet: a publish from this instance waits for them (bounded by `timeout`). */
  private readonly unconfirmed = new Set<Channel>();
  private readonly timeoutMs: number;
  /** The subscriber connection failed or dropped and has not been ready since. */
  private subscriberDown = false;

  constructor(options: RedisHubOptions = {}) {
    super(options);
    this.keyPrefix = options.keyPrefix ?? 'fnapi:hub:';
    this.url = options.url ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    const timeout = durationSeconds('RedisHub: timeout', options.timeout ?? 1, { zero: false });
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
    if (this.unconfirmed.size > 0 && !this.subscriberDown) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.all([...this.unconfirmed].map((channel) => channel.ready)),
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

  protected override topicOpened(topic: string): void {
    const channel: Channel = { ready: Promise.resolve(), confirm: () => {}, confirmed: false, subscribing: undefined, lost: false };
    this.unconfirm(channel);
    this.channels.set(topic, channel);
    this.sendSubscribe(topic, channel);
  }

  protected override topicReady(topic: string): Promise<void> | undefined {
    const channel = this.channels.get(topic);
    return channel === undefined || channel.confirmed ? undefined : channel.ready;
  }

  protected override topicClosed(topic: string): void {
    const channel = this.channels.get(topic);
    if (channel === undefined) return;
    this.channels.delete(topic);
    this.unconfirmed.delete(channel);
    // Releases a publish waiting for it; its subscriptions have ended.
    channel.confirm();
    const subscriber = this.subscriber;
    if (subscriber === undefined || channel.lost) return;
    const unsubscribe = () => {
      // Opened again meanwhile: its channel stays.
      if (this.channels.has(topic) || this.subscriber !== subscriber) return;
      subscriber.unsubscribe(this.keyPrefix + topic, this.onMessage).catch(() => {});
    };
    // An UNSUBSCRIBE that overtook its SUBSCRIBE's answer could race a reopening of the topic.
    if (channel.subscribing === undefined) unsubscribe();
    else void channel.subscribing.then(unsubscribe);
  }

  /** Subscribes a topic's channel; node-redis queues it until connected. */
  private sendSubscribe(topic: string, channel: Channel): void {
    const subscriber = this.connectSubscriber();
    channel.lost = false;
    const subscribing = subscriber.subscribe(this.keyPrefix + topic, this.onMessage).then(
      () => {
        channel.subscribing = undefined;
        // While the connection is down node-redis answers at once for a channel it holds; 'ready' confirms it.
        if (this.channels.get(topic) === channel && !this.subscriberDown) this.confirm(channel);
      },
      (error: unknown) => {
        channel.subscribing = undefined;
        if (this.channels.get(topic) !== channel) return;
        channel.lost = true;
        this.logger?.warn({ err: error, topic }, 'hub could not subscribe yet; it will when Redis is back');
      },
    );
    channel.subscribing = subscribing;
  }

  private confirm(channel: Channel): void {
    channel.confirmed = true;
    this.unconfirmed.delete(channel);
    channel.confirm();
  }

  /** Makes a channel's `ready` pending until Redis confirms it (again). */
  private unconfirm(channel: Channel): void {
    channel.confirmed = false;
    channel.ready = new Promise((resolve) => {
      channel.confirm = resolve;
    });
    this.unconfirmed.add(channel);
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
        // Redis no longer has this connection's channels: new subscriptions wait until it is back.
        for (const channel of this.channels.values()) if (channel.confirmed) this.unconfirm(channel);
        if (reported) return;
        reported = true;
        this.logger?.warn({ err: error }, 'hub lost its Redis subscriber connection; reconnecting');
      });
      subscriber.on('ready', () => {
        reported = false;
        this.subscriberDown = false;
        // node-redis subscribed its channels again before 'ready'; those whose SUBSCRIBE failed go now.
        for (const [topic, channel] of this.channels) {
          if (channel.lost) this.sendSubscribe(topic, channel);
          else if (channel.subscribing === undefined && !channel.confirmed) this.confirm(channel);
        }
      });
      this.subscriber = subscriber;
      // It retries by itself (reconnectStrategy); failures are reported through 'error'.
      subscriber.connect().catch(() => {});
    }
    return this.subscriber;
  }
}
