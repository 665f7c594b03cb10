import { z } from 'zod';
import { generateFunction } from './generate.js';

/**
 * A response model's JSON writer: validates a value against the model and writes the model's output
 * as JSON text in one pass, without building the parsed copy that `JSON.stringify` would then walk.
 * Returns `undefined` when it cannot vouch for the value (it does not fit, or it takes a path the
 * writer does not model); the caller then parses with zod, which gives the issues or the output. So
 * the writer only ever answers for values zod accepts, with the same text as `JSON.stringify` of
 * zod's output, and anything else costs a parse, never a different answer.
 */
export type JsonWriter = (value: unknown) => string | undefined;

type Node = z.core.$ZodType;
type Check = z.core.$ZodCheck;
interface Def {
  type: string;
  coerce?: boolean;
  checks?: Check[];
  innerType?: Node;
  element?: Node;
  shape?: Record<string, Node>;
  catchall?: Node;
  defaultValue?: unknown;
}

interface CheckDef {
  check: string;
  when?: unknown;
  format?: string;
  value?: unknown;
  inclusive?: boolean;
  minimum?: number;
  maximum?: number;
}

/** What one node's code left behind: an expression for its text, and whether that may be `undefined` (omitted). */
interface Written {
  text: string;
  mayOmit: boolean;
  /** For a string: its JSON text without the quotes, so that the quotes join the literals around it. */
  inner?: string;
}

// Characters JSON.stringify escapes in a string; a string without them is written between quotes as it is.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what JSON escapes
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;
// zod's own `when` of its length checks (run on values with a length): a check that has it is one we know.
const LENGTH_WHEN = (z.string().min(1)._zod.def.checks![0]!._zod.def as CheckDef).when;
const NUMBER_RANGES = z.core.util.NUMBER_FORMAT_RANGES as Record<string, [number, number]>;

/** Runs one zod check as zod's parser would; false when it fails, is asynchronous, or rewrote the value. */
function passes(check: Check, value: unknown): boolean {
  const payload: z.core.ParsePayload = { value, issues: [] };
  const when = check._zod.def.when;
  if (when !== undefined && !when(payload)) return true;
  const result: unknown = check._zod.check(payload as z.core.ParsePayload<never>);
  return !(result instanceof Promise) && payload.issues.length === 0 && payload.value === value;
}

class Generator {
  readonly refs: unknown[] = [];
  readonly lines: string[] = [];
  private count = 0;

  ref(value: unknown): string {
    this.refs.push(value);
    return `refs[${this.refs.length - 1}]`;
  }

  name(prefix: string): string {
    return `${prefix}${this.count++}`;
  }

  emit(line: string): void {
    this.lines.push(line);
  }
}

function defOf(node: Node): Def {
  return node._zod.def as unknown as Def;
}

/** The checks zod runs on a node: the node itself first when it is a check (formats: `z.int()`, `z.email()`). */
function checksOf(node: Node): Check[] {
  const own = defOf(node).checks ?? [];
  return node._zod.traits.has('$ZodCheck') ? [node as unknown as Check, ...own] : own;
}

/** Checks that rewrite the value (`trim()`, `toLowerCase()`, `overwrite()`) leave the node to zod. */
function rewrites(checks: Check[]): boolean {
  return checks.some((check) => (check._zod.def as CheckDef).check === 'overwrite');
}

function literal(value: number): string {
  return Object.is(value, -0) ? '-0' : String(value);
}

/** A cheap test that, when true, means the check passes; when false, the check itself decides. */
function quickTest(type: string, check: Check, v: string): string | undefined {
  const def = check._zod.def as CheckDef;
  if (type === 'number' && def.when === undefined) {
    if (def.check === 'number_format' && def.format !== undefined && NUMBER_RANGES[def.format] !== undefined) {
      const [min, max] = NUMBER_RANGES[def.format]!;
      const integer = def.format.includes('int') ? `Number.isSafeInteger(${v}) && ` : '';
      return `${integer}${v} >= ${literal(min)} && ${v} <= ${literal(max)}`;
    }
    if ((def.check === 'greater_than' || def.check === 'less_than') && typeof def.value === 'number' && Number.isFinite(def.value)) {
      const op = def.check === 'greater_than' ? (def.inclusive ? '>=' : '>') : def.inclusive ? '<=' : '<';
      return `${v} ${op} ${literal(def.value)}`;
    }
  }
  if ((type === 'string' || type === 'array') && def.when === LENGTH_WHEN) {
    // A string's length is counted in code points, at most two UTF-16 units each: the unit count settles most cases.
    if (def.check === 'max_length' && def.maximum !== undefined) return `${v}.length <= ${def.maximum}`;
    if (def.check === 'min_length' && def.minimum !== undefined) {
      return type === 'array' ? `${v}.length >= ${def.minimum}` : `${v}.length >= ${2 * def.minimum}`;
    }
  }
  return undefined;
}

function emitChecks(g: Generator, type: string, checks: Check[], v: string, fail: string): void {
  for (const check of checks) {
    const quick = quickTest(type, check, v);
    const exact = `passes(${g.ref(check)}, ${v})`;
    g.emit(`if (!(${quick === undefined ? exact : `${quick} || ${exact}`})) ${fail}`);
  }
}

/** A node the writer does not model: zod parses it, and its output is written by `JSON.stringify`. */
function byZod(g: Generator, node: Node, v: string, fail: string): Written {
  const parsed = g.name('p');
  g.emit(`const ${parsed} = ${g.ref(node)}.safeParse(${v});`);
  g.emit(`if (!${parsed}.success) ${fail}`);
  const out = g.name('r');
  g.emit(`const ${out} = JSON.stringify(${parsed}.data);`);
  return { text: out, mayOmit: true };
}

/** A string's JSON text, kept as what goes between the quotes: most strings need no escaping. */
function quoted(g: Generator, v: string): Written {
  const inner = g.name('s');
  g.emit(`const ${inner} = ${v}.length < 64 && !ESCAPED.test(${v}) ? ${v} : JSON.stringify(${v}).slice(1, -1);`);
  return { text: `('"' + ${inner} + '"')`, mayOmit: false, inner };
}

/** Emits the code that checks `v` against `node` and leaves its JSON text in a variable. */
function write(g: Generator, node: Node, v: string, fail: string): Written {
  const def = defOf(node);
  const checks = checksOf(node);
  const kept = (text: string, mayOmit = false): Written => {
    const out = g.name('r');
    g.emit(`const ${out} = ${text};`);
    return { text: out, mayOmit };
  };
  switch (def.type) {
    case 'string':
      if (def.coerce || rewrites(checks)) return byZod(g, node, v, fail);
      g.emit(`if (typeof ${v} !== 'string') ${fail}`);
      emitChecks(g, 'string', checks, v, fail);
      return quoted(g, v);
    case 'number':
      if (def.coerce || rewrites(checks)) return byZod(g, node, v, fail);
      g.emit(`if (typeof ${v} !== 'number' || !Number.isFinite(${v})) ${fail}`);
      emitChecks(g, 'number', checks, v, fail);
      return kept(`'' + ${v}`);
    case 'boolean':
      if (def.coerce || rewrites(checks)) return byZod(g, node, v, fail);
      g.emit(`if (typeof ${v} !== 'boolean') ${fail}`);
      emitChecks(g, 'boolean', checks, v, fail);
      return kept(`(${v} ? 'true' : 'false')`);
    case 'null':
      if (checks.length > 0) return byZod(g, node, v, fail);
      g.emit(`if (${v} !== null) ${fail}`);
      return { text: `'null'`, mayOmit: false };
    case 'enum':
    case 'literal': {
      const values = node._zod.values;
      if (values === undefined || checks.length > 0) return byZod(g, node, v, fail);
      g.emit(`if (!${g.ref(values)}.has(${v})) ${fail}`);
      return kept(`JSON.stringify(${v})`, values.has(undefined));
    }
    case 'date':
      if (def.coerce || rewrites(checks)) return byZod(g, node, v, fail);
      g.emit(`if (!(${v} instanceof Date) || Number.isNaN(${v}.getTime())) ${fail}`);
      emitChecks(g, 'date', checks, v, fail);
      return kept(`JSON.stringify(${v})`);
    case 'any':
    case 'unknown':
      if (rewrites(checks)) return byZod(g, node, v, fail);
      emitChecks(g, def.type, checks, v, fail);
      return kept(`JSON.stringify(${v})`, true);
    case 'array':
      if (rewrites(checks) || def.element === undefined) return byZod(g, node, v, fail);
      return writeArray(g, def.element, checks, v, fail);
    case 'object':
      if (def.catchall !== undefined || checks.length > 0 || def.shape === undefined) return byZod(g, node, v, fail);
      if (Object.getOwnPropertySymbols(def.shape).length > 0 || Object.hasOwn(def.shape, '__proto__')) return byZod(g, node, v, fail);
      return writeObject(g, def.shape, v, fail);
    case 'optional': {
      const inner = def.innerType!;
      if (checks.length > 0) return byZod(g, node, v, fail);
      // `.optional()` over a default lets the default fill in: the inner node sees `undefined` too.
      if (inner._zod.optin === 'defaulted') return write(g, inner, v, fail);
      const out = g.name('r');
      g.emit(`let ${out};`);
      g.emit(`if (${v} !== undefined) {`);
      const written = write(g, inner, v, fail);
      g.emit(`${out} = ${written.text};`);
      g.emit('}');
      return { text: out, mayOmit: true };
    }
    case 'nullable': {
      if (checks.length > 0) return byZod(g, node, v, fail);
      const out = g.name('r');
      g.emit(`let ${out} = 'null';`);
      g.emit(`if (${v} !== null) {`);
      const written = write(g, def.innerType!, v, fail);
      g.emit(`${out} = ${written.text};`);
      g.emit('}');
      return { text: out, mayOmit: written.mayOmit };
    }
    case 'default': {
      if (checks.length > 0) return byZod(g, node, v, fail);
      // zod answers `undefined` with the default as it is, without parsing it (nor an inner `undefined`).
      const fallback = `JSON.stringify(${g.ref(def)}.defaultValue)`;
      const out = g.name('r');
      g.emit(`let ${out};`);
      g.emit(`if (${v} === undefined) ${out} = ${fallback};`);
      g.emit('else {');
      const written = write(g, def.innerType!, v, fail);
      g.emit(`${out} = ${written.mayOmit ? `${written.text} ?? ${fallback}` : written.text};`);
      g.emit('}');
      return { text: out, mayOmit: true };
    }
    case 'prefault': {
      if (checks.length > 0) return byZod(g, node, v, fail);
      const value = g.name('v');
      g.emit(`const ${value} = ${v} === undefined ? ${g.ref(def)}.defaultValue : ${v};`);
      return write(g, def.innerType!, value, fail);
    }
    case 'readonly':
      // zod freezes the output; its JSON is the same.
      if (checks.length > 0) return byZod(g, node, v, fail);
      return write(g, def.innerType!, v, fail);
    case 'nonoptional': {
      if (checks.length > 0) return byZod(g, node, v, fail);
      const written = write(g, def.innerType!, v, fail);
      if (written.mayOmit) g.emit(`if (${written.text} === undefined) ${fail}`);
      return { text: written.text, mayOmit: false };
    }
    default:
      return byZod(g, node, v, fail);
  }
}

function writeArray(g: Generator, element: Node, checks: Check[], v: string, fail: string): Written {
  g.emit(`if (!Array.isArray(${v})) ${fail}`);
  emitChecks(g, 'array', checks, v, fail);
  const out = g.name('a');
  const index = g.name('i');
  const item = g.name('e');
  g.emit(`let ${out} = '[';`);
  g.emit(`for (let ${index} = 0; ${index} < ${v}.length; ${index}++) {`);
  g.emit(`const ${item} = ${v}[${index}];`);
  const written = write(g, element, item, fail);
  // JSON.stringify writes an item it would omit (undefined, a function) as null.
  if (written.inner !== undefined) g.emit(`${out} += (${index} === 0 ? '"' : ',"') + ${written.inner} + '"';`);
  else {
    const text = written.mayOmit ? `(${written.text} ?? 'null')` : written.text;
    g.emit(`${out} += ${index} === 0 ? ${text} : ',' + ${text};`);
  }
  g.emit('}');
  g.emit(`${out} += ']';`);
  return { text: out, mayOmit: false };
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function writeObject(g: Generator, shape: Record<string, Node>, v: string, fail: string): Written {
  g.emit(`if (typeof ${v} !== 'object' || ${v} === null || Array.isArray(${v})) ${fail}`);
  const out = g.name('o');
  // Declared at its first text, so that '{' joins the first field's name.
  let declared = false;
  // Fields that are always written are appended together, each name with its punctuation as one
  // literal: one concatenation a field, not one a piece.
  // Parts: a literal's text, or an expression (`{ code }`); neighbouring literals are joined.
  let pending: (string | { code: string })[] = [];
  const flush = () => {
    const codes: string[] = [];
    let literal: string | undefined = declared ? undefined : '{';
    for (const part of pending) {
      if (typeof part === 'string') literal = (literal ?? '') + part;
      else {
        if (literal !== undefined) codes.push(JSON.stringify(literal));
        literal = undefined;
        codes.push(part.code);
      }
    }
    if (literal !== undefined) codes.push(JSON.stringify(literal));
    if (!declared) g.emit(`let ${out} = ${codes.join(' + ')};`);
    else if (codes.length > 0) g.emit(`${out} += ${codes.join(' + ')};`);
    declared = true;
    pending = [];
  };
  // Whether a field was written before this one: 'no', 'yes', or known only at run time.
  let before: 'no' | 'yes' | 'maybe' = 'no';
  for (const key of Object.keys(shape)) {
    const field = shape[key]!;
    const optin = field._zod.optin;
    const optout = field._zod.optout;
    const read = IDENTIFIER.test(key) ? `${v}.${key}` : `${v}[${JSON.stringify(key)}]`;
    const value = g.name('f');
    const absent = `${value} === undefined && !(${JSON.stringify(key)} in ${v})`;
    g.emit(`const ${value} = ${read};`);
    // zod's rules for a key that is not there: a required field fails; a field that may be absent
    // and whose schema fails on `undefined` is left out rather than failing.
    if (optin === undefined) g.emit(`if (${absent}) ${fail}`);
    const mayBeLeftOut = optin !== undefined && optout === 'optional';
    const label = mayBeLeftOut ? g.name('k') : undefined;
    if (label !== undefined) {
      flush();
      g.emit(`${label}: {`);
    }
    const written = write(g, field, value, label === undefined ? fail : `{ if (${absent}) break ${label}; ${fail} }`);
    const name = `${JSON.stringify(key)}:`;
    const prefix =
      before === 'no'
        ? JSON.stringify(name)
        : before === 'yes'
          ? JSON.stringify(`,${name}`)
          : `(${out}.length > 1 ? ${JSON.stringify(`,${name}`)} : ${JSON.stringify(name)})`;
    if (written.mayOmit) {
      flush();
      g.emit(`if (${written.text} !== undefined) ${out} += ${prefix} + ${written.text};`);
      if (before === 'no') before = 'maybe';
    } else if (label !== undefined) {
      g.emit(`${out} += ${prefix} + ${written.text};`);
      before = 'yes';
    } else {
      // After a field that may be left out, whether a comma comes is known only at run time.
      const lead = before === 'no' ? name : before === 'yes' ? `,${name}` : { code: prefix };
      if (written.inner !== undefined) pending.push(lead, '"', { code: written.inner }, '"');
      else pending.push(lead, { code: written.text });
      before = 'yes';
    }
    if (label !== undefined) g.emit('}');
  }
  pending.push('}');
  flush();
  return { text: out, mayOmit: false };
}

/**
 * The JSON writer of a zod response model, or `undefined` when the model is not a zod schema, is
 * a node the writer leaves to zod as a whole (a union, a transform, a record, …), or generated code
 * is not allowed where this runs. Inner nodes the writer does not model are parsed by zod in place.
 */
export function compileJsonWriter(schema: unknown): JsonWriter | undefined {
  if (typeof schema !== 'object' || schema === null || !('_zod' in schema)) return undefined;
  const root = schema as Node;
  const g = new Generator();
  const written = write(g, root, 'value', 'return undefined;');
  // A root the writer would only hand to zod gains nothing over parse-then-stringify.
  if (g.refs[0] === root && g.lines.length === 3) return undefined;
  const body = `${g.lines.join('\n')}\nreturn ${written.text};`;
  // Where generated code is refused (Workers, a CSP), the model is parsed, then stringified.
  return generateFunction<JsonWriter>(
    ['refs', 'ESCAPED', 'passes'],
    [g.refs, ESCAPED, passes],
    `return function writeJson(value) {\n${body}\n};`,
  );
}
