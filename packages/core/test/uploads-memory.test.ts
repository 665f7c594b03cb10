/**
 * Memory stays bounded whatever the upload's size: a 200 MB file uploaded to a server in a child
 * process raises its RSS by far less than the file (spooled to disk past 1 MiB, the socket paused
 * while the disk catches up). `bench/upload.ts` prints the same figure.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

/** Runs the bench's upload program (a server child of its own) and reads its figures. */
async function measureUpload(bytes: number): Promise<{ bytes: number; growth: number; seconds: number }> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--conditions=@fnapi/source', '--import', 'tsx', 'bench/upload.ts', String(bytes / 1_000_000), '--json'],
    { cwd: repoRoot, maxBuffer: 1024 * 1024 },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as { bytes: number; growth: number; seconds: number };
}

describe('a 200 MB upload', () => {
  it('raises the server RSS by less than 128 MiB and arrives whole', { timeout: 180_000 }, async () => {
    const m = await measureUpload(200_000_000);
    console.log(`200 MB upload: server RSS growth ${(m.growth / 2 ** 20).toFixed(1)} MiB in ${m.seconds.toFixed(1)} s`);
    expect(m.bytes).toBe(200_000_000);
    expect(m.growth).toBeLessThan(128 * 2 ** 20);
  });
});
