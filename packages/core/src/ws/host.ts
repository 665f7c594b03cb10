import { type Abandoned, abandoned } from '../http/deferred.js';
import { firstReport } from '../http/errors.js';
import { WebSocketConnection, type WireSocket } from './connection.js';
import type { WebSocketUpgrade } from './endpoint.js';

/**
 * The open WebSocket connections of one server: runs each handler, pings on the heartbeat (one timer
 * per interval, not per connection), and drains — close with 1001, wait for the handlers — on shutdown.
 */
export class WebSocketHost {
  private readonly connections = new Set<WebSocketConnection>();
  /** Each connection's run (its handler, then its close) and its upgrade; removed when both are over. */
  private readonly running = new Map<WebSocketConnection, { done: Promise<void>; upgrade: WebSocketUpgrade }>();
  private readonly beats = new Map<number, { timer: ReturnType<typeof setInterval>; members: Set<WebSocketConnection> }>();
  private closing = false;

  /** Open connections. */
  get size(): number {
    return this.connections.size;
  }

  /**
   * An accepted upgrade's socket: makes the connection, runs the handler, and closes with 1000 when
   * it returns or 1011 when it throws (logged with the request id). Returns the connection, which the
   * transport feeds with `received`, `pong` and `ended`.
   */
  start(upgrade: WebSocketUpgrade, wire: WireSocket): WebSocketConnection {
    const { settings, request } = upgrade;
    const connection = new WebSocketConnection(wire, settings, request);
    connection.protocol = upgrade.protocol;
    this.connections.add(connection);
    if (settings.heartbeat > 0 && wire.ping !== undefined) this.beat(settings.heartbeat, connection);
    if (this.closing) connection.close(1001, 'Server shutting down');
    // `run` awaits before it ends, so the entry is set before it is deleted.
    this.running.set(connection, { done: this.run(upgrade, connection), upgrade });
    return connection;
  }

  private async run(upgrade: WebSocketUpgrade, connection: WebSocketConnection): Promise<void> {
    const { settings, request, input } = upgrade;
    try {
      await settings.handler(input, connection, request);
      connection.close(1000);
    } catch (error) {
      // Logged once: an error the connection logged where it happened is not logged again here.
      if (firstReport(connection, error)) {
        request.logger.error({ err: error, wsId: connection.id, route: request.route }, 'websocket handler failed');
      }
      connection.close(1011, 'Internal error');
    }
    const close = await connection.closed;
    this.running.delete(connection);
    this.connections.delete(connection);
    this.unbeat(settings.heartbeat, connection);
    upgrade.end(close, connection.counts);
    const duration = Math.round((performance.now() - upgrade.startedAt) * 1000) / 1000;
    request.logger.debug(
      { route: request.route, path: request.path, wsId: connection.id, code: close.code, duration, ...connection.counts },
      'websocket closed',
    );
  }

  /**
   * Closes every open connection with 1001 and waits for their handlers (and closing handshakes) to
   * finish, at most `timeoutMs`; connections still open then are dropped. Resolves with the handlers
   * still running when the time limit ended the wait (for the drain's warning line).
   */
  async drain(timeoutMs: number): Promise<Abandoned[]> {
    this.closing = true;
    for (const connection of this.connections) connection.close(1001, 'Server shutting down');
    if (this.running.size > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.allSettled([...this.running.values()].map((run) => run.done)),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, timeoutMs);
        }),
      ]);
      clearTimeout(timer);
    }
    this.stopBeats();
    const left: Abandoned[] = [];
    for (const { upgrade } of this.running.values()) left.push(abandoned('websocket', upgrade.request, upgrade.startedAt));
    return left;
  }

  /** Drops every connection at once (the server is closing for good). */
  terminateAll(): void {
    for (const connection of this.connections) connection.ended(1006, '');
    this.stopBeats();
  }

  private beat(ms: number, connection: WebSocketConnection): void {
    let beat = this.beats.get(ms);
    if (beat === undefined) {
      const members = new Set<WebSocketConnection>();
      const timer = setInterval(() => {
        for (const member of members) {
          if (!member.alive) {
            member.terminate();
            continue;
          }
          member.alive = false;
          member.ping();
        }
      }, ms);
      (timer as { unref?: () => void }).unref?.();
      beat = { timer, members };
      this.beats.set(ms, beat);
    }
    beat.members.add(connection);
  }

  private unbeat(ms: number, connection: WebSocketConnection): void {
    const beat = this.beats.get(ms);
    if (beat === undefined) return;
    beat.members.delete(connection);
    if (beat.members.size === 0) {
      clearInterval(beat.timer);
      this.beats.delete(ms);
    }
  }

  private stopBeats(): void {
    for (const beat of this.beats.values()) clearInterval(beat.timer);
    this.beats.clear();
  }
}
