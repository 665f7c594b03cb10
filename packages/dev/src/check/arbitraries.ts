import fc from 'fast-check';
import { type JsonSchema, type SchemaBook, typesOf } from './schemas.js';

/** Where a value goes: its characters and lengths differ (a header is printable ASCII, a URL stays short). */
export type Place = 'body' | 'path' | 'query' | 'header' | 'cookie';

const MAX_DEPTH = 4;
const HEADER_CHARS = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i));
const COOKIE_CHARS = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._~-'];
/** The longest string generated for a value in a URL, whatever its schema allows. */
const LONGEST_IN_URL = 4096;
/** The longest string generated for a body field. */
const LONGEST_IN_BODY = 65_536;

/**
 * Chosen values (boundaries) drawn as they are, but shrunk as `base` shrinks any of its values: an
 * edge that shows a failure is shrunk to the smallest value that still does (-1000 → -1, a long
 * string with a NUL → "\u0000"), where `constantFrom` would only try the edges before it.
 */
class EdgeArbitrary<T> extends fc.Arbitrary<T> {
  constructor(
    private readonly edges: readonly T[],
    private readonly base: fc.Arbitrary<T>,
    /**
     * Keeps only some of `base`'s candidates, at most `most` a step (a string: the first shorter ones,
     * so 4,096 characters are not each shrunk and removed in turn, thousands of requests).
     */
    private readonly keep: (candidate: T, value: T) => boolean = () => true,
    private readonly most = Number.POSITIVE_INFINITY,
  ) {
    super();
  }
  generate(mrng: fc.Random): fc.Value<T> {
    return new fc.Value(this.edges[mrng.nextInt(0, this.edges.length - 1)]!, undefined);
  }
  canShrinkWithoutContext(value: unknown): value is T {
    return this.base.canShrinkWithoutContext(value);
  }
  shrink(value: T, _context: unknown): fc.Stream<fc.Value<T>> {
    if (!this.base.canShrinkWithoutContext(value)) return fc.Stream.nil();
    const candidates = this.base.shrink(value, undefined).filter((candidate) => this.keep(candidate.value, value));
    return Number.isFinite(this.most) ? candidates.take(this.most) : candidates;
  }
}

/** `base` most of the time, one of `edges` with the given weight; every value shrinks through `base`. */
function withEdges<T>(base: fc.Arbitrary<T>, baseWeight: number, edges: readonly T[], edgeWeight: number): fc.Arbitrary<T> {
  if (edges.length === 0) return base;
  return fc.oneof({ arbitrary: base, weight: baseWeight }, { arbitrary: new EdgeArbitrary(edges, base), weight: edgeWeight });
}

/**
 * Values a JSON Schema admits, as a fast-check arbitrary: ordinary values most of the time, boundary
 * values (empty and long strings, unicode, 0, negative and huge numbers, empty arrays) often. Generation
 * is an approximation of the schema; callers keep only values the schema's validator accepts.
 */
export function arbitraryFor(book: SchemaBook, schema: unknown, place: Place, depth = 0): fc.Arbitrary<unknown> {
  const s = book.resolve(schema);
  if (s.const !== undefined) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  const branches = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(branches) && branches.length > 0) {
    const usable = depth >= MAX_DEPTH ? branches.filter((b) => isLeaf(book, b)) : branches;
    return fc.oneof(...(usable.length ? usable : branches).map((b) => arbitraryFor(book, b, place, depth + 1)));
  }
  if (Array.isArray(s.allOf) && s.allOf.length > 0) return arbitraryFor(book, mergeAll(book, s.allOf as unknown[]), place, depth);
  const types = typesOf(s);
  if (types && types.length > 1) return fc.oneof(...types.map((type) => arbitraryFor(book, { ...s, type }, place, depth)));
  switch (types?.[0]) {
    case 'string':
      return stringArbitrary(s, place);
    case 'integer':
      return integerArbitrary(s);
    case 'number':
      return numberArbitrary(s);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return arrayArbitrary(book, s, place, depth);
    case 'object':
      return objectArbitrary(book, s, place, depth);
    default:
      if (s.properties) return objectArbitrary(book, s, place, depth);
      // Any value: a string where only strings travel, any JSON in a body.
      return place === 'body' ? fc.jsonValue({ maxDepth: 2 }) : stringArbitrary({}, place);
  }
}

function isLeaf(book: SchemaBook, schema: unknown): boolean {
  const types = typesOf(book.resolve(schema));
  return !!types && types.every((t) => t !== 'array' && t !== 'object');
}

function mergeAll(book: SchemaBook, parts: unknown[]): JsonSchema {
  const merged: JsonSchema = {};
  const properties: Record<string, unknown> = {};
  const required = new Set<string>();
  for (const part of parts.map((p) => book.resolve(p))) {
    Object.assign(merged, part);
    Object.assign(properties, part.properties ?? {});
    for (const name of (part.required as string[] | undefined) ?? []) required.add(name);
  }
  delete merged.allOf;
  if (Object.keys(properties).length) Object.assign(merged, { type: 'object', properties, required: [...required] });
  return merged;
}

function stringArbitrary(s: JsonSchema, place: Place): fc.Arbitrary<string> {
  const format = typeof s.format === 'string' ? formatArbitrary(s.format) : undefined;
  if (format) return format;
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  // A path segment cannot be empty: `/users/` is another route.
  const floor = place === 'path' ? Math.max(min, 1) : min;
  const ceiling = typeof s.maxLength === 'number' ? s.maxLength : place === 'body' ? 2000 : 200;
  if (typeof s.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(s.pattern)).filter((v) => v.length >= floor && v.length <= ceiling);
    } catch {
      // A pattern JavaScript cannot read: fall through to plain strings, filtered by the validator.
    }
  }
  const unit =
    place === 'header' ? fc.constantFrom(...HEADER_CHARS) : place === 'cookie' ? fc.constantFrom(...COOKIE_CHARS) : 'grapheme-ascii';
  const short = Math.max(floor, Math.min(ceiling, 20));
  const options: fc.WeightedArbitrary<string>[] = [{ arbitrary: fc.string({ unit, minLength: floor, maxLength: short }), weight: 5 }];
  const plain = place !== 'header' && place !== 'cookie';
  // Any code point (control characters, astral planes) where the value is percent-encoded or JSON.
  if (plain) options.push({ arbitrary: fc.string({ unit: 'binary', minLength: floor, maxLength: short }), weight: 2 });
  if (floor === 0) options.push({ arbitrary: fc.constant(''), weight: 1 });
  const long = Math.min(ceiling, place === 'body' ? 2000 : 200);
  if (long > 20) options.push({ arbitrary: fc.string({ unit, minLength: Math.max(floor, long - 10), maxLength: long }), weight: 1 });
  if (plain) {
    options.push({
      arbitrary: fc.string({ unit: 'grapheme', minLength: floor, maxLength: Math.max(floor, Math.min(ceiling, 8)) }),
      weight: 1,
    });
  }
  // Boundaries, often enough that a default run meets each: NUL and other control characters, lone
  // surrogates (in JSON, the one place they can travel) and the longest string the schema allows.
  const longest = Math.min(typeof s.maxLength === 'number' ? s.maxLength : ceiling, place === 'body' ? LONGEST_IN_BODY : LONGEST_IN_URL);
  const edges = (
    plain
      ? [
          '\u0000',
          'a\u0000b',
          '\u0001\u0007\b\t\n\u000b\f\r\u001b\u007f',
          '\u0085\u2028\u2029\ufeff',
          ...(place === 'body' ? ['\ud800', 'a\udfffb'] : []),
          'x'.repeat(longest),
        ]
      : ['x'.repeat(longest)]
  )
    .map((edge) => (edge.length < floor ? edge + 'a'.repeat(floor - edge.length) : edge))
    .filter((edge) => edge.length <= Math.max(ceiling, longest));
  const shrinker = fc.string({ unit: plain ? 'binary' : unit, minLength: floor, maxLength: Math.max(longest, short) });
  const shorter = (candidate: string, value: string) => candidate.length < value.length;
  options.push({ arbitrary: new EdgeArbitrary([...new Set(edges)], shrinker, shorter, 48), weight: plain ? 3 : 1 });
  return fc.oneof(...options);
}

/** Ordinary values of common formats (what a form would send), not every corner of their grammars. */
function formatArbitrary(format: string): fc.Arbitrary<string> | undefined {
  switch (format) {
    case 'email':
      return fc.stringMatching(/^[a-z0-9]{1,12}(\.[a-z0-9]{1,8})?@[a-z]{1,10}\.[a-z]{2,5}$/);
    case 'uuid':
      return fc.uuid({ version: 4 });
    case 'date-time':
      return fc.date({ min: new Date(0), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }).map((d) => d.toISOString());
    case 'date':
      return fc
        .date({ min: new Date(0), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true })
        .map((d) => d.toISOString().slice(0, 10));
    case 'uri':
    case 'url':
      return fc.webUrl();
    case 'ipv4':
      return fc.ipV4();
    default:
      return undefined;
  }
}

function bounds(s: JsonSchema, integer: boolean): { min: number; max: number } {
  const step = integer ? 1 : Number.EPSILON;
  const limit = integer ? Number.MAX_SAFE_INTEGER : Number.MAX_VALUE;
  let min = -limit;
  let max = limit;
  if (typeof s.minimum === 'number') min = Math.max(min, s.minimum);
  if (typeof s.exclusiveMinimum === 'number')
    min = Math.max(
      min,
      integer ? Math.floor(s.exclusiveMinimum) + 1 : s.exclusiveMinimum + Math.max(step, Math.abs(s.exclusiveMinimum) * 1e-15),
    );
  if (typeof s.maximum === 'number') max = Math.min(max, s.maximum);
  if (typeof s.exclusiveMaximum === 'number')
    max = Math.min(
      max,
      integer ? Math.ceil(s.exclusiveMaximum) - 1 : s.exclusiveMaximum - Math.max(step, Math.abs(s.exclusiveMaximum) * 1e-15),
    );
  if (integer) {
    min = Math.ceil(min);
    max = Math.floor(max);
  }
  return { min, max };
}

function integerArbitrary(s: JsonSchema): fc.Arbitrary<number> {
  const { min, max } = bounds(s, true);
  if (min > max) return fc.constant(min);
  const edges = [0, 1, -1, min, max, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER].filter((n) => n >= min && n <= max);
  return withEdges(fc.integer({ min, max }), 4, [...new Set(edges)], 1);
}

function numberArbitrary(s: JsonSchema): fc.Arbitrary<number> {
  const { min, max } = bounds(s, false);
  if (min > max) return fc.constant(min);
  const edges = [0, 1, -1, 0.5, -2.5, 1e15, -1e15, min, max].filter((n) => n >= min && n <= max && Number.isFinite(n));
  const plain = fc.double({ min, max, noNaN: true, noDefaultInfinity: true }).map(
    (n) => (Object.is(n, -0) ? 0 : n),
    (n) => n as number,
  );
  return withEdges(plain, 4, [...new Set(edges)], 1);
}

function arrayArbitrary(book: SchemaBook, s: JsonSchema, place: Place, depth: number): fc.Arbitrary<unknown[]> {
  const minLength = typeof s.minItems === 'number' ? s.minItems : 0;
  const cap = depth >= MAX_DEPTH ? minLength : Math.max(minLength, 5);
  const maxLength = typeof s.maxItems === 'number' ? Math.min(s.maxItems, cap) : cap;
  if (Array.isArray(s.prefixItems)) {
    return fc.tuple(...(s.prefixItems as unknown[]).map((item) => arbitraryFor(book, item, place, depth + 1)));
  }
  const items = arbitraryFor(book, s.items ?? {}, place, depth + 1);
  if (s.uniqueItems) return fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) });
  return fc.array(items, { minLength, maxLength });
}

function objectArbitrary(book: SchemaBook, s: JsonSchema, place: Place, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = (s.properties ?? {}) as Record<string, unknown>;
  const required = new Set((s.required as string[] | undefined) ?? []);
  const names = Object.keys(properties).filter((name) => depth < MAX_DEPTH || required.has(name));
  if (names.length === 0 && s.additionalProperties && typeof s.additionalProperties === 'object' && depth < MAX_DEPTH) {
    const keys = s.propertyNames
      ? (arbitraryFor(book, s.propertyNames, place, depth + 1) as fc.Arbitrary<string>)
      : fc.string({ maxLength: 10 });
    return fc.dictionary(keys, arbitraryFor(book, s.additionalProperties, place, depth + 1), { maxKeys: 3 });
  }
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const name of names) model[name] = arbitraryFor(book, properties[name], place, depth + 1);
  return fc.record(model, { requiredKeys: names.filter((name) => required.has(name)) });
}

/** Candidate JSON values of every type, for "a wrong type in this place". */
export const WRONG_JSON: unknown[] = [12345, 'not-the-right-type', true, null, [], {}, 1.5, -1];

/** Candidate strings for a path, query, header or cookie value that its schema should refuse. */
export function wrongStrings(s: JsonSchema): string[] {
  const out = ['abc', '1.5', '', 'true', '9007199254740993', '-1', 'Infinity', '0x10', 'not-a-member'];
  if (typeof s.minLength === 'number' && s.minLength > 0) out.push('x'.repeat(s.minLength - 1));
  if (typeof s.maxLength === 'number') out.push('x'.repeat(s.maxLength + 1));
  if (typeof s.minimum === 'number') out.push(String(Math.floor(s.minimum) - 1));
  if (typeof s.maximum === 'number') out.push(String(Math.ceil(s.maximum) + 1));
  return out;
}
