import { generateFunction } from '@fnapi/validation';

/**
 * The route table: static paths found with one map lookup per method; parameterized paths in a
 * segment tree per method, so matching never scans the list of routes.
 */

const PARAM = /^\{([A-Za-z_$][\w$]*)\}$/;
/** A parameter with fixed text around it in one segment: `{id}.csv`, `v{major}`, `report-{id}.pdf`. */
const AFFIXED = /^([^{}]*)\{([A-Za-z_$][\w$]*)\}([^{}]*)$/;
/** `{name:path}`: the last segment, matching the rest of the path, slashes included. */
const REST = /^\{([A-Za-z_$][\w$]*):path\}$/;
const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

export interface RouteMatch<T> {
  value: T;
  params: Record<string, string>;
}

/** Builds a route's path parameters from their values, in path order. */
type ParamsBuilder = (values: readonly string[]) => Record<string, string>;

/** Where a route ends: its value and how its parameters are built. */
interface Terminal<T> {
  value: T | undefined;
  params: ParamsBuilder | undefined;
}

interface Node<T> extends Terminal<T> {
  children: Map<string, Node<T>> | undefined;
  /**
   * The static segments of `children` and their nodes, side by side, while there are few: a request's
   * segment is compared in place with each, rather than cut out of the path and hashed for the map.
   */
  names: string[] | undefined;
  nodes: Node<T>[] | undefined;
  param: { name: string; node: Node<T> } | undefined;
  /**
   * Segments of fixed text around a parameter (`{id}.csv`), longest fixed text first: tried after the
   * static segments and before the bare parameter. `prefix` and `suffix` as a request sends them.
   */
  affixed: Affixed<T>[] | undefined;
  /** A `{name:path}` segment: the rest of the path. */
  rest: Terminal<T> | undefined;
}

interface Affixed<T> {
  prefix: string;
  suffix: string;
  name: string;
  node: Node<T>;
}

function node<T>(): Node<T> {
  return {
    children: undefined,
    names: undefined,
    nodes: undefined,
    param: undefined,
    affixed: undefined,
    rest: undefined,
    value: undefined,
    params: undefined,
  };
}

/**
 * The path parameters of one route as an object, its keys in the order they always had (the deepest
 * segment's first). Generated per route, so that its object is made with one shape rather than grown
 * by a store that every route's names pass through (megamorphic: about 250 instructions a key).
 */
function paramsBuilder(names: readonly string[]): ParamsBuilder {
  const order = names.map((name, i) => ({ name, i })).reverse();
  const generated = order.some(({ name }) => name in Object.prototype)
    ? undefined
    : generateFunction<ParamsBuilder>(
        [],
        [],
        `return (v) => ({ ${order.map(({ name, i }) => `${JSON.stringify(name)}: v[${i}]`).join(', ')} });`,
      );
  return (
    generated ??
    ((values) => {
      const params: Record<string, string> = {};
      for (const { name, i } of order) params[name] = values[i]!;
      return params;
    })
  );
}

/**
 * A route's builder, made when the route is first matched: registering and compiling an app then
 * generates no code for routes a process never serves (a cold start serves one). The terminal's
 * field is replaced by the real builder, so later matches call it directly.
 */
function deferredBuilder(terminal: Terminal<unknown>, names: readonly string[]): ParamsBuilder {
  return (values) => (terminal.params = paramsBuilder(names))(values);
}

/** The template as documented: `{name:path}` written `{name}`. */
export function documentedPath(template: string): string {
  return template.includes(':path}') ? template.replace(/\{([A-Za-z_$][\w$]*):path\}/g, '{$1}') : template;
}

/** One segment of a route template. */
type SegmentShape =
  | { kind: 'static' }
  | { kind: 'param'; name: string }
  | { kind: 'affixed'; name: string; prefix: string; suffix: string }
  | { kind: 'rest'; name: string };

/** What one segment of `template` is; a segment fnapi cannot match as written is refused, saying what to write. */
function segmentShape(template: string, segment: string, last: boolean): SegmentShape {
  const rest = REST.exec(segment);
  if (rest) {
    if (!last) throw new Error(`Route "${template}": {${rest[1]}:path} must be the last segment`);
    return { kind: 'rest', name: rest[1]! };
  }
  if (segment.startsWith(':')) {
    const name = segment.slice(1).replace(/[?*+]$/, '');
    throw new Error(
      `Route "${template}": "${segment}" is an Express-style parameter, which fnapi would match literally; write {${name}} instead`,
    );
  }
  const m = PARAM.exec(segment);
  if (m) return { kind: 'param', name: m[1]! };
  if (!segment.includes('{') && !segment.includes('}')) return { kind: 'static' };
  const a = AFFIXED.exec(segment);
  if (a) return { kind: 'affixed', name: a[2]!, prefix: a[1]!, suffix: a[3]! };
  if (segment.includes(':path}')) {
    throw new Error(`Route "${template}": a {name:path} parameter fills its whole segment, like /files/{file_path:path}`);
  }
  throw new Error(
    `Route "${template}": "${segment}" is not a segment fnapi can match: at most one parameter per segment, written {name}, alone or with fixed text around it (/reports/{id}.csv, /v{major}/items)`,
  );
}

/** The last template read and its names: registration reads each route twice (where written, where recorded). */
let lastRead: { template: string; names: readonly string[] } | undefined;

/** Names of `{param}` segments of a route template, in order. */
export function pathParamNames(template: string): string[] {
  if (lastRead !== undefined && lastRead.template === template) return [...lastRead.names];
  const names: string[] = [];
  const segments = template.split('/');
  for (const [index, segment] of segments.entries()) {
    const shape = segmentShape(template, segment, index === segments.length - 1);
    if (shape.kind !== 'static') names.push(shape.name);
  }
  if (new Set(names).size !== names.length) throw new Error(`Route "${template}" repeats a path parameter name`);
  lastRead = { template, names: [...names] };
  return names;
}

/** Joins a prefix and a route into one normalised template. */
export function joinPath(prefix: string, route: string): string {
  // An app's own routes: nothing to join or normalise.
  if (prefix === '' && route.charCodeAt(0) === 47 /* / */ && !route.includes('//')) return route;
  const joined = `${prefix.replace(/\/+$/, '')}/${route.replace(/^\/+/, '')}`;
  const normalised = joined.replace(/\/{2,}/g, '/');
  return normalised.length > 1 && normalised.endsWith('/') && !route.endsWith('/') ? normalised.slice(0, -1) : normalised;
}

/** Paths up to this long are found by length first. */
const SHORT_PATH = 64;
/** Past this many static paths of one length, the map finds them. */
const FEW_PATHS = 8;

/** The static paths of one length, each beside its match. */
interface SameLength<T> {
  paths: string[];
  matches: RouteMatch<T>[];
}

class MethodTable<T> {
  /** Static routes keep a ready match object: finding one allocates nothing. */
  readonly static = new Map<string, RouteMatch<T>>();
  /**
   * The static paths up to `SHORT_PATH` characters by length: a request's path is compared with the
   * few of its length (undefined: none, so no lookup at all), rather than hashed for the map (a path
   * is a new string on every request, so its hash is computed every time). `null` where there are too
   * many of one length: the map then.
   */
  readonly byLength: (SameLength<T> | null | undefined)[] = [];
  readonly root: Node<T> = node();
  hasDynamic = false;

  addStatic(path: string, match: RouteMatch<T>): void {
    this.static.set(path, match);
    if (path.length > SHORT_PATH) return;
    const same = this.byLength[path.length];
    if (same === null) return;
    if (same === undefined) this.byLength[path.length] = { paths: [path], matches: [match] };
    else if (same.paths.length >= FEW_PATHS) this.byLength[path.length] = null;
    else {
      same.paths.push(path);
      same.matches.push(match);
    }
  }

  findStatic(path: string): RouteMatch<T> | undefined {
    if (path.length > SHORT_PATH) return this.static.get(path);
    const same = this.byLength[path.length];
    if (same === undefined) return undefined;
    if (same === null) return this.static.get(path);
    const paths = same.paths;
    for (let i = 0; i < paths.length; i++) if (paths[i] === path) return same.matches[i];
    return undefined;
  }
}

export class RouteTable<T> {
  private readonly methods = new Map<string, MethodTable<T>>();
  /** GET's table, the one most requests are matched in: found without hashing the method. */
  private getTable: MethodTable<T> | undefined = undefined;
  /** The parameter values of the path being matched (read by the matched route's builder, then reused). */
  private readonly values: string[] = [];

  /** Adds a route; returns false when the method and template are already taken. */
  add(method: string, template: string, value: T): boolean {
    let table = this.methods.get(method);
    if (!table) {
      this.methods.set(method, (table = new MethodTable()));
      if (method === 'GET') this.getTable = table;
    }
    if (!template.includes('{')) {
      if (table.static.has(template)) return false;
      const match = Object.freeze({ value, params: NO_PARAMS });
      table.addStatic(template, match);
      // A request for a non-ASCII path arrives percent-encoded.
      const encoded = encodeURI(template);
      if (encoded !== template) table.addStatic(encoded, match);
      return true;
    }
    let current = table.root;
    const names = pathParamNames(template);
    const segments = template.split('/').slice(1);
    for (const [index, segment] of segments.entries()) {
      const shape = segmentShape(template, segment, index === segments.length - 1);
      if (shape.kind === 'rest') {
        if (current.rest !== undefined) return false;
        const terminal: Terminal<T> = { value, params: undefined };
        terminal.params = deferredBuilder(terminal, names);
        current.rest = terminal;
        table.hasDynamic = true;
        return true;
      }
      if (shape.kind === 'param') {
        if (current.param && current.param.name !== shape.name) {
          throw new Error(
            `Route "${template}": parameter {${shape.name}} conflicts with {${current.param.name}} at the same position of another route`,
          );
        }
        current.param ??= { name: shape.name, node: node() };
        current = current.param.node;
      } else if (shape.kind === 'affixed') {
        const prefix = encodeURI(shape.prefix);
        const suffix = encodeURI(shape.suffix);
        const same = current.affixed?.find((a) => a.prefix === prefix && a.suffix === suffix);
        if (same !== undefined && same.name !== shape.name) {
          throw new Error(
            `Route "${template}": parameter {${shape.name}} in "${segment}" conflicts with {${same.name}} at the same position of another route`,
          );
        }
        if (same !== undefined) current = same.node;
        else {
          const added: Affixed<T> = { prefix, suffix, name: shape.name, node: node() };
          current.affixed = [...(current.affixed ?? []), added].sort(
            (a, b) => b.prefix.length + b.suffix.length - (a.prefix.length + a.suffix.length),
          );
          current = added.node;
        }
      } else {
        let next = current.children?.get(segment);
        if (!next) addChild(current, segment, (next = node()));
        const encoded = encodeURI(segment);
        if (encoded !== segment && !current.children!.has(encoded)) addChild(current, encoded, next);
        current = next;
      }
    }
    if (current.value !== undefined) return false;
    current.value = value;
    current.params = deferredBuilder(current, names);
    table.hasDynamic = true;
    return true;
  }

  /** Finds the route for a method and a raw (percent-encoded) path. */
  match(method: string, path: string): RouteMatch<T> | undefined {
    const table = method === 'GET' ? this.getTable : this.methods.get(method);
    if (table === undefined) return undefined;
    const found = table.findStatic(path);
    if (found !== undefined) return found;
    if (!table.hasDynamic || path.charCodeAt(0) !== 47 /* / */) return undefined;
    // Matching calls no other code, so one array per table holds the values while a path is walked.
    const values = this.values;
    const greedy = descend(table.root, path, values);
    const ended = greedy === null ? walk(table.root, path, 1, values, 0) : greedy;
    return ended === undefined ? undefined : { value: ended.value!, params: ended.params!(values) };
  }

  /** Whether any method has a route for this path. */
  hasPath(path: string): boolean {
    for (const method of this.methods.keys()) if (this.match(method, path)) return true;
    return false;
  }
}

/** Past this many static segments under one node, the map finds a request's segment. */
const FEW_SEGMENTS = 8;

function addChild<T>(parent: Node<T>, segment: string, child: Node<T>): void {
  parent.children ??= new Map();
  parent.children.set(segment, child);
  if (parent.children.size > FEW_SEGMENTS) {
    parent.names = undefined;
    parent.nodes = undefined;
  } else {
    (parent.names ??= []).push(segment);
    (parent.nodes ??= []).push(child);
  }
}

/** The static child of `current` named by the path's characters from `start` to `end`. */
function staticChild<T>(current: Node<T>, path: string, start: number, end: number): Node<T> | undefined {
  const children = current.children;
  if (children === undefined) return undefined;
  const names = current.names;
  if (names === undefined) return children.get(path.slice(start, end));
  const length = end - start;
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    if (name.length === length && path.startsWith(name, start)) return current.nodes![i];
  }
  return undefined;
}

/**
 * The route a path ends at when each segment takes the first way on (a static segment, else a
 * parameter), as `walk` would find it first, in one loop; null where that way ends nowhere, and
 * `walk` then tries the others. The common request costs no call per segment.
 */
function descend<T>(root: Node<T>, path: string, values: string[]): Terminal<T> | null {
  const length = path.length;
  // A path is usually a slice of the request target, whose characters V8 reads one at a time only
  // slowly: it is searched with indexOf, and segments for '%' only when the path has one at all.
  const escaped = path.indexOf('%') !== -1;
  let current = root;
  let start = 1;
  let count = 0;
  while (start <= length) {
    let end = path.indexOf('/', start);
    if (end === -1) end = length;
    const child = staticChild(current, path, start, end);
    if (child !== undefined) current = child;
    else {
      const param = current.param;
      // A segment of fixed text and a parameter comes before a bare parameter: `walk` tries both.
      if (param === undefined || end === start || current.affixed !== undefined) return null;
      const segment = path.slice(start, end);
      values[count++] = escaped && segment.includes('%') ? decodeSegment(segment) : segment;
      current = param.node;
    }
    start = end + 1;
  }
  return current.value === undefined ? null : current;
}

/** The route a path ends at, the values of its parameters in `values` (from index `count` on, in path order). */
function walk<T>(current: Node<T>, path: string, start: number, values: string[], count: number): Terminal<T> | undefined {
  if (start > path.length) return current.value === undefined ? undefined : current;
  let end = path.indexOf('/', start);
  if (end === -1) end = path.length;
  const child = staticChild(current, path, start, end);
  if (child !== undefined) {
    const found = walk(child, path, end + 1, values, count);
    if (found !== undefined) return found;
  }
  const affixed = current.affixed;
  if (affixed !== undefined) {
    for (const a of affixed) {
      // The fixed text at both ends, and a parameter of at least one character between them.
      if (end - start <= a.prefix.length + a.suffix.length) continue;
      if (!path.startsWith(a.prefix, start) || !path.startsWith(a.suffix, end - a.suffix.length)) continue;
      const found = walk(a.node, path, end + 1, values, count + 1);
      if (found !== undefined) {
        const middle = path.slice(start + a.prefix.length, end - a.suffix.length);
        values[count] = middle.includes('%') ? decodeSegment(middle) : middle;
        return found;
      }
    }
  }
  const param = current.param;
  if (param !== undefined && end > start) {
    const found = walk(param.node, path, end + 1, values, count + 1);
    if (found !== undefined) {
      const segment = path.slice(start, end);
      values[count] = segment.includes('%') ? decodeSegment(segment) : segment;
      return found;
    }
  }
  // `{name:path}` takes the rest of the path, slashes included, the empty rest too (`/files/` → '').
  const rest = current.rest;
  if (rest !== undefined && start <= path.length) {
    const tail = path.slice(start);
    values[count] = tail.includes('%') ? decodeSegment(tail) : tail;
    return rest;
  }
  return undefined;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
