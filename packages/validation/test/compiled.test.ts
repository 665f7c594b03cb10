import { afterEach, describe, expect, it, vi } from 'vitest';
import { compileBinder, compiledParser, z } from '../src/index.js';
import { Item, raw, User } from './helpers.js';

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

describe('compiledParser', () => {
  afterEach(() => {
    z.config({ jitless: false });
    vi.restoreAllMocks();
  });

  it('answers exactly as the schema does, issues included', () => {
    const compiled = compiledParser(User);
    for (const input of USER_INPUTS) {
      expect(compiled.safeParse(input, { reportInput: true })).toEqual(User.safeParse(input, { reportInput: true }));
    }
    const list = compiledParser(z.array(Item));
    for (const input of ITEM_LISTS) expect(list.safeParse(input)).toEqual(z.array(Item).safeParse(input));
  });

  it('generates its code on the first parse, once', () => {
    // zod generates parsers with `new Function`, read from the global at the time of the call.
    const generate = vi.spyOn(globalThis, 'Function');
    const Point = z.object({ x: z.number(), y: z.number() });
    const compiled = compiledParser(Point);
    expect(generate).not.toHaveBeenCalled();
    expect(compiled.safeParse({ x: 1, y: 2 })).toEqual({ success: true, data: { x: 1, y: 2 } });
    expect(generate).toHaveBeenCalled();
    generate.mockClear();
    expect(compiled.safeParse({ x: 3, y: 4 })).toEqual({ success: true, data: { x: 3, y: 4 } });
    expect(generate).not.toHaveBeenCalled();
  });

  it('gives every parse its own default values (no array shared between requests)', () => {
    const compiled = compiledParser(User);
    const a = compiled.safeParse({ name: 'Ada', email: 'ada@example.com', age: 36 });
    const b = compiled.safeParse({ name: 'Bob', email: 'bob@example.com', age: 40 });
    if (!a.success || !b.success) throw new Error('expected both to parse');
    expect(a.data.tags).toEqual([]);
    expect(a.data.tags).not.toBe(b.data.tags);
  });

  it('generates no code where the app asked zod not to (CSP), and parses as zod does', () => {
    const compiled = compiledParser(User);
    z.config({ jitless: true });
    const generate = vi.spyOn(globalThis, 'Function');
    for (const input of USER_INPUTS) expect(compiled.safeParse(input)).toEqual(User.safeParse(input));
    expect(generate).not.toHaveBeenCalled();
  });

  it('parses a schema zod cannot compile (a recursive one) as zod does', () => {
    const Tree: z.ZodType<{ name: string; children: unknown[] }> = z.object({
      name: z.string(),
      get children() {
        return z.array(Tree);
      },
    });
    const compiled = compiledParser(Tree);
    const inputs = [
      { name: 'a', children: [{ name: 'b', children: [] }] },
      { name: 'a', children: [{ name: 1, children: [] }] },
    ];
    for (const input of inputs) expect(compiled.safeParse(input)).toEqual(Tree.safeParse(input));
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
