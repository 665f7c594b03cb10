import { afterEach, describe, expect, it } from 'vitest';
import { compileBinder, compiledSchema, z } from '../src/index.js';
import { raw } from './helpers.js';

const User = z.object({
  name: z.string().min(2).max(50),
  email: z.email(),
  age: z.int().min(18).max(120),
  role: z.enum(['admin', 'user', 'guest']).default('user'),
  tags: z.array(z.string()).default([]),
  nickname: z.string().nullable().optional(),
});

const Item = z.object({ id: z.int(), name: z.string(), price: z.number(), tags: z.array(z.string()), inStock: z.boolean() });

// Valid and invalid inputs side by side: the compiled schema must answer every one exactly as zod does.
const USER_INPUTS: unknown[] = [
  { name: 'Ada', email: 'ada@example.com', age: 36 },
  { name: 'Ada', email: 'ada@example.com', age: 36, role: 'admin', tags: ['x'], extra: 1 },
  { name: 'Ada', email: 'ada@example.com', age: 36, nickname: null },
  { name: 'Ada', email: 'ada@example.com', age: 36, nickname: undefined },
  { name: 'A', email: 'ada@example.com', age: 36 },
  { name: 'Ada', email: 'not-an-email', age: 12 },
  { name: 'Ada', email: 'ada@example.com', age: 36.5 },
  { name: 'Ada', email: 'ada@example.com', age: 2 ** 60 },
  { name: 'Ada', email: 'ada@example.com', age: 36, role: 'root' },
  { name: 'Ada', email: 'ada@example.com', age: 36, tags: ['x', 1] },
  { name: 'Ada', email: 'ada@example.com', age: '36' },
  [],
  null,
  'Ada',
  undefined,
];

const ITEM_LISTS: unknown[] = [
  [],
  [{ id: 1, name: 'a', price: 1.5, tags: [], inStock: true, cost: 3 }],
  [{ id: 1, name: 'a', price: Number.POSITIVE_INFINITY, tags: [], inStock: true }],
  [{ id: 1, name: 'a', price: Number.NaN, tags: [], inStock: true }],
  [{ id: 1.5, name: 'a', price: 1, tags: [], inStock: 'yes' }],
  { 0: { id: 1 } },
];

describe('compiledSchema', () => {
  afterEach(() => {
    z.config({ jitless: false });
  });

  it('returns zod compiled clone that answers exactly as the schema does, issues included', () => {
    const compiled = compiledSchema(User);
    expect(compiled).not.toBe(User);
    for (const input of USER_INPUTS) {
      expect(compiled.safeParse(input, { reportInput: true })).toEqual(User.safeParse(input, { reportInput: true }));
    }
    const list = compiledSchema(z.array(Item));
    for (const input of ITEM_LISTS) expect(list.safeParse(input)).toEqual(z.array(Item).safeParse(input));
  });

  it('gives every parse its own default values (no array shared between requests)', () => {
    const compiled = compiledSchema(User);
    const a = compiled.parse({ name: 'Ada', email: 'ada@example.com', age: 36 });
    const b = compiled.parse({ name: 'Bob', email: 'bob@example.com', age: 40 });
    expect(a.tags).toEqual([]);
    expect(a.tags).not.toBe(b.tags);
  });

  it('leaves the schema as it is where the app asked zod not to generate code (CSP)', () => {
    z.config({ jitless: true });
    expect(compiledSchema(User)).toBe(User);
  });

  it('leaves a schema zod cannot compile as it is, and it still parses', () => {
    const AsyncChecked = z.string().refine(async (value) => value.length > 1);
    expect(compiledSchema(AsyncChecked)).toBe(AsyncChecked);
  });
});

describe('binders run the compiled schemas', () => {
  it('a whole-body model binds as zod parses it', () => {
    const bind = compileBinder({ method: 'POST', pathParams: [], params: { user: User } });
    for (const input of USER_INPUTS) {
      const bound = bind(raw({ body: input }));
      const expected = User.safeParse(input);
      expect(bound.ok).toBe(expected.success);
      if (bound.ok && expected.success) expect(bound.value).toEqual({ user: expected.data });
    }
  });

  it('path and query parameters bind with their defaults and strict conversion', () => {
    const bind = compileBinder({
      method: 'GET',
      pathParams: ['id'],
      params: { id: z.int(), page: z.int().default(1), limit: z.int().min(1).default(20) },
    });
    expect(bind(raw({ path: { id: '7' }, query: 'page=2' }))).toEqual({ ok: true, value: { id: 7, page: 2, limit: 20 } });
    const refused = bind(raw({ path: { id: '7' }, query: 'limit=0' }));
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.issues).toEqual([expect.objectContaining({ in: 'query', path: ['limit'], code: 'too_small' })]);
  });
});
