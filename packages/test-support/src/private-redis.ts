import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';

/** A private redis-server on a free port, stopped and started by the test (never the shared one). */
export class PrivateRedis {
  private child: ChildProcess | undefined;
  private readonly dir = mkdtempSync(`${tmpdir()}/fnapi-redis-`);
  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.dir],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    await new Promise<void>((resolve, reject) => {
      this.child!.once('error', reject);
      this.child!.stdout!.on('data', (data: Buffer) => {
        if (data.toString().includes('Ready to accept connections')) resolve();
      });
    });
  }

  /** Stops it for good and removes its folder. */
  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}

export const redisServerInstalled = await new Promise<boolean>((resolve) => {
  const probe = spawn('redis-server', ['--version'], { stdio: 'ignore' });
  probe.on('error', () => resolve(false));
  probe.on('exit', (code) => resolve(code === 0));
});

/** Retries `probe` until it answers (a store's first call may give up within its timeout); 10 s at most. */
export async function untilAnswers(probe: () => Promise<unknown>): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      await probe();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
