/**
 * Compares two OpenAPI documents (3.0, 3.1 or 3.2; JSON Schema 2020-12 schemas) and classifies each
 * change as a client generated from the base document would meet it.
 *
 * The rule table (each rule's id is given in the change as `rule`):
 *
 * | rule                              | severity    | when |
 * |-----------------------------------|-------------|------|
 * | operation-removed                 | breaking    | an operation of base is not in head |
 * | operation-removed-after-sunset    | deprecation | …but base marked it deprecated with an `x-sunset` that has passed |
 * | operation-added                   | info        | |
 * | operation-deprecated              | deprecation | `deprecated` set (or an `x-sunset` added or changed) |
 * | success-status-removed            | breaking    | a 2xx response removed |
 * | status-added / status-removed     | info        | any status added; an error status removed |
 * | response-media-type-removed       | breaking    | a media type removed from a response kept |
 * | response-field-removed            | breaking    | a property of a response body removed |
 * | response-field-made-optional      | breaking    | a required response property made optional |
 * | response-made-nullable            | breaking    | `null` added to a response value (type array, `anyOf`, `nullable`) |
 * | response-type-changed             | breaking    | a response value may now be of a type base did not allow (a `oneOf`/`anyOf` branch added too) |
 * | request-parameter-added-required  | breaking    | a required parameter added |
 * | request-parameter-made-required   | breaking    | |
 * | request-parameter-removed         | info        | old clients still send it, and it is ignored |
 * | request-parameter-removed-strict  | breaking    | …where the operation's model refuses unknown keys (`x-strict-parameters`) |
 * | request-field-added-required      | breaking    | a required body property added |
 * | request-field-made-required       | breaking    | |
 * | request-field-removed-strict      | breaking    | a body property removed where the object refuses unknown keys (`additionalProperties: false`, `unevaluatedProperties: false`) |
 * | request-body-added-required       | breaking    | a required body added, or the body made required |
 * | request-media-type-removed        | breaking    | a media type the body accepted removed |
 * | request-type-narrowed             | breaking    | a request value no longer accepts a type it did (`null` included) |
 * | request-format-changed            | breaking    | a `format` added or changed on a request value |
 * | request-enum-value-removed        | breaking    | an `enum` value removed, an `enum` or `const` added, a `const` changed |
 * | request-alternative-removed       | breaking    | a `oneOf`/`anyOf` branch a request could match removed |
 * | request-min-raised                | breaking    | `minimum`, `exclusiveMinimum`, `minLength`, `minItems` added or raised |
 * | request-max-lowered               | breaking    | `maximum`, `exclusiveMaximum`, `maxLength`, `maxItems` added or lowered |
 * | request-pattern-added             | breaking    | a `pattern` added or changed |
 * | request-multiple-of-changed       | breaking    | a `multipleOf` added or changed |
 * | security-added                    | breaking    | a security requirement added where base needed none or less |
 * | security-scope-added              | breaking    | a scope added to a security requirement |
 * | deprecated                        | deprecation | a parameter or a schema property marked deprecated |
 * | (everything else)                 | info        | anything optional added, constraints loosened, response values narrowed, … |
 */

export type Severity = 'breaking' | 'deprecation' | 'info';

export interface Change {
  severity: Severity;
  /** `GET /users/{id}`. */
  operation: string;
  /** A JSON pointer into head, or into base for what was removed. */
  pointer: string;
  message: string;
  /** The rule that classified it (see the table above). */
  rule: string;
}

export interface DiffResult {
  changes: Change[];
}

export interface DiffOptions {
  /** The instant a sunset is compared with (default: now). */
  now?: Date;
}

type Json = Record<string, unknown>;
type Direction = 'request' | 'response';

/** A node of a document and where it is. */
interface Loc {
  node: unknown;
  ptr: string;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace', 'query'];
const SEVERITY_ORDER: Record<Severity, number> = { breaking: 0, deprecation: 1, info: 2 };

export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function child(loc: Loc, ...segments: (string | number)[]): Loc {
  let node = loc.node;
  let ptr = loc.ptr;
  for (const segment of segments) {
    node = isObject(node) || Array.isArray(node) ? (node as Record<string, unknown>)[segment as string] : undefined;
    ptr = `${ptr}/${escapePointer(String(segment))}`;
  }
  return { node, ptr };
}

function show(value: unknown): string {
  return JSON.stringify(value);
}

/** One document, with `$ref`s followed to where they point. */
class Doc {
  constructor(readonly root: Json) {}

  /** Follows local `$ref`s (a chain of them too) to the node they name; an unresolvable one stays as it is. */
  resolve(loc: Loc): Loc {
    let current = loc;
    for (let hops = 0; hops < 32; hops++) {
      const ref = isObject(current.node) ? current.node.$ref : undefined;
      if (typeof ref !== 'string' || !ref.startsWith('#')) return current;
      const target = this.at(ref.slice(1));
      if (target === undefined) return current;
      current = target;
    }
    return current;
  }

  at(pointer: string): Loc | undefined {
    let node: unknown = this.root;
    for (const raw of pointer.split('/').slice(1)) {
      const key = unescapePointer(decodeURIComponent(raw));
      if (!isObject(node) && !Array.isArray(node)) return undefined;
      node = (node as Record<string, unknown>)[key];
      if (node === undefined) return undefined;
    }
    return { node, ptr: pointer };
  }
}

interface Operation {
  label: string;
  method: string;
  path: string;
  loc: Loc;
  pathItem: Loc;
}

/** The operations of a document, keyed by method and path template with the parameter names left out. */
function operationsOf(doc: Doc): Map<string, Operation> {
  const out = new Map<string, Operation>();
  const paths = doc.root.paths;
  if (!isObject(paths)) return out;
  for (const path of Object.keys(paths)) {
    const item = doc.resolve({ node: paths[path], ptr: `/paths/${escapePointer(path)}` });
    if (!isObject(item.node)) continue;
    const add = (method: string, loc: Loc) => {
      if (!isObject(loc.node)) return;
      const upper = method.toUpperCase();
      out.set(`${upper} ${path.replace(/\{[^}]*\}/g, '{}')}`, { label: `${upper} ${path}`, method: upper, path, loc, pathItem: item });
    };
    for (const method of METHODS) if (method in item.node) add(method, child(item, method));
    // fnapi's 3.1 documents write QUERY as `x-query`: the same operation as 3.2's `query`.
    if (!('query' in item.node) && 'x-query' in item.node) add('query', child(item, 'x-query'));
    // OpenAPI 3.2: methods outside the fixed fields.
    const additional = child(item, 'additionalOperations');
    if (isObject(additional.node)) for (const method of Object.keys(additional.node)) add(method, child(additional, method));
  }
  return out;
}

function sunsetOf(operation: Loc): string | undefined {
  const sunset = isObject(operation.node) ? operation.node['x-sunset'] : undefined;
  return typeof sunset === 'string' ? sunset : sunset instanceof Date ? sunset.toISOString() : undefined;
}

/** The types a schema allows, `null` apart; undefined when any type goes. */
function typesOf(doc: Doc, schema: Json, seen = new Set<unknown>()): Set<string> | undefined {
  if (seen.has(schema)) return undefined;
  seen.add(schema);
  const type = schema.type;
  if (typeof type === 'string') return new Set([type].filter((t) => t !== 'null'));
  if (Array.isArray(type)) return new Set(type.filter((t): t is string => typeof t === 'string' && t !== 'null'));
  const values = valuesOf(schema);
  if (values) return new Set(values.filter((v) => v !== null).map(jsonType));
  const branches = branchesOf(schema);
  if (branches) {
    const all = new Set<string>();
    for (const branch of branches) {
      const resolved = doc.resolve({ node: branch, ptr: '' }).node;
      if (!isObject(resolved)) return undefined;
      if (isNullSchema(resolved)) continue;
      const types = typesOf(doc, resolved, seen);
      if (!types) return undefined;
      for (const t of types) all.add(t);
    }
    return all;
  }
  return impliedTypes(doc, schema, seen);
}

/** The type a schema without `type` is written for: its `allOf` parts', or what its keywords describe. */
function impliedTypes(doc: Doc, schema: Json, seen: Set<unknown>): Set<string> | undefined {
  if (Array.isArray(schema.allOf)) {
    for (const part of schema.allOf) {
      const resolved = doc.resolve({ node: part, ptr: '' }).node;
      const types = isObject(resolved) ? typesOf(doc, resolved, seen) : undefined;
      if (types) return types;
    }
  }
  if (['properties', 'additionalProperties', 'required', 'patternProperties'].some((k) => k in schema)) return new Set(['object']);
  if ('items' in schema || 'prefixItems' in schema) return new Set(['array']);
  return undefined;
}

function jsonType(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function valuesOf(schema: Json): unknown[] | undefined {
  if ('const' in schema) return [schema.const];
  if (Array.isArray(schema.enum)) return schema.enum;
  return undefined;
}

function branchesOf(schema: Json): unknown[] | undefined {
  if (Array.isArray(schema.oneOf)) return schema.oneOf;
  if (Array.isArray(schema.anyOf)) return schema.anyOf;
  return undefined;
}

function isNullSchema(schema: Json): boolean {
  return schema.type === 'null' || (Array.isArray(schema.type) && schema.type.length === 1 && schema.type[0] === 'null');
}

/** Whether a type of `inner` is allowed by `outer` (an integer is a number). */
function covered(type: string, by: Set<string>): boolean {
  return by.has(type) || (type === 'integer' && by.has('number'));
}

function describeTypes(types: Set<string> | undefined): string {
  return types ? [...types].join(' | ') || 'nothing' : 'any';
}

/** A schema seen through `nullable` wrappers: the value's own schema, and whether null is allowed. */
interface View {
  loc: Loc;
  /** Where the value is written, around a `nullable` wrapper (where a change of nullability is reported). */
  outer: Loc;
  schema: Json;
  nullable: boolean;
}

function view(doc: Doc, loc: Loc): View {
  const resolved = doc.resolve(loc);
  const node = resolved.node;
  if (node === true || node === undefined) return { loc: resolved, outer: resolved, schema: {}, nullable: true };
  if (node === false) return { loc: resolved, outer: resolved, schema: { not: {} }, nullable: false };
  if (!isObject(node)) return { loc: resolved, outer: resolved, schema: {}, nullable: true };
  let nullable = node.nullable === true || (Array.isArray(node.type) && node.type.includes('null')) || node.type === 'null';
  const values = valuesOf(node);
  if (values) nullable = values.includes(null);
  // `anyOf: [X, { type: 'null' }]`: X, nullable.
  const key = Array.isArray(node.oneOf) ? 'oneOf' : Array.isArray(node.anyOf) ? 'anyOf' : undefined;
  if (key) {
    const branches = node[key] as unknown[];
    const kept: number[] = [];
    branches.forEach((branch, i) => {
      const b = doc.resolve({ node: branch, ptr: '' }).node;
      if (isObject(b) && isNullSchema(b)) nullable = true;
      else kept.push(i);
    });
    if (kept.length === 1 && kept.length < branches.length && Object.keys(node).every((k) => ANNOTATIONS.has(k) || k === key)) {
      const inner = view(doc, child(resolved, key, kept[0]!));
      return { ...inner, outer: resolved, nullable: true };
    }
    if (branches.length === 0 && !('type' in node)) nullable = true;
  }
  // No `type`: null is allowed unless the schema is written for a type (its `allOf` parts', its keywords').
  if (!('type' in node) && !values && !key && !('nullable' in node)) nullable = impliedTypes(doc, node, new Set()) === undefined;
  return { loc: resolved, outer: resolved, schema: node, nullable };
}

const ANNOTATIONS = new Set(['title', 'description', 'default', 'examples', 'example', 'deprecated', 'readOnly', 'writeOnly', '$comment']);

/** The properties of an object schema, `allOf` parts merged, each where it is written. */
function propertiesOf(doc: Doc, v: View): { properties: Map<string, Loc>; required: Set<string>; strict: boolean } {
  const properties = new Map<string, Loc>();
  const required = new Set<string>();
  let strict = false;
  const visit = (loc: Loc, depth: number) => {
    const resolved = doc.resolve(loc);
    const node = resolved.node;
    if (!isObject(node) || depth > 16) return;
    if (isObject(node.properties))
      for (const name of Object.keys(node.properties)) properties.set(name, child(resolved, 'properties', name));
    if (Array.isArray(node.required)) for (const name of node.required) if (typeof name === 'string') required.add(name);
    if (node.additionalProperties === false || node.unevaluatedProperties === false) strict = true;
    if (Array.isArray(node.allOf)) for (let i = 0; i < node.allOf.length; i++) visit(child(resolved, 'allOf', i), depth + 1);
  };
  visit(v.loc, 0);
  return { properties, required, strict };
}

/** The changes of one operation, each reported once. */
class Report {
  readonly changes: Change[] = [];
  private readonly seen = new Set<string>();
  /** Schema pairs already compared for this operation, by direction: a shared component is walked once. */
  readonly compared = new Set<string>();

  constructor(private readonly operation: string) {}

  add(severity: Severity, rule: string, pointer: string, message: string): void {
    const key = `${rule} ${pointer} ${message}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.changes.push({ severity, operation: this.operation, pointer, message, rule });
  }
}

/** What the schema compares need: both documents, the report, and the pairs already compared. */
class SchemaDiff {
  constructor(
    private readonly base: Doc,
    private readonly head: Doc,
    private readonly report: Report,
    private readonly direction: Direction,
    /** What is compared: `request body`, `200 response body`, ``query parameter `page` ``. */
    private readonly where: string,
  ) {}

  /** How messages name the value at `path` (a field's dotted path; empty for the value itself). */
  private label(path: string): string {
    return path ? `${this.where} field \`${path}\`` : this.where;
  }

  /** Compares the values at `b` (base) and `h` (head), `path` below the compared value. */
  compare(b: Loc, h: Loc, path = ''): void {
    const what = this.label(path);
    const bv = view(this.base, b);
    const hv = view(this.head, h);
    const key = `${this.direction} ${bv.loc.ptr} ${hv.loc.ptr}`;
    if (this.report.compared.has(key)) return;
    this.report.compared.add(key);
    const r = this.report;
    const at = hv.loc.ptr;
    const request = this.direction === 'request';

    // `deprecated` beside a `$ref` (3.1) counts as much as in the schema it names.
    const deprecated = (loc: Loc, v: View) => v.schema.deprecated === true || (isObject(loc.node) && loc.node.deprecated === true);
    if (!deprecated(b, bv) && deprecated(h, hv))
      r.add('deprecation', 'deprecated', isObject(h.node) && h.node.deprecated === true ? h.ptr : at, `${what} deprecated`);

    if (bv.nullable !== hv.nullable) {
      const where = hv.outer.ptr;
      if (request && !hv.nullable) r.add('breaking', 'request-type-narrowed', where, `${what} no longer accepts null`);
      else if (!request && hv.nullable) r.add('breaking', 'response-made-nullable', where, `${what} made nullable`);
      else
        r.add(
          'info',
          hv.nullable ? 'nullable-added' : 'nullable-removed',
          where,
          `${what} ${hv.nullable ? 'accepts null' : 'is no longer null'}`,
        );
    }

    const bBranches = branchesOf(bv.schema);
    const hBranches = branchesOf(hv.schema);
    if (bBranches || hBranches) {
      this.alternatives(bv, hv, path);
      return;
    }

    const bt = typesOf(this.base, bv.schema);
    const ht = typesOf(this.head, hv.schema);
    const narrowed = bt === undefined ? ht !== undefined : ht !== undefined && [...bt].some((t) => !covered(t, ht));
    const widened = ht === undefined ? bt !== undefined : bt !== undefined && [...ht].some((t) => !covered(t, bt));
    const typeMessage = `${what} type changed from ${describeTypes(bt)} to ${describeTypes(ht)}`;
    if (request && narrowed) r.add('breaking', 'request-type-narrowed', at, typeMessage);
    else if (!request && widened) r.add('breaking', 'response-type-changed', at, typeMessage);
    else if (narrowed || widened) r.add('info', 'type-changed', at, typeMessage);
    // Nothing in common: the rest of the schemas cannot be compared usefully.
    if (bt && ht && ![...bt].some((t) => covered(t, ht)) && ![...ht].some((t) => covered(t, bt))) return;

    this.format(bv, hv, what);
    this.values(bv, hv, what);
    this.bounds(bv, hv, what);
    this.objects(bv, hv, path, bt, ht);
    this.arrays(bv, hv, path);
  }

  private format(bv: View, hv: View, what: string): void {
    const bf = bv.schema.format;
    const hf = hv.schema.format;
    if (bf === hf) return;
    const at = hf !== undefined ? child(hv.loc, 'format').ptr : hv.loc.ptr;
    const message =
      hf === undefined
        ? `${what} format ${show(bf)} removed`
        : bf === undefined
          ? `${what} format ${show(hf)} added`
          : `${what} format changed from ${show(bf)} to ${show(hf)}`;
    if (this.direction === 'request' && hf !== undefined) this.report.add('breaking', 'request-format-changed', at, message);
    else this.report.add('info', 'format-changed', at, message);
  }

  private values(bv: View, hv: View, what: string): void {
    const be = valuesOf(bv.schema)?.filter((v) => v !== null);
    const he = valuesOf(hv.schema)?.filter((v) => v !== null);
    if (!be && !he) return;
    const at = child(hv.loc, 'enum' in hv.schema ? 'enum' : 'const').ptr;
    const bs = new Set(be?.map(show));
    const hs = new Set(he?.map(show));
    if (this.direction === 'request') {
      if (he && !be) {
        this.report.add('breaking', 'request-enum-value-removed', at, `${what} restricted to ${[...hs].join(', ')}`);
        return;
      }
      if (be && !he) {
        this.report.add('info', 'enum-removed', hv.loc.ptr, `${what} no longer restricted to listed values`);
        return;
      }
      for (const value of bs)
        if (!hs.has(value)) this.report.add('breaking', 'request-enum-value-removed', at, `${what} no longer accepts ${value}`);
      for (const value of hs) if (!bs.has(value)) this.report.add('info', 'enum-value-added', at, `${what} accepts ${value}`);
      return;
    }
    if (be && he) {
      for (const value of hs) if (!bs.has(value)) this.report.add('info', 'enum-value-added', at, `${what} may be ${value}`);
      for (const value of bs) if (!hs.has(value)) this.report.add('info', 'enum-value-removed', at, `${what} is no longer ${value}`);
    } else {
      this.report.add(
        'info',
        he ? 'enum-added' : 'enum-removed',
        he ? at : hv.loc.ptr,
        `${what} ${he ? `restricted to ${[...hs].join(', ')}` : 'no longer restricted to listed values'}`,
      );
    }
  }

  private bounds(bv: View, hv: View, what: string): void {
    const b = bv.schema;
    const h = hv.schema;
    const request = this.direction === 'request';
    const report = (narrows: boolean, rule: string, keyword: string, message: string) => {
      const at = keyword in h ? child(hv.loc, keyword).ptr : hv.loc.ptr;
      if (request && narrows) this.report.add('breaking', rule, at, message);
      else this.report.add('info', `${keyword}-changed`, at, message);
    };
    const lower = (s: Json): [number, boolean] | undefined => bound(s, 'minimum', 'exclusiveMinimum', Math.max);
    const upper = (s: Json): [number, boolean] | undefined => bound(s, 'maximum', 'exclusiveMaximum', Math.min);
    const [bl, hl] = [lower(b), lower(h)];
    if (show(bl) !== show(hl)) {
      const raised = hl !== undefined && (bl === undefined || hl[0] > bl[0] || (hl[0] === bl[0] && hl[1] && !bl[1]));
      report(
        raised,
        'request-min-raised',
        hl?.[1] && typeof h.exclusiveMinimum === 'number' ? 'exclusiveMinimum' : 'minimum',
        `${what} minimum changed from ${showBound(bl)} to ${showBound(hl)}`,
      );
    }
    const [bu, hu] = [upper(b), upper(h)];
    if (show(bu) !== show(hu)) {
      const lowered = hu !== undefined && (bu === undefined || hu[0] < bu[0] || (hu[0] === bu[0] && hu[1] && !bu[1]));
      report(
        lowered,
        'request-max-lowered',
        hu?.[1] && typeof h.exclusiveMaximum === 'number' ? 'exclusiveMaximum' : 'maximum',
        `${what} maximum changed from ${showBound(bu)} to ${showBound(hu)}`,
      );
    }
    for (const [keyword, kind] of [
      ['minLength', 'min'],
      ['minItems', 'min'],
      ['minProperties', 'min'],
      ['maxLength', 'max'],
      ['maxItems', 'max'],
      ['maxProperties', 'max'],
    ] as const) {
      const bn = typeof b[keyword] === 'number' ? (b[keyword] as number) : undefined;
      const hn = typeof h[keyword] === 'number' ? (h[keyword] as number) : undefined;
      if (bn === hn) continue;
      const narrows = hn !== undefined && (bn === undefined || (kind === 'min' ? hn > bn : hn < bn));
      report(
        narrows,
        kind === 'min' ? 'request-min-raised' : 'request-max-lowered',
        keyword,
        `${what} ${keyword} changed from ${bn ?? 'none'} to ${hn ?? 'none'}`,
      );
    }
    if (b.pattern !== h.pattern) {
      report(
        h.pattern !== undefined,
        'request-pattern-added',
        'pattern',
        `${what} pattern changed from ${show(b.pattern) ?? 'none'} to ${show(h.pattern) ?? 'none'}`,
      );
    }
    if (b.multipleOf !== h.multipleOf) {
      report(
        h.multipleOf !== undefined,
        'request-multiple-of-changed',
        'multipleOf',
        `${what} multipleOf changed from ${b.multipleOf ?? 'none'} to ${h.multipleOf ?? 'none'}`,
      );
    }
  }

  private objects(bv: View, hv: View, path: string, bt: Set<string> | undefined, ht: Set<string> | undefined): void {
    const isObjectish = (v: View, t: Set<string> | undefined) =>
      t?.has('object') || isObject(v.schema.properties) || Array.isArray(v.schema.allOf) || isObject(v.schema.additionalProperties);
    if (!isObjectish(bv, bt) && !isObjectish(hv, ht)) return;
    const b = propertiesOf(this.base, bv);
    const h = propertiesOf(this.head, hv);
    const r = this.report;
    const request = this.direction === 'request';
    const below = (name: string) => (path ? `${path}.${name}` : name);
    for (const [name, bLoc] of b.properties) {
      const label = this.label(below(name));
      const hLoc = h.properties.get(name);
      if (!hLoc) {
        if (!request) r.add('breaking', 'response-field-removed', bLoc.ptr, `${label} removed`);
        else if (h.strict)
          r.add('breaking', 'request-field-removed-strict', bLoc.ptr, `${label} removed, and the object refuses unknown keys`);
        else r.add('info', 'request-field-removed', bLoc.ptr, `${label} removed (old clients still send it)`);
        continue;
      }
      const wasRequired = b.required.has(name);
      const isRequired = h.required.has(name);
      if (request && !wasRequired && isRequired) r.add('breaking', 'request-field-made-required', hLoc.ptr, `${label} made required`);
      else if (!request && wasRequired && !isRequired)
        r.add('breaking', 'response-field-made-optional', hLoc.ptr, `${label} made optional`);
      else if (wasRequired !== isRequired)
        r.add('info', 'required-changed', hLoc.ptr, `${label} made ${isRequired ? 'required' : 'optional'}`);
      this.compare(bLoc, hLoc, below(name));
    }
    for (const [name, hLoc] of h.properties) {
      if (b.properties.has(name)) continue;
      const label = this.label(below(name));
      if (request && h.required.has(name)) r.add('breaking', 'request-field-added-required', hLoc.ptr, `required ${label} added`);
      else r.add('info', 'field-added', hLoc.ptr, `${h.required.has(name) ? 'required' : 'optional'} ${label} added`);
    }
    if (b.strict !== h.strict) {
      r.add('info', 'unknown-keys-changed', hv.loc.ptr, `${this.label(path)} ${h.strict ? 'refuses' : 'accepts'} unknown keys`);
    }
    if (isObject(bv.schema.additionalProperties) && isObject(hv.schema.additionalProperties)) {
      this.compare(child(bv.loc, 'additionalProperties'), child(hv.loc, 'additionalProperties'), below('*'));
    }
  }

  private arrays(bv: View, hv: View, path: string): void {
    if ('items' in bv.schema && 'items' in hv.schema && typeof bv.schema.items !== 'boolean') {
      this.compare(child(bv.loc, 'items'), child(hv.loc, 'items'), `${path}[]`);
    }
    const bp = Array.isArray(bv.schema.prefixItems) ? bv.schema.prefixItems : [];
    const hp = Array.isArray(hv.schema.prefixItems) ? hv.schema.prefixItems : [];
    for (let i = 0; i < Math.min(bp.length, hp.length); i++) {
      this.compare(child(bv.loc, 'prefixItems', i), child(hv.loc, 'prefixItems', i), `${path}[${i}]`);
    }
  }

  /** `oneOf`/`anyOf`: branches paired by their `$ref`, their `const` or their type, then in order. */
  private alternatives(bv: View, hv: View, path: string): void {
    const what = this.label(path);
    const branches = (v: View, doc: Doc): Loc[] => {
      const key = Array.isArray(v.schema.oneOf) ? 'oneOf' : Array.isArray(v.schema.anyOf) ? 'anyOf' : undefined;
      if (!key) return [v.loc];
      return (v.schema[key] as unknown[])
        .map((_, i) => child(v.loc, key, i))
        .filter((loc) => {
          const node = doc.resolve(loc).node;
          return !(isObject(node) && isNullSchema(node));
        });
    };
    const bb = branches(bv, this.base);
    const hb = branches(hv, this.head);
    const identity = (loc: Loc, doc: Doc): string => {
      if (isObject(loc.node) && typeof loc.node.$ref === 'string') return `ref:${loc.node.$ref.split('/').pop()}`;
      const node = doc.resolve(loc).node;
      if (!isObject(node)) return show(node);
      if (typeof node.title === 'string') return `title:${node.title}`;
      const values = valuesOf(node);
      if (values) return `values:${show(values)}`;
      // An object told apart by a property with a `const` (a discriminator).
      if (isObject(node.properties)) {
        for (const [name, prop] of Object.entries(node.properties)) {
          if (isObject(prop) && 'const' in prop) return `tag:${name}=${show(prop.const)}`;
        }
      }
      return `type:${describeTypes(typesOf(doc, node))}`;
    };
    const pairs: [Loc, Loc][] = [];
    const freeB = new Set(bb.keys());
    const freeH = new Set(hb.keys());
    for (const i of [...freeB]) {
      const id = identity(bb[i]!, this.base);
      const j = [...freeH].find((k) => identity(hb[k]!, this.head) === id);
      if (j === undefined) continue;
      pairs.push([bb[i]!, hb[j]!]);
      freeB.delete(i);
      freeH.delete(j);
    }
    // What is left is paired in order when the counts agree (a branch edited in place).
    if (freeB.size === freeH.size) {
      const bs = [...freeB];
      const hs = [...freeH];
      for (let n = 0; n < bs.length; n++) pairs.push([bb[bs[n]!]!, hb[hs[n]!]!]);
      freeB.clear();
      freeH.clear();
    }
    const request = this.direction === 'request';
    for (const i of freeB) {
      const loc = bb[i]!;
      if (request)
        this.report.add(
          'breaking',
          'request-alternative-removed',
          loc.ptr,
          `${what} no longer accepts the alternative ${identity(loc, this.base)}`,
        );
      else this.report.add('info', 'alternative-removed', loc.ptr, `${what} no longer answers the alternative ${identity(loc, this.base)}`);
    }
    for (const j of freeH) {
      const loc = hb[j]!;
      if (request) this.report.add('info', 'alternative-added', loc.ptr, `${what} accepts the alternative ${identity(loc, this.head)}`);
      else this.report.add('breaking', 'response-type-changed', loc.ptr, `${what} may be the new alternative ${identity(loc, this.head)}`);
    }
    for (const [b, h] of pairs) this.compare(b, h, path);
  }
}

function bound(schema: Json, inclusive: string, exclusive: string, pick: (a: number, b: number) => number): [number, boolean] | undefined {
  const i = typeof schema[inclusive] === 'number' ? (schema[inclusive] as number) : undefined;
  // 3.0's boolean `exclusiveMinimum` turns `minimum` exclusive; 3.1's is a number of its own.
  if (schema[exclusive] === true && i !== undefined) return [i, true];
  const e = typeof schema[exclusive] === 'number' ? (schema[exclusive] as number) : undefined;
  if (i === undefined) return e === undefined ? undefined : [e, true];
  if (e === undefined) return [i, false];
  const value = pick(i, e);
  return [value, value === e];
}

function showBound(b: [number, boolean] | undefined): string {
  return b === undefined ? 'none' : `${b[0]}${b[1] ? ' (exclusive)' : ''}`;
}

interface Parameter {
  key: string;
  name: string;
  in: string;
  loc: Loc;
  node: Json;
}

/** The parameters of an operation with those of its path item, the operation's winning; path parameters by position. */
function parametersOf(doc: Doc, operation: Operation): Map<string, Parameter> {
  const out = new Map<string, Parameter>();
  const pathNames = [...operation.path.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]);
  for (const holder of [operation.pathItem, operation.loc]) {
    const list = child(holder, 'parameters');
    if (!Array.isArray(list.node)) continue;
    list.node.forEach((_, i) => {
      const loc = doc.resolve(child(list, i));
      if (!isObject(loc.node)) return;
      const name = String(loc.node.name);
      const where = String(loc.node.in);
      const key =
        where === 'path' ? `path#${pathNames.indexOf(name)}` : where === 'header' ? `header ${name.toLowerCase()}` : `${where} ${name}`;
      out.set(key, { key, name, in: where, loc, node: loc.node });
    });
  }
  return out;
}

/** A parameter's schema: `schema`, or the schema of its one `content` entry. */
function parameterSchema(p: Parameter): Loc {
  if ('schema' in p.node) return child(p.loc, 'schema');
  const content = child(p.loc, 'content');
  if (isObject(content.node)) {
    const first = Object.keys(content.node)[0];
    if (first !== undefined) return child(content, first, 'schema');
  }
  return { node: {}, ptr: p.loc.ptr };
}

/** The security requirements that apply (the operation's, else the document's); `[{}]` when none. */
function securityOf(doc: Doc, operation: Operation): { loc: Loc; alternatives: Record<string, string[]>[] } {
  const own = child(operation.loc, 'security');
  const loc = Array.isArray(own.node) ? own : { node: doc.root.security, ptr: '/security' };
  const list = Array.isArray(loc.node) ? (loc.node as unknown[]).filter(isObject) : [];
  const alternatives = list.map((requirement) =>
    Object.fromEntries(Object.entries(requirement).map(([name, scopes]) => [name, Array.isArray(scopes) ? scopes.map(String) : []])),
  );
  return {
    loc: Array.isArray(own.node) ? own : Array.isArray(doc.root.security) ? loc : own,
    alternatives: alternatives.length ? alternatives : [{}],
  };
}

/** Whether meeting requirement `met` also meets `needed` (every scheme of it, with every scope). */
function satisfies(met: Record<string, string[]>, needed: Record<string, string[]>): boolean {
  return Object.entries(needed).every(([name, scopes]) => met[name] !== undefined && scopes.every((s) => met[name]!.includes(s)));
}

function isSuccess(status: string): boolean {
  return /^2/.test(status);
}

function compareOperation(base: Doc, head: Doc, b: Operation, h: Operation, report: Report): void {
  const bo = b.loc.node as Json;
  const ho = h.loc.node as Json;

  // Deprecation.
  if (!bo.deprecated && ho.deprecated === true)
    report.add('deprecation', 'operation-deprecated', child(h.loc, 'deprecated').ptr, 'operation deprecated');
  else if (bo.deprecated === true && !ho.deprecated)
    report.add('info', 'operation-undeprecated', h.loc.ptr, 'operation no longer deprecated');
  const [bs, hs] = [sunsetOf(b.loc), sunsetOf(h.loc)];
  if (hs !== undefined && bs !== hs) {
    report.add(
      'deprecation',
      'operation-sunset',
      child(h.loc, 'x-sunset').ptr,
      bs === undefined ? `sunset set to ${hs}` : `sunset moved from ${bs} to ${hs}`,
    );
  } else if (bs !== undefined && hs === undefined) {
    report.add('info', 'operation-sunset-removed', h.loc.ptr, `sunset ${bs} removed`);
  }
  if (bo.operationId !== ho.operationId && bo.operationId !== undefined) {
    report.add(
      'info',
      'operation-id-changed',
      child(h.loc, 'operationId').ptr,
      `operationId changed from ${show(bo.operationId)} to ${show(ho.operationId)}`,
    );
  }

  // Security.
  const bsec = securityOf(base, b);
  const hsec = securityOf(head, h);
  let securityBroken = false;
  for (const met of bsec.alternatives) {
    if (hsec.alternatives.some((needed) => satisfies(met, needed))) continue;
    securityBroken = true;
    const sameSchemes = hsec.alternatives.find((needed) => Object.keys(needed).every((name) => name in met));
    if (sameSchemes) {
      for (const [name, scopes] of Object.entries(sameSchemes)) {
        for (const scope of scopes) {
          if (!met[name]!.includes(scope))
            report.add(
              'breaking',
              'security-scope-added',
              hsec.loc.ptr,
              `scope ${show(scope)} added to security requirement ${show(name)}`,
            );
        }
      }
    } else {
      const names = hsec.alternatives.map((alt) => Object.keys(alt).join(' + ') || 'none').join(' or ');
      report.add('breaking', 'security-added', hsec.loc.ptr, `security requirement added: ${names}`);
    }
  }
  if (!securityBroken && show(bsec.alternatives) !== show(hsec.alternatives)) {
    report.add('info', 'security-relaxed', hsec.loc.ptr, 'security requirements relaxed');
  }

  // Parameters.
  const bp = parametersOf(base, b);
  const hp = parametersOf(head, h);
  const strict = new Set(Array.isArray(ho['x-strict-parameters']) ? (ho['x-strict-parameters'] as unknown[]).map(String) : []);
  for (const [key, p] of bp) {
    const q = hp.get(key);
    const label = `${p.in} parameter \`${p.name}\``;
    if (!q) {
      if (strict.has(p.in))
        report.add(
          'breaking',
          'request-parameter-removed-strict',
          p.loc.ptr,
          `${label} removed, and the operation refuses unknown ${p.in} keys`,
        );
      else report.add('info', 'request-parameter-removed', p.loc.ptr, `${label} removed (old clients still send it, and it is ignored)`);
      continue;
    }
    const qlabel = `${q.in} parameter \`${q.name}\``;
    if (p.node.required !== true && q.node.required === true)
      report.add('breaking', 'request-parameter-made-required', q.loc.ptr, `${qlabel} made required`);
    else if (p.node.required === true && q.node.required !== true)
      report.add('info', 'request-parameter-made-optional', q.loc.ptr, `${qlabel} made optional`);
    if (!p.node.deprecated && q.node.deprecated === true)
      report.add('deprecation', 'deprecated', child(q.loc, 'deprecated').ptr, `${qlabel} deprecated`);
    new SchemaDiff(base, head, report, 'request', qlabel).compare(parameterSchema(p), parameterSchema(q));
  }
  for (const [key, q] of hp) {
    if (bp.has(key)) continue;
    const label = `${q.in} parameter \`${q.name}\``;
    if (q.node.required === true) report.add('breaking', 'request-parameter-added-required', q.loc.ptr, `required ${label} added`);
    else report.add('info', 'request-parameter-added', q.loc.ptr, `optional ${label} added`);
  }

  // Request body.
  const bb = base.resolve(child(b.loc, 'requestBody'));
  const hb = head.resolve(child(h.loc, 'requestBody'));
  if (!isObject(bb.node) && isObject(hb.node)) {
    if (hb.node.required === true) report.add('breaking', 'request-body-added-required', hb.ptr, 'required request body added');
    else report.add('info', 'request-body-added', hb.ptr, 'optional request body added');
  } else if (isObject(bb.node) && !isObject(hb.node)) {
    report.add('info', 'request-body-removed', bb.ptr, 'request body removed');
  } else if (isObject(bb.node) && isObject(hb.node)) {
    if (bb.node.required !== true && hb.node.required === true)
      report.add('breaking', 'request-body-added-required', hb.ptr, 'request body made required');
    else if (bb.node.required === true && hb.node.required !== true)
      report.add('info', 'request-body-made-optional', hb.ptr, 'request body made optional');
    const bc = child(bb, 'content');
    const hc = child(hb, 'content');
    const bTypes = isObject(bc.node) ? Object.keys(bc.node) : [];
    const hTypes = isObject(hc.node) ? Object.keys(hc.node) : [];
    for (const type of bTypes) {
      if (!hTypes.includes(type)) {
        report.add('breaking', 'request-media-type-removed', child(bc, type).ptr, `request body no longer accepts ${type}`);
        continue;
      }
      new SchemaDiff(base, head, report, 'request', 'request body').compare(child(bc, type, 'schema'), child(hc, type, 'schema'));
    }
    for (const type of hTypes)
      if (!bTypes.includes(type)) report.add('info', 'request-media-type-added', child(hc, type).ptr, `request body accepts ${type}`);
  }

  // Responses.
  const br = child(b.loc, 'responses');
  const hr = child(h.loc, 'responses');
  const bStatuses = isObject(br.node) ? Object.keys(br.node) : [];
  const hStatuses = isObject(hr.node) ? Object.keys(hr.node) : [];
  for (const status of bStatuses) {
    if (!hStatuses.includes(status)) {
      if (isSuccess(status)) report.add('breaking', 'success-status-removed', child(br, status).ptr, `success status ${status} removed`);
      else report.add('info', 'status-removed', child(br, status).ptr, `status ${status} removed`);
      continue;
    }
    const bResp = base.resolve(child(br, status));
    const hResp = head.resolve(child(hr, status));
    const bc = child(bResp, 'content');
    const hc = child(hResp, 'content');
    const bTypes = isObject(bc.node) ? Object.keys(bc.node) : [];
    const hTypes = isObject(hc.node) ? Object.keys(hc.node) : [];
    for (const type of bTypes) {
      if (!hTypes.includes(type)) {
        report.add('breaking', 'response-media-type-removed', child(bc, type).ptr, `${status} response no longer answers ${type}`);
        continue;
      }
      const bm = child(bc, type);
      const hm = child(hc, type);
      if (!isObject(bm.node) || !isObject(hm.node)) continue;
      if ('schema' in bm.node || 'schema' in hm.node) {
        new SchemaDiff(base, head, report, 'response', `${status} response body`).compare(child(bm, 'schema'), child(hm, 'schema'));
      }
      // Streams: each item's schema (3.2 `itemSchema`, 3.1 `x-itemSchema`).
      for (const key of ['itemSchema', 'x-itemSchema']) {
        if (key in bm.node && key in hm.node) {
          new SchemaDiff(base, head, report, 'response', `${status} response item`).compare(child(bm, key), child(hm, key));
        }
      }
    }
    for (const type of hTypes)
      if (!bTypes.includes(type))
        report.add('info', 'response-media-type-added', child(hc, type).ptr, `${status} response may answer ${type}`);
    const bh = child(bResp, 'headers');
    const hh = child(hResp, 'headers');
    const bNames = isObject(bh.node) ? Object.keys(bh.node) : [];
    const hNames = isObject(hh.node) ? Object.keys(hh.node) : [];
    const lower = (names: string[]) => names.map((n) => n.toLowerCase());
    for (const name of bNames)
      if (!lower(hNames).includes(name.toLowerCase()))
        report.add('info', 'response-header-removed', child(bh, name).ptr, `${status} response header ${name} removed`);
    for (const name of hNames)
      if (!lower(bNames).includes(name.toLowerCase()))
        report.add('info', 'response-header-added', child(hh, name).ptr, `${status} response header ${name} added`);
  }
  for (const status of hStatuses) {
    if (!bStatuses.includes(status))
      report.add('info', 'status-added', child(hr, status).ptr, `${isSuccess(status) ? 'success ' : ''}status ${status} added`);
  }
}

/**
 * Every change from `base` to `head`, classified: breaking, as a client generated from `base` would
 * meet it; deprecation; or informational. A change to a shared component is reported once per
 * operation that reaches it, at the component's own pointer.
 */
export function diffDocuments(base: Record<string, unknown>, head: Record<string, unknown>, options: DiffOptions = {}): DiffResult {
  const now = (options.now ?? new Date()).getTime();
  const bd = new Doc(base);
  const hd = new Doc(head);
  const bOps = operationsOf(bd);
  const hOps = operationsOf(hd);
  const changes: Change[] = [];
  for (const [key, b] of bOps) {
    const h = hOps.get(key);
    const report = new Report(h?.label ?? b.label);
    if (!h) {
      const sunset = sunsetOf(b.loc);
      const sunsetAt = sunset === undefined ? Number.NaN : Date.parse(sunset);
      if ((b.loc.node as Json).deprecated === true && sunsetAt <= now) {
        report.add('deprecation', 'operation-removed-after-sunset', b.loc.ptr, `operation removed after its sunset (${sunset})`);
      } else {
        report.add('breaking', 'operation-removed', b.loc.ptr, 'operation removed');
      }
    } else {
      compareOperation(bd, hd, b, h, report);
    }
    changes.push(...report.changes);
  }
  for (const [key, h] of hOps) {
    if (bOps.has(key)) continue;
    changes.push({ severity: 'info', operation: h.label, pointer: h.loc.ptr, message: 'operation added', rule: 'operation-added' });
  }
  changes.sort((x, y) => SEVERITY_ORDER[x.severity] - SEVERITY_ORDER[y.severity]);
  return { changes };
}
