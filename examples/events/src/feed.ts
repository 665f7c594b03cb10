/** One published message. */
export interface Message {
  id: number;
  text: string;
  at: string;
}

/**
 * An in-memory message feed: publishing wakes every waiting stream; `cut()` ends the open streams
 * (as a redeploy would), so their clients reconnect with `Last-Event-ID`.
 */
export class Feed {
  private readonly messages: Message[] = [];
  private readonly waiters = new Set<() => void>();
  /** Bumped by `cut()`: a stream opened in an older generation ends. */
  generation = 0;
  /** The `Last-Event-ID` of every reconnection, in order. */
  readonly reconnects: string[] = [];

  publish(text: string): Message {
    const message = { id: this.messages.length + 1, text, at: new Date().toISOString() };
    this.messages.push(message);
    this.wake();
    return message;
  }

  /** Messages published after the given id, oldest first. */
  since(id: number): Message[] {
    return this.messages.slice(Math.max(0, id));
  }

  get latest(): number {
    return this.messages.length;
  }

  /** Resolves on the next publish or cut, or when the signal aborts. */
  wait(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.waiters.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.waiters.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  cut(): void {
    this.generation++;
    this.wake();
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}
