import { generateFunction } from '@fnapi/validation';

/**
 * The route table: static paths found with one map lookup per method; parameterized paths in a
 * segment tree per method, so matching never scans the list of routes.
 */

const PARAM = /^\{([A-Za-z_$][\w$]*)\}$/;
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
  param: { name: string; node: Node<T> } | undefined;
  /** A `{name:path}` segment: the rest of the path. */
  rest: Terminal<T> | undefined;
}

function node<T>(): Node<T> {
  return { children: undefined, param: undefined, rest: undefined, value: undefined, params: undefined };
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

/** The template as documented: `{name:path}` written `{name}`. */
export function documentedPath(template: string): string {
  return template.includes(':path}') ? template.replace(/\{([A-Za-z_$][\w$]*):path\}/g, '{$1}') : template;
}

/** Names of `{param}` segments of a route template, in order. */
export function pathParamNames(template: string): string[] {
  const names: string[] = [];
  const segments = template.split('/');
  for (const [index, segment] of segments.entries()) {
    const rest = REST.exec(segment);
    if (rest) {
      if (index !== segments.length - 1) throw new Error(`Route "${template}": {${rest[1]}:path} must be the last segment`);
      names.push(rest[1]!);
      continue;
    }
    if (segment.startsWith(':')) {
      const name = segment.slice(1).replace(/[?*+]$/, '');
      throw new Error(
        `Route "${template}": "${segment}" is an Express-style parameter, which fnapi would match literally; write {${name}} instead`,
      );
    }
    const m = PARAM.exec(segment);
    if (m) names.push(m[1]!);
    else if (segment.includes('{') || segment.includes('}')) {
      throw new Error(`Route "${template}": a path parameter must fill a whole segment, like /users/{user_id}`);
    }
  }
  if (new Set(names).size !== names.length) throw new Error(`Route "${template}" repeats a path parameter name`);
  return names;
}

/** Joins a prefix and a route into one normalised template. */
export function joinPath(prefix: string, route: string): string {
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
  /** The parameter values of the path being matched (read by the matched route's builder, then reused). */
  private readonly values: string[] = [];

  /** Adds a route; returns false when the method and template are already taken. */
  add(method: string, template: string, value: T): boolean {
    let table = this.methods.get(method);
    if (!table) this.methods.set(method, (table = new MethodTable()));
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
    const params = paramsBuilder(pathParamNames(template));
    for (const segment of template.split('/').slice(1)) {
      const rest = REST.exec(segment);
      if (rest) {
        if (current.rest !== undefined) return false;
        current.rest = { value, params };
        table.hasDynamic = true;
        return true;
      }
      const m = PARAM.exec(segment);
      if (m) {
        if (current.param && current.param.name !== m[1]) {
          throw new Error(
            `Route "${template}": parameter {${m[1]}} conflicts with {${current.param.name}} at the same position of another route`,
          );
        }
        current.param ??= { name: m[1]!, node: node() };
        current = current.param.node;
      } else {
        current.children ??= new Map();
        let next = current.children.get(segment);
        if (!next) current.children.set(segment, (next = node()));
        const encoded = encodeURI(segment);
        if (encoded !== segment && !current.children.has(encoded)) current.children.set(encoded, next);
        current = next;
      }
    }
    if (current.value !== undefined) return false;
    current.value = value;
    current.params = params;
    table.hasDynamic = true;
    return true;
  }

  /** Finds the route for a method and a raw (percent-encoded) path. */
  match(method: string, path: string): RouteMatch<T> | undefined {
    const table = this.methods.get(method);
    if (table === undefined) return undefined;
    const found = table.findStatic(path);
    if (found !== undefined) return found;
    if (!table.hasDynamic || path.charCodeAt(0) !== 47 /* / */) return undefined;
    // Matching calls no other code, so one array per table holds the values while a path is walked.
    const values = this.values;
    const ended = walk(table.root, path, 1, values, 0);
    return ended === undefined ? undefined : { value: ended.value!, params: ended.params!(values) };
  }

  /** Whether any method has a route for this path. */
  hasPath(path: string): boolean {
    for (const method of this.methods.keys()) if (this.match(method, path)) return true;
    return false;
  }
}

/** The route a path ends at, the values of its parameters in `values` (from index `count` on, in path order). */
function walk<T>(current: Node<T>, path: string, start: number, values: string[], count: number): Terminal<T> | undefined {
  if (start > path.length) return current.value === undefined ? undefined : current;
  let end = path.indexOf('/', start);
  if (end === -1) end = path.length;
  const segment = path.slice(start, end);
  const child = current.children?.get(segment);
  if (child !== undefined) {
    const found = walk(child, path, end + 1, values, count);
    if (found !== undefined) return found;
  }
  const param = current.param;
  if (param !== undefined && segment.length > 0) {
    const found = walk(param.node, path, end + 1, values, count + 1);
    if (found !== undefined) {
      values[count] = segment.includes('%') ? decodeSegment(segment) : segment;
      return found;
    }
  }
  const rest = current.rest;
  if (rest !== undefined && start < path.length) {
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
