/**
 * Validation bounded by what was sent: at most 100 issues, then `truncated`, and validation stops —
 * zod and valibot schemas are walked element by element, so half a million failing array items cost
 * what the first hundred do (arktype's objects and arrays too); a small input keeps the library's exact
 * issues.
 */
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { boundedStandardIssues, boundedZodIssues, isLargeInput } from '../src/bounded.js';
import { compileBinder, MAX_ISSUES, z } from '../src/index.js';
import { raw } from './helpers.js';

const halfMillion = () => ({ tags: new Array(500_000).fill(1) });

function timed<T>(fn: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = fn();
  return { value, ms: performance.now() - started };
}

function failure(result: ReturnType<ReturnType<typeof compileBinder>>) {
  if (result.ok) throw new Error('expected a failure');
  return result;
}

describe('bounded issues', () => {
  it('MAX_ISSUES is 100', () => {
    expect(MAX_ISSUES).toBe(100);
  });

  for (const [name, params] of [
    ['zod, a body field by name', { tags: z.array(z.string()) }],
    ['zod, a whole-body model', { post: z.object({ tags: z.array(z.string()) }) }],
    ['valibot, a body field by name', { tags: v.array(v.string()) }],
    ['valibot, a whole-body model', { post: v.object({ tags: v.array(v.string()) }) }],
    ['zod and valibot mixed', { tags: z.array(z.string()), note: v.optional(v.string()) }],
  ] as const) {
    it(`${name}: half a million failing items stop at 100, truncated, in milliseconds`, () => {
      const bind = compileBinder({ method: 'POST', pathParams: [], params: params as never });
      bind(raw({ body: { tags: [1] } })); // the first bind compiles
      const { value, ms } = timed(() => failure(bind(raw({ body: halfMillion() }))));
      expect(value.issues).toHaveLength(100);
      expect(value.truncated).toBe(true);
      expect(value.issues[0]).toMatchObject({ in: 'body', path: ['tags', 0] });
      expect(value.issues[99].path).toEqual(['tags', 99]);
      expect(ms).toBeLessThan(100);
    });
  }

  it('a path parameter beside a whole-body model: the body is bounded too', () => {
    const bind = compileBinder({ method: 'PUT', pathParams: ['id'], params: { id: z.int(), post: z.object({ tags: z.array(z.int()) }) } });
    const result = failure(bind(raw({ path: { id: '7' }, body: { tags: new Array(100_000).fill('x') } })));
    expect(result.issues).toHaveLength(100);
    expect(result.truncated).toBe(true);
    expect(result.issues[5].path).toEqual(['tags', 5]);
  });

  it('a small input keeps the library exact issues, the array check included', () => {
    const bind = compileBinder({ method: 'POST', pathParams: [], params: { tags: z.array(z.string()).min(3) } });
    const result = failure(bind(raw({ body: { tags: [1] } })));
    expect(result.truncated).toBeUndefined();
    expect(result.issues.map((i) => [i.path, i.code])).toEqual([
      [['tags', 0], 'invalid_type'],
      [['tags'], 'too_small'],
    ]);
  });

  it('a large input with few failures gets the library exact issues', () => {
    const tags: unknown[] = new Array(50_000).fill('a');
    tags[10] = 1;
    tags[40_000] = 2;
    for (const schema of [z.array(z.string()), z.array(z.string()).max(10)]) {
      const bind = compileBinder({ method: 'POST', pathParams: [], params: { tags: schema } });
      const result = failure(bind(raw({ body: { tags } })));
      expect(result.truncated).toBeUndefined();
      const own = z.object({ tags: schema }).safeParse({ tags });
      expect(result.issues.map((i) => [i.path, i.code])).toEqual(own.error!.issues.map((i) => [i.path, i.code]));
    }
  });

  it('nested arrays and arrays of objects are walked: issues in order, positions kept', () => {
    const matrix = { m: Array.from({ length: 500 }, () => new Array(1000).fill(1)) };
    const zodIssues = boundedZodIssues(z.object({ m: z.array(z.array(z.string())) }), matrix);
    expect(zodIssues).toHaveLength(100);
    expect(zodIssues![99].path).toEqual(['m', 0, 99]);
    const rows = { rows: Array.from({ length: 60_000 }, () => ({ a: 1, b: 'x' })) };
    const rowIssues = boundedZodIssues(z.object({ rows: z.array(z.object({ a: z.string(), b: z.int() })) }), rows);
    expect(rowIssues!.map((i) => i.path.join('.')).slice(0, 3)).toEqual(['rows.0.a', 'rows.0.b', 'rows.1.a']);
    const valibotIssues = boundedStandardIssues(v.object({ rows: v.array(v.object({ a: v.string(), b: v.number() })) }), rows);
    expect(valibotIssues!.map((i) => i.path.join('.')).slice(0, 3)).toEqual(['rows.0.a', 'rows.0.b', 'rows.1.a']);
    const record = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, 'x']));
    expect(boundedZodIssues(z.record(z.string(), z.int()), record)).toHaveLength(100);
    expect(boundedStandardIssues(v.record(v.string(), v.number()), record)).toHaveLength(100);
  });

  it('a large valid input is not slowed much by the walk', () => {
    const tags = new Array(200_000).fill('a');
    const bind = compileBinder({ method: 'POST', pathParams: [], params: { tags: z.array(z.string()) } });
    bind(raw({ body: { tags: ['a'] } }));
    const { value } = timed(() => bind(raw({ body: { tags } })));
    expect(value.ok).toBe(true);
  });

  it('isLargeInput counts items and entries with an early exit', () => {
    expect(isLargeInput({ a: 1, b: [1, 2, 3] })).toBe(false);
    expect(isLargeInput({ a: new Array(2000).fill(0) })).toBe(true);
    expect(isLargeInput(Array.from({ length: 400 }, () => ({ a: 1, b: 2, c: 3 })))).toBe(true);
  });

  it('arktype: objects and arrays walked too, messages as arktype writes them for the whole input', () => {
    for (const params of [{ tags: type('string[]') }, { post: type({ tags: 'string[]' }) }]) {
      const bind = compileBinder({ method: 'POST', pathParams: [], params: params as never });
      bind(raw({ body: { tags: ['a'] } }));
      const { value, ms } = timed(() => failure(bind(raw({ body: halfMillion() }))));
      expect(value.issues).toHaveLength(100);
      expect(value.truncated).toBe(true);
      expect(value.issues[99].path).toEqual(['tags', 99]);
      expect(ms).toBeLessThan(100);
    }
    // Failures past the first slice keep their index in the message, as the whole validation writes it.
    const tags: unknown[] = new Array(5000).fill('a');
    for (let i = 0; i < 300; i++) tags[1000 + i * 3] = 1;
    const Post = type({ tags: 'string[]' });
    const issues = boundedStandardIssues(Post, { tags });
    expect(issues![0]).toMatchObject({ path: ['tags', 1000], message: 'tags[1000] must be a string (was a number)', code: 'domain' });
    const whole = Post({ tags: tags.slice(0, 1001) }) as unknown as { message: string }[];
    expect(issues![0].message).toBe(whole[0]!.message);
    const rows = type({ rows: type({ a: 'string', b: 'number' }).array() });
    const rowIssues = boundedStandardIssues(rows, { rows: Array.from({ length: 60_000 }, () => ({ a: 1, b: 'x' })) });
    expect(rowIssues!.slice(0, 2).map((i) => [i.path.join('.'), i.message])).toEqual([
      ['rows.0.a', 'rows[0].a must be a string (was a number)'],
      ['rows.0.b', 'rows[0].b must be a number (was a string)'],
    ]);
  });
});
