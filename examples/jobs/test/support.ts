import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../..', import.meta.url));
const cli = join(root, 'packages/dev/src/cli.ts');
export const entry = join(root, 'examples/jobs/src/app.ts');

export interface WorkerProcess {
  child: ChildProcess;
  /** Every JSON line the worker logged. */
  lines: Record<string, unknown>[];
  /** Resolves once a logged line passes `test`. */
  seen(test: (line: Record<string, unknown>) => boolean, ms?: number): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
}

/** `fnapi worker <entry>` in a child process, with the given environment. */
export function startWorker(env: Record<string, string>, file = entry): WorkerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', cli, 'worker', file], {
    cwd: root,
    env: { ...process.env, NODE_OPTIONS: '--conditions=@fnapi/source', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  const waiters: { test: (line: Record<string, unknown>) => boolean; resolve: (line: Record<string, unknown>) => void }[] = [];
  let buffer = '';
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let newline: number;
    while ((newline = buffer.indexOf('\n')) !== -1) {
      const text = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(text) as Record<string, unknown>;
      } catch {
        continue;
      }
      lines.push(line);
      for (const waiter of [...waiters]) {
        if (waiter.test(line)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const seen = (test: (line: Record<string, unknown>) => boolean, ms = 20_000) => {
    const found = lines.find(test);
    if (found) return Promise.resolve(found);
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`worker did not log the expected line within ${ms} ms; stderr: ${stderr}`)), ms);
      void exited.then((code) => reject(new Error(`worker exited (${code}) first; stderr: ${stderr}`)));
      waiters.push({
        test,
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
      });
    });
  };
  return { child, lines, seen, exited };
}
