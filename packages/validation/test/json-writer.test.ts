import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileJsonWriter, z } from '../src/index.js';
import { Item, User } from './helpers.js';

// Models covering every node the writer writes itself, and some it leaves to zod in place.
const MODELS: Record<string, z.ZodType> = {
  item: Item,
  items: z.array(Item),
  user: User,
  scalars: z.object({
    s: z.string(),
    n: z.number().gt(0).lte(10),
    i: z.int32(),
    u: z.uint32(),
    f: z.float32(),
    b: z.boolean(),
    nul: z.null(),
    lit: z.literal(['a', 1, true]),
    maybe: z.literal(['x', undefined]),
    d: z.date().min(new Date('2000-01-01')),
    any: z.any(),
    unk: z.unknown(),
  }),
  strings: z.object({
    exact: z.string().length(2),
    short: z.string().max(3),
    long: z.string().min(3),
    uuid: z.uuid().optional(),
    refined: z.string().refine((s) => !s.includes('!')),
    trimmed: z.string().trim(),
    lower: z.string().toLowerCase().optional(),
    coerced: z.coerce.number().optional(),
  }),
  wrappers: z.object({
    opt: z.int().optional(),
    nul: z.int().nullable(),
    both: z.string().nullable().optional(),
    def: z.int().default(7),
    fnDef: z.array(z.int()).default(() => [1, 2]),
    optDef: z.int().default(3).optional(),
    pre: z.string().min(2).prefault('hello'),
    ro: z.object({ a: z.int() }).readonly(),
    nonopt: z.int().optional().nonoptional(),
  }),
  delegated: z.object({
    union: z.union([z.string(), z.int()]),
    record: z.record(z.string(), z.int()).optional(),
    transformed: z
      .string()
      .transform((s) => s.length)
      .optional(),
    loose: z.looseObject({ a: z.int() }).optional(),
    strict: z.strictObject({ a: z.int() }).optional(),
    checked: z
      .object({ a: z.int(), b: z.int() })
      .refine((o) => o.a < o.b)
      .optional(),
  }),
  arrays: z.array(z.int().optional()).min(1).max(5),
  sparse: z.array(z.any()),
  keys: z.object({ 'two words': z.string(), '2': z.int(), 1: z.int(), $id: z.string(), quote: z.string().optional() }),
  nested: z.object({ a: z.object({ b: z.array(z.object({ c: z.string().nullable() })) }) }),
  empty: z.object({}),
  root: z.string(),
  optionalRoot: z.object({ a: z.int() }).optional(),
};

const SAMPLES: unknown[] = [
  undefined,
  null,
  0,
  -0,
  1.5,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  2 ** 53,
  '',
  'x',
  'He said "hi"\n',
  '\ud800',
  'émoji 😀',
  true,
  [],
  [1, undefined, 3],
  // biome-ignore lint/suspicious/noSparseArray: a hole is read as undefined, as zod reads it
  [1, , 3],
  {},
  new Date('2020-01-02T03:04:05Z'),
  new Date(Number.NaN),
  { id: 1, name: 'a', price: 2.5, tags: ['x'], inStock: true, cost: 3 },
  { id: 1.5, name: 'a', price: 2.5, tags: ['x'], inStock: true },
  { id: 1, name: 'a', price: 2.5, tags: [1], inStock: true },
  { name: 'Ada', email: 'ada@example.com', age: 36 },
  { name: 'Ada', email: 'ada@example.com', age: 36, role: 'admin', tags: ['x'], nickname: null, extra: 1 },
  { name: 'A', email: 'ada@example.com', age: 36 },
  { name: 'Ada', email: 'not-an-email', age: 36 },
  { name: 'Ada', email: 'ada@example.com', age: 36, role: undefined, tags: undefined, nickname: undefined },
  { name: '😀😀', email: 'ada@example.com', age: 18 },
  { name: '😀', email: 'ada@example.com', age: 120 },
  { exact: '😀', short: '😀😀😀', long: 'abc', refined: 'ok', trimmed: ' padded ', lower: 'MiXed', coerced: '12' },
  { exact: 'ab', short: 'abcd', long: '😀😀', refined: 'no!', trimmed: 'x', uuid: 'nope' },
  { exact: 'ab', short: 'a', long: 'abcdef', refined: 'fine', trimmed: 'x', uuid: '3f2b8c5e-1d4a-4c6b-9e7f-0a1b2c3d4e5f' },
  {
    s: 's',
    n: 10,
    i: 2 ** 31 - 1,
    u: 0,
    f: 1.5,
    b: false,
    nul: null,
    lit: 1,
    maybe: undefined,
    d: new Date('2020-01-01'),
    any: { deep: [1, 'x', null] },
    unk: () => 1,
  },
  { s: 's', n: 0, i: 2 ** 31, u: -1, f: 1e39, b: 0, nul: undefined, lit: 'b', d: new Date('1999-01-01') },
  { opt: undefined, nul: null, def: undefined, pre: undefined, ro: { a: 1 }, nonopt: 5 },
  { nul: 1, ro: { a: 1, b: 2 }, nonopt: 5, optDef: undefined, both: 'x' },
  { nul: 1, ro: { a: 1 }, pre: 'x' },
  { nul: 1, ro: { a: 1 }, nonopt: undefined },
  { union: 'a', record: { a: 1 }, transformed: 'abc', loose: { a: 1, b: 2 }, strict: { a: 1 }, checked: { a: 1, b: 2 } },
  { union: 1, strict: { a: 1, b: 2 } },
  { union: 1, checked: { a: 2, b: 1 } },
  { union: true },
  { 'two words': 'x', 2: 2, 1: 1, $id: 'id', quote: 'q"' },
  { a: { b: [{ c: null }, { c: 'x' }] } },
  { a: { b: [{ c: 1 }] } },
  { a: {} },
  Object.create({ id: 1, name: 'inherited', price: 1, tags: [], inStock: false }),
];

/** What the answer must be: zod's output as JSON, or undefined where zod refuses the value. */
function expected(schema: z.ZodType, value: unknown): string | undefined {
  const parsed = schema.safeParse(value);
  return parsed.success ? JSON.stringify(parsed.data) : undefined;
}

describe('compileJsonWriter', () => {
  for (const [name, schema] of Object.entries(MODELS)) {
    it(`writes what JSON.stringify writes of zod's output, or defers to zod (${name})`, () => {
      const write = compileJsonWriter(schema);
      for (const value of [...SAMPLES, SAMPLES.filter((v) => typeof v === 'object' && v !== null)]) {
        const text = write?.(value);
        if (text !== undefined) expect([name, value, text]).toEqual([name, value, expected(schema, value)]);
      }
    });
  }

  it('writes valid values itself rather than handing them to zod', () => {
    const cases: [z.ZodType, unknown][] = [
      [MODELS.items!, [{ id: 1, name: 'a', price: 2.5, tags: ['x', 'y'], inStock: true, cost: 9 }]],
      [MODELS.user!, { name: 'Ada', email: 'ada@example.com', age: 36 }],
      [MODELS.user!, { name: '😀😀', email: 'ada@example.com', age: 18, nickname: null }],
      [MODELS.wrappers!, { nul: null, ro: { a: 1 }, nonopt: 1 }],
      [MODELS.keys!, { 'two words': 'x', 2: 2, 1: 1, $id: 'id' }],
      [MODELS.nested!, { a: { b: [{ c: null }, { c: 'x' }] } }],
      [MODELS.scalars!, SAMPLES.find((v) => typeof v === 'object' && v !== null && 'unk' in v)],
    ];
    for (const [schema, value] of cases) {
      const text = compileJsonWriter(schema)!(value);
      expect(text).toBeDefined();
      expect(text).toBe(expected(schema, value));
    }
  });

  it('leaves to zod what the writer would not model as a whole', () => {
    expect(compileJsonWriter(z.union([z.string(), z.int()]))).toBeUndefined();
    expect(compileJsonWriter(z.string().transform((s) => s.length))).toBeUndefined();
    expect(compileJsonWriter({ '~standard': { version: 1, vendor: 'x', validate: () => ({ value: 1 }) } })).toBeUndefined();
  });

  it('is not generated where zod is set to run without generated code', () => {
    z.config({ jitless: true });
    try {
      expect(compileJsonWriter(Item)).toBeUndefined();
    } finally {
      z.config({ jitless: false });
    }
  });

  it('agrees with zod on arbitrary values (property)', () => {
    const writers = Object.entries(MODELS).map(([name, schema]) => [name, schema, compileJsonWriter(schema)] as const);
    fc.assert(
      fc.property(fc.anything({ withDate: true, withNullPrototype: true, withSparseArray: true }), (value) => {
        for (const [name, schema, write] of writers) {
          const text = write?.(value);
          if (text !== undefined) expect([name, text]).toEqual([name, expected(schema, value)]);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('agrees with zod on values shaped like the model (property)', () => {
    const item = fc.record(
      {
        id: fc.oneof(fc.integer(), fc.double(), fc.constant(2 ** 53)),
        name: fc.string({ unit: 'binary' }),
        price: fc.oneof(fc.double(), fc.integer()),
        tags: fc.array(fc.oneof(fc.string(), fc.integer()), { maxLength: 3 }),
        inStock: fc.oneof(fc.boolean(), fc.constant(null)),
        cost: fc.double(),
      },
      { requiredKeys: ['id', 'name', 'price', 'tags'] },
    );
    const write = compileJsonWriter(z.array(Item))!;
    fc.assert(
      fc.property(fc.array(item, { maxLength: 4 }), (items) => {
        const text = write(items);
        const want = expected(z.array(Item), items);
        if (text !== undefined) expect(text).toBe(want);
        // Everything zod accepts here is a shape the writer models, so it writes it itself.
        else expect(want).toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });
});
