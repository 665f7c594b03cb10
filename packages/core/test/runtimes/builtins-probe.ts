/** What the built-in helper finds on the runtime running it: a Worker's answer, or a script's output line. */
import { type BuiltinName, builtin, detectRuntime, nodeBuiltin } from '@fnapi/validation/builtins';

// Every name the helper is typed for (the type check fails when one is missing here).
export const BUILTIN_NAMES = Object.keys({
  'node:async_hooks': true,
  'node:cluster': true,
  'node:crypto': true,
  'node:events': true,
  'node:fs': true,
  'node:fs/promises': true,
  'node:http': true,
  'node:module': true,
  'node:os': true,
  'node:path': true,
  'node:stream': true,
  'node:url': true,
  'node:zlib': true,
} satisfies Record<BuiltinName, true>) as BuiltinName[];

export interface BuiltinsReport {
  runtime: string;
  /** The names `nodeBuiltin` found. */
  found: BuiltinName[];
  /** The message `builtin` threw, by name. */
  errors: Partial<Record<BuiltinName, string>>;
  /** `join('a', 'b')` of the node:path found, if any: the module is the real one. */
  joined: string | null;
}

export function builtinsReport(): BuiltinsReport {
  const found: BuiltinName[] = [];
  const errors: Partial<Record<BuiltinName, string>> = {};
  for (const name of BUILTIN_NAMES) {
    if (nodeBuiltin(name) !== undefined) found.push(name);
    try {
      builtin(name);
    } catch (error) {
      errors[name] = (error as Error).message;
    }
  }
  return { runtime: detectRuntime(), found, errors, joined: nodeBuiltin('node:path')?.join('a', 'b') ?? null };
}
