/**
 * The JSON of answers written without JSON.stringify: the same text, or the same error, for every value.
 */
import { describe, expect, it } from 'vitest';
import { isPlainJsonObject, jsonText, ObjectWriter, WARM_ANSWERS } from '../src/http/json-text.js';
import { seededRandom } from '@fnapi/test-support';

function same(value: unknown): void {
  let expected: string | undefined;
  let expectedError: unknown;
  try {
    expected = JSON.stringify(value);
  } catch (error) {
    expectedError = error;
  }
  if (expectedError !== undefined) {
    expect(() => jsonText(value)).toThrow((expectedError as Error).constructor as ErrorConstructor);
    expect(() => jsonText(value)).toThrow((expectedError as Error).message.split('\n')[0]);
  } else {
    expect(jsonText(value)).toBe(expected);
    if (isPlainJsonObject(value)) {
      // a route's writer: its first answers through JSON.stringify, then the keys learned from the
      // next object and used for the ones after it
      const writer = new ObjectWriter();
      for (let i = 0; i < WARM_ANSWERS; i++) writer.write(value);
      expect(writer.write(value)).toBe(expected);
      expect(writer.write(value)).toBe(expected);
      expect(writer.write({ other: 1 })).toBe('{"other":1}');
      expect(writer.write(value)).toBe(expected);
    }
  }
}

describe('jsonText', () => {
  it('writes plain data as JSON.stringify does', () => {
    for (const value of [
      { id: 42, postId: 7, page: 2, limit: 10 },
      { message: 'hello' },
      [],
      {},
      // a hole reads as undefined: null in JSON
      // biome-ignore lint/suspicious/noSparseArray: the hole is the case
      [1, , 3],
      [undefined, () => 1, Symbol('s')],
      { a: undefined, b: () => 1, c: Symbol('s'), d: null, e: Number.NaN, f: -0, g: Number.POSITIVE_INFINITY, h: 1e21, i: 0.1 },
      { s: 'quote"back\\slash\nnl\u0001\u007f\u00e9\u2028' },
      { lone: '\ud800x', pair: '\ud83d\ude00' },
      { 'k"ey': 1, 2: 'two', 1: 'one', '': 'empty' },
      Object.assign(Object.create(null), { x: 1 }),
      { nested: { nested: { nested: [[[[{}]]]] } } },
      'text',
      5,
      null,
      true,
      undefined,
      () => 1,
    ])
      same(value);
  });

  it('hands everything else to JSON.stringify under its own key', () => {
    const keys: unknown[] = [];
    const withToJSON = {
      toJSON(key: unknown) {
        keys.push(key);
        return { key };
      },
    };
    const value = { d: new Date(0), m: new Map([[1, 2]]), arr: [new Date(1)], n: { deep: [{ x: [withToJSON] }] }, top: withToJSON };
    same(value);
    keys.length = 0;
    jsonText(value);
    // each toJSON called once, with the key JSON.stringify gives it
    expect(keys).toEqual(['0', 'top']);
    keys.length = 0;
    jsonText(withToJSON);
    expect(keys).toEqual(['']);
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
    }
    same({ point: new Point(1, 2), boxed: [new Number(3), new String('x'), new Boolean(false)] });
    same({ bytes: new Uint8Array([1, 2]), buffer: Buffer.from('ab'), set: new Set([1]) });
    same(Object.create({ inherited: 1 }, { own: { value: 2, enumerable: true }, hidden: { value: 3 } }));
    same({
      get computed() {
        return 5;
      },
    });
    same(JSON.parse('{"__proto__": {"a": 1}}'));
    const sub = Object.assign(Object.create(Object.create(null)), { x: 1 });
    same(sub);
  });

  it("writes a route's objects by their keys, and knows when the text is ASCII", () => {
    const writer = new ObjectWriter();
    // The first answers go through JSON.stringify; code is made once the route keeps answering.
    for (let i = 0; i < WARM_ANSWERS; i++) {
      expect(writer.write({ id: i, postId: 7, page: 2, limit: 10 })).toBe(`{"id":${i},"postId":7,"page":2,"limit":10}`);
      expect(writer.ascii).toBe(false);
    }
    expect(writer.write({ id: 42, postId: 7, page: 2, limit: 10 })).toBe('{"id":42,"postId":7,"page":2,"limit":10}');
    expect(writer.ascii).toBe(true);
    expect(writer.write({ id: 1.5, postId: Number.NaN, page: 'x"y', limit: null })).toBe(
      '{"id":1.5,"postId":null,"page":"x\\"y","limit":null}',
    );
    expect(writer.ascii).toBe(false);
    expect(writer.write({ id: 'é', postId: true, page: undefined, limit: [1, { a: 'b' }] })).toBe(
      '{"id":"é","postId":true,"limit":[1,{"a":"b"}]}',
    );
    expect(writer.ascii).toBe(false);
    expect(writer.write({ postId: 1, id: 2 })).toBe('{"postId":1,"id":2}');
    const quoted = { "it's": 1, 'back\\slash': 2, 'new\nline': 3, '': 4 };
    expect(new ObjectWriter().write(quoted)).toBe(JSON.stringify(quoted));
    expect(writer.write({ id: 1, postId: 2, page: 3, limit: 4, more: 5 })).toBe('{"id":1,"postId":2,"page":3,"limit":4,"more":5}');
    const inherited = Object.assign(Object.create(Object.create(null, { id: { value: 1, enumerable: true } })), { postId: 2 });
    expect(writer.write(inherited)).toBe(JSON.stringify(inherited));
    let reads = 0;
    const counted = {
      get id() {
        reads++;
        return 1;
      },
    };
    expect(writer.write(counted)).toBe('{"id":1}');
    expect(writer.write(counted)).toBe('{"id":1}');
    expect(reads).toBe(2);
  });

  it('throws what JSON.stringify throws', () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    same(cycle);
    same({ list: [cycle] });
    same({ big: 1n });
    same(1n);
  });

  it('writes deep nesting', () => {
    const deep: Record<string, unknown> = {};
    let current = deep;
    for (let i = 0; i < 100; i++) {
      const next: Record<string, unknown> = { i, list: [i, `${i}`] };
      current.next = next;
      current = next;
    }
    same(deep);
  });

  it('agrees on random values', () => {
    const next = seededRandom(7);
    const strings = ['', 'a', 'é', '"', '\\', '\n', '\u0000', '\ud800', '\udc00', '\ud83d\ude00', '😀', 'key', '__proto__', '0', '10'];
    const build = (depth: number): unknown => {
      const pick = Math.floor(next() * (depth > 3 ? 6 : 9));
      switch (pick) {
        case 0:
          return strings[Math.floor(next() * strings.length)]! + strings[Math.floor(next() * strings.length)]!;
        case 1:
          return [0, -0, 1.5, -7, 2 ** 53, Number.NaN, 1e-7, 123456789][Math.floor(next() * 8)];
        case 2:
          return next() < 0.5;
        case 3:
          return null;
        case 4:
          return undefined;
        case 5:
          return Math.floor(next() * 1000);
        case 6: {
          const object: Record<string, unknown> = {};
          const size = Math.floor(next() * 5);
          for (let i = 0; i < size; i++) object[strings[Math.floor(next() * strings.length)]!] = build(depth + 1);
          return object;
        }
        case 7:
          return Array.from({ length: Math.floor(next() * 4) }, () => build(depth + 1));
        default:
          return new Date(Math.floor(next() * 1e12));
      }
    };
    for (let i = 0; i < 2000; i++) same(build(0));
  });
});
