import { once } from 'node:events';
import type { EventEmitter } from 'node:events';
import type { BodyChunk } from '../response.js';
import { toChunk } from './serialize.js';

/** A writable destination: a Node `Writable`, `ServerResponse` or Lambda response stream. */
export interface ChunkSink {
  readonly destroyed: boolean;
  write(chunk: Uint8Array): boolean;
}

/** Writes a streamed body, waiting whenever the destination asks to; stops if it closes. */
export async function writeChunks(stream: ChunkSink, source: AsyncIterable<BodyChunk>): Promise<void> {
  for await (const chunk of source) {
    if (stream.destroyed) break;
    await writeChunk(stream, toChunk(chunk));
  }
}

export async function writeChunk(stream: ChunkSink, chunk: Uint8Array): Promise<void> {
  if (stream.write(chunk)) return;
  const emitter = stream as unknown as EventEmitter;
  // Waits for drain; a stream closed meanwhile (client gone) ends the wait too.
  const done = new AbortController();
  try {
    await Promise.race([once(emitter, 'drain', { signal: done.signal }), once(emitter, 'close', { signal: done.signal })]);
  } finally {
    done.abort();
  }
}
