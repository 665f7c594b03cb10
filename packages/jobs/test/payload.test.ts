/** Payload validation happens before any store is reached: zod's codes, any Standard Schema's issues. */
import { describe, expect, it } from 'vitest';
import { z } from '@fnapi/core';
import { JobPayloadError, Jobs, type PayloadSchema } from '../src/index.js';

// A store nothing listens on: validation must fail before it is ever asked.
const jobs = new Jobs({ redis: 'redis://127.0.0.1:1', prefix: 'never' });

describe('enqueue validation', () => {
  it('takes any Standard Schema: its issues, with their paths, code "invalid"', async () => {
    const positive: PayloadSchema<{ n: number }> = {
      '~standard': {
        version: 1,
        vendor: 'hand-made',
        validate: (value) => {
          const n = (value as { n?: unknown } | null)?.n;
          return typeof n === 'number' && n > 0 ? { value: { n } } : { issues: [{ message: 'n must be positive', path: [{ key: 'n' }] }] };
        },
      },
    };
    const kind = jobs.define('positive', { payload: positive }, ({ n }) => n);
    const error = await kind.enqueue({ n: -1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobPayloadError);
    expect((error as JobPayloadError).issues).toEqual([{ path: ['n'], message: 'n must be positive', code: 'invalid' }]);
  });

  it('with zod: one issue per problem, zod code and message, and a message naming the first', async () => {
    const kind = jobs.define('user', { payload: z.object({ email: z.email(), age: z.int().min(18) }) }, () => null);
    const error = (await kind.enqueue({ email: 'nope', age: 3 }).catch((e: unknown) => e)) as JobPayloadError;
    expect(error.issues.map((i) => [i.path, i.code])).toEqual([
      [['email'], 'invalid_format'],
      [['age'], 'too_small'],
    ]);
    expect(error.message).toMatch(/^Payload of job "user" is invalid: email: /);
  });

  it("keeps a library's own issue code, and nothing of the payload beside path, message and code", async () => {
    const coded: PayloadSchema<string> = {
      '~standard': {
        version: 1,
        vendor: 'coded',
        validate: (value) =>
          typeof value === 'string'
            ? { value }
            : { issues: [{ message: 'a string, please', path: ['secret'], code: 'not_a_string' } as never] },
      },
    };
    const kind = jobs.define('coded', { payload: coded }, () => null);
    const error = (await kind.enqueue({ secret: 'hunter2' } as never).catch((e: unknown) => e)) as JobPayloadError;
    expect(error).toBeInstanceOf(JobPayloadError);
    expect(error.issues).toEqual([{ path: ['secret'], message: 'a string, please', code: 'not_a_string' }]);
    expect(Object.keys(error.issues[0]!).sort()).toEqual(['code', 'message', 'path']);
  });

  it('an async schema (zod with an async refinement) is validated asynchronously', async () => {
    const schema = z.object({ name: z.string() }).refine(async (value) => value.name !== 'taken', { message: 'name is taken' });
    const kind = jobs.define('async-check', { payload: schema }, () => null);
    const error = (await kind.enqueue({ name: 'taken' }).catch((e: unknown) => e)) as JobPayloadError;
    expect(error).toBeInstanceOf(JobPayloadError);
    expect(error.issues).toEqual([{ path: [], message: 'name is taken', code: 'custom' }]);
  });

  it('refuses a payload option that is no schema when the kind is defined', () => {
    expect(() => jobs.define('not-a-schema', { payload: { parse: () => null } as never }, () => null)).toThrow(
      /payload is a zod schema or another Standard Schema/,
    );
  });

  it('rejects names, keys, delays and priorities it cannot keep', async () => {
    expect(() => jobs.define('bad name', {}, () => null)).toThrow(/job name/);
    expect(() => jobs.define('user', {}, () => null)).toThrow(/already defined/);
    expect(() => jobs.schedule('both', { cron: '* * * * *', every: 1 }, () => null)).toThrow(/one of cron or every/);
    expect(() => new Jobs({ prefix: 'x' })).toThrow(/one store/);
    expect(() => new Jobs({ postgres: 'postgres://x', prefix: 'has-dash' })).toThrow(/schema/);
    expect(() => new Jobs({ redis: 'redis://127.0.0.1:1', metrics: {} as never })).toThrow(/prom-client Registry/);
  });
});
