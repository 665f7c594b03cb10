/**
 * Memory stays bounded whatever the upload's size: a 200 MB file uploaded to a server in a child
 * process raises its RSS by far less than the file (spooled to disk past 1 MiB, the socket paused
 * while the disk catches up). `bench/upload.ts` prints the same figure.
 */
import { describe, expect, it } from 'vitest';
import { measureUpload } from '../../../bench/upload.js';

describe('a 200 MB upload', () => {
  it('raises the server RSS by less than 128 MiB and arrives whole', { timeout: 180_000 }, async () => {
    const m = await measureUpload(200_000_000);
    console.log(`200 MB upload: server RSS growth ${(m.growth / 2 ** 20).toFixed(1)} MiB in ${m.seconds.toFixed(1)} s`);
    expect(m.bytes).toBe(200_000_000);
    expect(m.growth).toBeLessThan(128 * 2 ** 20);
  });
});
