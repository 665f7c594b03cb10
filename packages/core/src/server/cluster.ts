import type { Worker } from 'node:cluster';
import { builtin } from '../platform/platform.js';
import type { Runtime } from '../serve/runtime-contract.js';
import type { RunningServer } from './node.js';

// From the built-in registry when first asked, not imported: see node.ts (bundlers hoist static
// imports of built-ins, and this module is loaded with core).
const nodeCluster = () => builtin('node:cluster');

/** Deaths within `CRASH_WINDOW_MS` past which the primary stops restarting workers. */
const CRASH_LIMIT = 5;
const CRASH_WINDOW_MS = 30_000;
const RESTART_MIN_MS = 100;
const RESTART_MAX_MS = 5_000;

export interface ClusterOptions {
  /** Worker processes; `'auto'` is one per available CPU. */
  workers: number | 'auto';
  /** Drain every worker on SIGTERM/SIGINT, then exit 0; default true. */
  handleSignals?: boolean;
}

/** How many processes `workers` asks for (1 means no cluster). */
export function workerCount(workers: number | 'auto' | undefined): number {
  if (workers === undefined) return 1;
  if (workers === 'auto') return builtin('node:os').availableParallelism();
  if (!Number.isInteger(workers) || workers < 1)
    throw new RangeError(`workers must be a whole number of at least 1 or 'auto', got ${String(workers)}`);
  return workers;
}

/**
 * The primary of `app.run({ workers })`: forks the workers (each runs the same entry and serves on the
 * shared port, lifecycle callbacks included), restarts a worker that dies — with backoff, giving up
 * loudly (exit 1) on a crash loop — and on SIGTERM/SIGINT has every worker drain before it exits 0.
 * Resolves, once every worker listens, to the same shape as a single process (without `server`).
 */
export function runClusterPrimary(app: Pick<Runtime, 'logger'>, options: ClusterOptions): Promise<RunningServer> {
  const count = workerCount(options.workers);
  const handleSignals = options.handleSignals ?? true;
  const logger = app.logger;
  const deaths: number[] = [];
  let stopping: Promise<void> | undefined;
  let restartDelay = RESTART_MIN_MS;
  let address: { host: string; port: number; url: string } | undefined;
  const listening = new Set<number>();

  const cluster = nodeCluster();
  return new Promise<RunningServer>((resolve, reject) => {
    const fork = (): Worker => cluster.fork({ FNAPI_CLUSTER_WORKER: '1' });

    const onListening = (worker: Worker, where: { address: string | null; port: number; addressType: number | string }) => {
      listening.add(worker.id);
      if (address === undefined) {
        const host = where.address ?? '0.0.0.0';
        const shown = host.includes(':') ? `[${host}]` : host;
        const reachable = shown === '0.0.0.0' ? '127.0.0.1' : shown === '[::]' ? '[::1]' : shown;
        address = { host, port: where.port, url: `http://${reachable}:${where.port}` };
      }
      restartDelay = RESTART_MIN_MS;
      if (listening.size === count && !settled) {
        settled = true;
        logger.info(
          { workers: count, primary: process.pid, url: address.url },
          `fnapi primary ${process.pid}: ${count} workers on ${address.url}`,
        );
        resolve({ url: address.url, port: address.port, host: address.host, server: undefined, close: () => stop(false) });
      }
    };
    let settled = false;

    const onExit = (worker: Worker, code: number | null, signal: string | null) => {
      listening.delete(worker.id);
      if (stopping) return;
      const now = Date.now();
      deaths.push(now);
      while (deaths.length > 0 && now - deaths[0]! > CRASH_WINDOW_MS) deaths.shift();
      if (deaths.length >= CRASH_LIMIT) {
        const message = `workers died ${deaths.length} times within ${CRASH_WINDOW_MS / 1000} s (last: pid ${worker.process.pid}, ${signal ?? `exit code ${code}`}); giving up`;
        logger.fatal({ deaths: deaths.length }, message);
        void stop(false).then(() => {
          if (!settled) {
            settled = true;
            reject(new Error(message));
          } else process.exit(1);
        });
        return;
      }
      logger.warn(
        { pid: worker.process.pid, code, signal, restartInMs: restartDelay },
        `worker ${worker.process.pid} died (${signal ?? `exit code ${code}`}); starting another in ${restartDelay} ms`,
      );
      setTimeout(fork, restartDelay);
      restartDelay = Math.min(restartDelay * 2, RESTART_MAX_MS);
    };

    const stop = (exit: boolean): Promise<void> => {
      stopping ??= (async () => {
        const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());
        logger.info({ workers: workers.length }, 'draining every worker');
        await Promise.all(
          workers.map(
            (worker) =>
              new Promise<void>((done) => {
                worker.once('exit', () => done());
                // Each worker drains itself on SIGTERM (in-flight requests finish, new ones get 503).
                worker.process.kill('SIGTERM');
              }),
          ),
        );
        cluster.off('listening', onListening);
        cluster.off('exit', onExit);
        process.off('SIGTERM', onSignal);
        process.off('SIGINT', onSignal);
        logger.info('fnapi primary stopped');
        if (exit) process.exit(0);
      })();
      return stopping;
    };
    const onSignal = () => void stop(true);

    cluster.on('listening', onListening);
    cluster.on('exit', onExit);
    if (handleSignals) {
      process.on('SIGTERM', onSignal);
      process.on('SIGINT', onSignal);
    }
    for (let i = 0; i < count; i++) fork();
  });
}

/** True in the primary when `workers` asks for more than one process. */
export function shouldRunCluster(workers: number | 'auto' | undefined): boolean {
  return nodeCluster().isPrimary && workerCount(workers) > 1;
}
