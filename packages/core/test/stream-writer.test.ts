/**
 * The one stream writer over node:http: chunks go out as they are produced, and a client that goes
 * away stops the producer at once (the generator's `finally` runs) while the server keeps serving.
 */
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { API, type RunningServer, StreamingResponse } from '../src/index.js';

let running: RunningServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

describe('stream writer', () => {
  it('calls the iterator’s return() when the client goes away, so the generator’s finally runs', async () => {
    const app = new API({ logger: false });
    let finished!: () => void;
    const cleanedUp = new Promise<void>((resolve) => (finished = resolve));
    let release!: () => void;
    const never = new Promise<void>((resolve) => (release = resolve));
    app.get('/events', () => {
      async function* produce() {
        try {
          yield 'first\n';
          // Waits for an event that only comes after the client left.
          await never;
          yield 'second\n';
        } finally {
          finished();
        }
      }
      return new StreamingResponse(produce(), { mediaType: 'text/plain' });
    });
    app.get('/ping', () => 'pong');
    running = await app.run({ port: 0, handleSignals: false });

    const first = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(`${running!.url}/events`, (res) => {
        res.setEncoding('utf8');
        res.once('data', (chunk: string) => {
          resolve(chunk);
          req.destroy();
        });
      });
      req.on('error', (error) => (error.message.includes('socket hang up') ? undefined : reject(error)));
      req.end();
    });
    expect(first).toBe('first\n');
    release();
    await cleanedUp;
    const pong = await fetch(`${running.url}/ping`);
    expect(await pong.json()).toBe('pong');
  });
});
