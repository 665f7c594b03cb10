import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ChildLog, startChild } from '../../../packages/jobs/test/support.js';

export const root = fileURLToPath(new URL('../../..', import.meta.url));
const cli = join(root, 'packages/dev/src/cli.ts');
export const entry = join(root, 'examples/jobs/src/app.ts');
export type WorkerProcess = ChildLog;

/** `fnapi worker <entry>` in a child process, with the given environment. */
export function startWorker(env: Record<string, string>, file = entry): WorkerProcess {
  return startChild([cli, 'worker', file], env, root);
}
