import { generateFunction } from '@fnapi/validation';

/**
 * `JSON.stringify(value)` (no replacer, no indent) in JavaScript, for the values an endpoint answers
 * with: plain objects (prototype `Object.prototype` or null), arrays, strings, finite numbers,
 * booleans and null. V8's serializer pays over a thousand instructions per call to enter it and
 * several hundred per property (each key is escaped anew); here the common answer, a plain object of
 * a few fields, is written by code made for its keys (`ObjectWriter`). Anything else — a `toJSON`, a
 * Date, a Map, a class instance, a BigInt, a long array, nesting past `MAX_DEPTH` (where a cycle
 * ends up) — is handed to `JSON.stringify` under the key it has, so that its `toJSON` sees the same
 * key and the text (or the error) is exactly what `JSON.stringify` makes of the whole.
 */
export function jsonText(value: unknown): string | undefined {
  return write(value, '', 0);
}

/** Past this depth a value goes to `JSON.stringify`, which reports a cycle as it always does. */
const MAX_DEPTH = 32;
/** Longer arrays go to `JSON.stringify`, which builds one flat text where this would join thousands of pieces. */
const LONG_ARRAY = 16;
const OBJECT_PROTOTYPE = Object.prototype;
const ARRAY_PROTOTYPE = Array.prototype;
const hasOwn = Object.prototype.hasOwnProperty;

/** Whether an object is written here, field by field: plain, and without a `toJSON`. */
function isPlainObject(value: object): boolean {
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === OBJECT_PROTOTYPE || prototype === null;
}

/** The JSON of a value under `key` of its holder; undefined where JSON leaves it out (undefined, functions, symbols). */
function write(value: unknown, key: string | number, depth: number): string | undefined {
  switch (typeof value) {
    case 'string':
      return quote(value);
    case 'number':
      return Number.isFinite(value) ? `${value}` : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (depth >= MAX_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === 'function') return delegate(value, key);
      const prototype = Object.getPrototypeOf(value);
      if (prototype === OBJECT_PROTOTYPE || prototype === null) return writeObject(value as Record<string, unknown>, depth + 1);
      if (prototype === ARRAY_PROTOTYPE && Array.isArray(value) && value.length <= LONG_ARRAY) return writeArray(value, depth + 1);
      return delegate(value, key);
    }
    case 'bigint':
      return delegate(value, key);
    default:
      return undefined;
  }
}

function writeObject(object: Record<string, unknown>, depth: number): string {
  let out = '{';
  for (const key in object) {
    // for-in also lists inherited enumerable keys; JSON takes own ones only
    if (!hasOwn.call(object, key)) continue;
    const text = write(object[key], key, depth);
    if (text === undefined) continue;
    out += out.length === 1 ? `${quote(key)}:${text}` : `,${quote(key)}:${text}`;
  }
  return `${out}}`;
}

function writeArray(array: readonly unknown[], depth: number): string {
  const length = array.length;
  if (length === 0) return '[]';
  let out = '[';
  for (let i = 0; i < length; i++) {
    const text = write(array[i], i, depth);
    const item = text === undefined ? 'null' : text;
    out += i === 0 ? item : `,${item}`;
  }
  return `${out}]`;
}

/** A string as JSON: as it is between quotes unless a character needs escaping (then V8 escapes it). */
function quote(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // control characters, '"', '\', and surrogates (a lone one is escaped)
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(text);
  }
  return `"${text}"`;
}

/** Printable ASCII with nothing to escape: such a string is its JSON between quotes, one byte a character. */
function isPlainAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return false;
  }
  return true;
}

/**
 * A value JSON.stringify writes itself, as the member `key` of a holder: its `toJSON` is called with
 * that key, as it would be in the whole document. Undefined where the member is left out.
 */
function delegate(value: unknown, key: string | number): string | undefined {
  const name = `${key}`;
  const text = JSON.stringify({ [name]: value });
  if (text.length === 2) return undefined;
  // `{"name":…}`: the member's quoted name, then its value
  return text.slice(JSON.stringify(name).length + 2, -1);
}

/** The members of an object written with its keys' quoted names, the ones left out (undefined) skipped. */
function joinMembers(names: readonly string[], texts: readonly (string | undefined)[]): string {
  let out = '{';
  for (let i = 0; i < names.length; i++) {
    const text = texts[i];
    if (text === undefined) continue;
    out += out.length === 1 ? `${names[i]}:${text}` : `,${names[i]}:${text}`;
  }
  return `${out}}`;
}

/** Returned by a shape's code for an object of other keys. */
const OTHER_KEYS: unique symbol = Symbol('fnapi.otherKeys');
type ShapeCode = (object: object, writer: ObjectWriter) => string | typeof OTHER_KEYS;

/** Keys written by generated code: printable ASCII with nothing to escape, and not too many. */
const SHAPE_KEY = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
const MAX_SHAPE_KEYS = 32;
/** Answers a route gives through JSON.stringify before code is made for its objects' keys. */
export const WARM_ANSWERS = 8;
/** A route whose objects keep changing keys stops learning them after this many. */
const MAX_SHAPES = 4;

/**
 * The JSON of one route's plain-object answers. The route's objects have one set of keys nearly always
 * (an object literal in the handler): code is made for it once the route has answered a few times,
 * which checks that an object has those keys, in that order, then writes each value with its key's
 * text made ahead, and every number and plain-ASCII string without a call. An object of other keys is
 * written by JSON.stringify. `ascii` tells whether the last text is ASCII, so its length is its size in bytes.
 */
export class ObjectWriter {
  /** The last text written is ASCII (known only for texts written by a shape's code). */
  ascii = false;
  private code: ShapeCode | undefined = undefined;
  private shapes = 0;
  private answers = 0;

  /** `jsonText(object)` for a plain object (`isPlainJsonObject`). */
  write(object: object): string | undefined {
    this.ascii = false;
    const code = this.code;
    if (code !== undefined) {
      const text = code(object, this);
      if (text !== OTHER_KEYS) return text;
    }
    // Code is made for a route that keeps answering, not on its first answers: compiling it costs
    // more than a few answers save, and a cold start (a serverless function's first event) pays it.
    if (this.answers < WARM_ANSWERS) {
      this.answers++;
      return JSON.stringify(object);
    }
    if (this.shapes < MAX_SHAPES) {
      this.shapes++;
      this.code = shapeCode(object);
      if (this.code !== undefined) {
        const text = this.code(object, this);
        if (text !== OTHER_KEYS) return text;
      }
    }
    // No code for these keys (too many, keys to escape, no generated code on this runtime, or a
    // route whose keys keep changing): V8's serializer is the faster way to the same text.
    return JSON.stringify(object);
  }
}

/** Whether a value is an object `ObjectWriter.write` takes. */
export function isPlainJsonObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && isPlainObject(value);
}

/** The code that writes objects with the keys `object` has; undefined where its keys are not for code. */
function shapeCode(object: object): ShapeCode | undefined {
  const keys: string[] = [];
  for (const key in object) {
    if (!hasOwn.call(object, key)) return undefined;
    keys.push(key);
  }
  if (keys.length === 0 || keys.length > MAX_SHAPE_KEYS || !keys.every((key) => SHAPE_KEY.test(key))) return undefined;
  const names = keys.map((key) => JSON.stringify(key));
  const texts = keys.map((_, i) => `t${i}`);
  // The keys first, before any value is read: an object of other keys is left to `jsonText` having
  // run none of its getters. Each value is then read once, as JSON.stringify reads it.
  const values = keys.map(
    (_, i) => `const v${i} = object[${names[i]}];
let t${i};
if (typeof v${i} === 'number') t${i} = Number.isFinite(v${i}) ? '' + v${i} : 'null';
else if (typeof v${i} === 'string' && isPlainAscii(v${i})) t${i} = '"' + v${i} + '"';
else if (typeof v${i} === 'boolean') t${i} = v${i} ? 'true' : 'false';
else if (v${i} === null) t${i} = 'null';
else {
  t${i} = write(v${i}, ${names[i]}, 1);
  ascii = false;
}`,
  );
  const whole = `${names.map((name, i) => `${JSON.stringify(`${i === 0 ? '{' : ','}${name}:`)} + t${i}`).join(' + ')} + '}'`;
  return generateFunction<ShapeCode>(
    ['keys', 'hasOwn', 'OTHER_KEYS', 'isPlainAscii', 'write', 'joinMembers', 'names'],
    [keys, hasOwn, OTHER_KEYS, isPlainAscii, write, joinMembers, names],
    `return (object, writer) => {
let n = 0;
for (const key in object) {
  if (n === ${keys.length} || key !== keys[n] || !hasOwn.call(object, key)) return OTHER_KEYS;
  n++;
}
if (n !== ${keys.length}) return OTHER_KEYS;
let ascii = true;
${values.join('\n')}
if (${texts.map((t) => `${t} === undefined`).join(' || ')}) return joinMembers(names, [${texts.join(', ')}]);
writer.ascii = ascii;
return ${whole};
};`,
  );
}
