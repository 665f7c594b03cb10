/**
 * A CommonJS package's exports as import() gave them: named under Node, but only as `default` (its
 * `module.exports`) from the chunk a bundler's code splitting makes of it. `name` is one export the
 * package always has.
 */
export function commonJsExports<T extends object>(module: T, name: keyof T): T {
  if (module[name] !== undefined) return module;
  const exports = (module as { default?: T }).default;
  if (exports === undefined || exports[name] === undefined) throw new Error(`a module loaded without its ${String(name)} export`);
  return exports;
}
