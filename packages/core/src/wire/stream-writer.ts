import type { EventEmitter } from 'node:events';
import type { BodyChunk } from '../http/response.js';
import { toChunk } from './serialize.js';
import { builtin } from '../platform/platform.js';

/** A writable destination: a Node `Writable`, `ServerResponse` or Lambda response stream. */
export interface ChunkSink {
  readonly destroyed: boolean;
  write(chunk: Uint8Array): boolean;
}

/**
 * Milliseconds a stream may write without handing the event loop back. A client that reads as fast as
 * the server writes never fills the socket, so `write()` never says "wait": without this a stream
 * whose items are all ready would run in microtasks alone and starve every other request.
 */
const SLICE_MS = 5;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The one stream writer: writes each chunk as it arrives, waits for `drain` when the destination is
 * full (the producer pauses), gives the event loop back every few milliseconds (so one fast stream
 * never stalls the rest of the server), and when the destination closes (client gone) stops at once
 * and calls the iterator's `return()`, so a generator's `finally` runs.
 */
export async function writeChunks(stream: ChunkSink, source: AsyncIterable<BodyChunk> | ReadableStream<BodyChunk>): Promise<void> {
  const iterator = (source as AsyncIterable<BodyChunk>)[Symbol.asyncIterator]();
  const emitter = stream as unknown as EventEmitter;
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    void Promise.resolve(iterator.return?.()).catch(() => {});
  };
  emitter.once?.('close', stop);
  let sliceStart = performance.now();
  try {
    while (!stopped) {
      const asked = performance.now();
      const next = await iterator.next();
      if (next.done || stopped) break;
      // An item that took a while came from a later turn of the event loop (a timer, I/O): a new slice.
      const arrived = performance.now();
      if (arrived - asked >= SLICE_MS) sliceStart = arrived;
      if (stream.destroyed) {
        stop();
        break;
      }
      await writeChunk(stream, toChunk(next.value));
      const now = performance.now();
      if (now - sliceStart >= SLICE_MS) {
        await nextTurn();
        sliceStart = performance.now();
      }
    }
  } catch (error) {
    stopped = true;
    throw error;
  } finally {
    emitter.off?.('close', stop);
  }
}

export async function writeChunk(stream: ChunkSink, chunk: Uint8Array): Promise<void> {
  if (stream.write(chunk)) return;
  const emitter = stream as unknown as EventEmitter;
  // Waits for drain; a stream closed meanwhile (client gone) ends the wait too.
  const done = new AbortController();
  try {
    // node:events from the registry, not imported: a Worker's bundle has no node:events.
    const { once } = builtin('node:events');
    await Promise.race([once(emitter, 'drain', { signal: done.signal }), once(emitter, 'close', { signal: done.signal })]);
  } finally {
    done.abort();
  }
}
