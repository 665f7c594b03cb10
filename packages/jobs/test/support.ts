import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { DATABASE_URL, REDIS_URL, serviceAvailable } from '@fnapi/test-support';
import pg from 'pg';
import { createClient } from 'redis';
import { vi } from 'vitest';

/** Each store the package runs on, with a unique prefix per test file and a way to remove what it left. */
export interface StoreUnderTest {
  name: 'redis' | 'postgres';
  available: boolean;
  /** `new Jobs()` options for this store with a fresh prefix. */
  options(): { redis?: string; postgres?: string; prefix: string };
  /** Removes every key or schema made under the prefixes handed out. */
  cleanup(): Promise<void>;
}

function unique(): string {
  return `${process.pid}_${randomBytes(4).toString('hex')}`;
}

export async function redisStore(url = REDIS_URL): Promise<StoreUnderTest> {
  const prefixes: string[] = [];
  return {
    name: 'redis',
    available: await serviceAvailable('Redis', url),
    options() {
      const prefix = `fnapi-jobs-test-${unique()}`;
      prefixes.push(prefix);
      return { redis: url, prefix };
    },
    async cleanup() {
      if (prefixes.length === 0) return;
      const client = createClient({ url });
      client.on('error', () => {});
      try {
        await client.connect();
        for (const prefix of prefixes) {
          const keys: string[] = [];
          for await (const batch of client.scanIterator({ MATCH: `${prefix}:*`, COUNT: 500 })) keys.push(...batch);
          if (keys.length) await client.del(keys);
        }
      } finally {
        client.destroy();
      }
    },
  };
}

export async function postgresStore(url = DATABASE_URL): Promise<StoreUnderTest> {
  const schemas: string[] = [];
  return {
    name: 'postgres',
    available: await serviceAvailable('PostgreSQL', url),
    options() {
      const prefix = `jobs_test_${unique()}`;
      schemas.push(prefix);
      return { postgres: url, prefix };
    },
    async cleanup() {
      if (schemas.length === 0) return;
      const client = new pg.Client({ connectionString: url });
      client.on('error', () => {});
      try {
        await client.connect();
        for (const schema of schemas) await client.query(`drop schema if exists "${schema}" cascade`);
      } catch {
        // A store that went away (a fault test's private one) leaves nothing behind.
      } finally {
        await client.end().catch(() => {});
      }
    },
  };
}

/** Polls `check` until it returns a value (not undefined), at most `ms`. */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, ms = 10_000, what = 'condition'): Promise<T> {
  let found: { value: T } | { error: unknown } | undefined;
  const settled = async () => {
    try {
      const value = await check();
      if (value !== undefined) found = { value };
    } catch (error) {
      found = { error };
    }
    return found !== undefined;
  };
  await vi.waitUntil(settled, { timeout: ms, interval: 25 }).catch(() => {
    throw new Error(`timed out after ${ms} ms waiting for ${what}`);
  });
  if ('error' in found!) throw found.error;
  return found!.value;
}

export interface ChildLog {
  child: ChildProcess;
  /** Every JSON line the child wrote to stdout. */
  lines: Record<string, unknown>[];
  /** Resolves with the first line (already written or to come) that passes `test`. */
  seen(test: (line: Record<string, unknown>) => boolean, ms?: number): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
}

/** Runs a TypeScript script in a child Node process (fnapi's sources, through tsx), reading its JSON log lines. */
export function startChild(args: string[], env: Record<string, string>, cwd: string): ChildLog {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd,
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
  const seen = (test: (line: Record<string, unknown>) => boolean, ms = 45_000) => {
    const found = lines.find(test);
    if (found) return Promise.resolve(found);
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the child did not log the expected line within ${ms} ms; stderr: ${stderr}`)), ms);
      void exited.then((code) => reject(new Error(`the child exited (${code}) first; stderr: ${stderr}`)));
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
