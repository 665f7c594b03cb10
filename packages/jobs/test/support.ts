import { randomBytes } from 'node:crypto';
import { DATABASE_URL, REDIS_URL, serviceAvailable } from '@fnapi/test-support';
import pg from 'pg';
import { createClient } from 'redis';

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
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
