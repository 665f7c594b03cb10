/**
 * `@fnapi/validation/builtins`: the one way every fnapi package reaches a Node built-in. Not for apps.
 *
 * A built-in is taken from the runtime's registry (`process.getBuiltinModule`) at its point of use,
 * never imported: a bundler hoists a static import of a built-in to the top of a single-file bundle,
 * so a Lambda that never starts a server would load node:http at start, and a Worker bundled without
 * `nodejs_compat` has no built-ins at all and must still load every module that does not use one.
 * This file is the only one that calls the registry (a test holds every package to it); it lives in
 * validation, the package every other one builds on, so that each can use it.
 */

/** The built-ins fnapi reaches, by name; adding a use of another starts with a line here. */
export interface NodeBuiltins {
  'node:async_hooks': typeof import('node:async_hooks');
  /** The cluster object itself: what the registry (and `require`) hands out is the module's default export. */
  'node:cluster': import('node:cluster').Cluster;
  'node:crypto': typeof import('node:crypto');
  'node:events': typeof import('node:events');
  'node:fs': typeof import('node:fs');
  'node:fs/promises': typeof import('node:fs/promises');
  'node:http': typeof import('node:http');
  'node:module': typeof import('node:module');
  'node:os': typeof import('node:os');
  'node:path': typeof import('node:path');
  'node:stream': typeof import('node:stream');
  'node:url': typeof import('node:url');
  'node:zlib': typeof import('node:zlib');
}

export type BuiltinName = keyof NodeBuiltins;

/** The runtimes that say who they are; anything else is taken to run Node's API. */
export type DetectedRuntime = 'node' | 'bun' | 'deno' | 'workerd';

type Registry = (name: string) => unknown;

const registry = (): Registry | undefined => (globalThis as { process?: { getBuiltinModule?: Registry } }).process?.getBuiltinModule;

let detected: DetectedRuntime | undefined;

/** The runtime this process is: Bun, Deno and workerd say so; anything else runs Node's API. */
export function detectRuntime(): DetectedRuntime {
  if (detected === undefined) {
    const scope = globalThis as { Bun?: unknown; Deno?: unknown; navigator?: { userAgent?: string } };
    if (scope.Bun !== undefined) detected = 'bun';
    else if (scope.Deno !== undefined) detected = 'deno';
    else if (scope.navigator?.userAgent === 'Cloudflare-Workers') detected = 'workerd';
    else detected = 'node';
  }
  return detected;
}

/**
 * The built-in `name` where the runtime has it (Node, Bun, Deno, workerd with `nodejs_compat`), else
 * undefined: for a caller with a fallback (a Web stream, no ambient signal).
 */
export function nodeBuiltin<Name extends BuiltinName>(name: Name): NodeBuiltins[Name] | undefined {
  try {
    return registry()?.(name) as NodeBuiltins[Name] | undefined;
  } catch {
    // A registry that throws for a name it lacks counts as lacking it.
    return undefined;
  }
}

/** The built-in `name`; throws an error naming the runtime that lacks it (and what would provide it). */
export function builtin<Name extends BuiltinName>(name: Name): NodeBuiltins[Name] {
  const module = nodeBuiltin(name);
  if (module === undefined) throw new Error(`${name} is not available on ${runtimeLacking()}`);
  return module;
}

function runtimeLacking(): string {
  switch (detectRuntime()) {
    case 'workerd':
      // The registry is there only with nodejs_compat.
      return registry() === undefined
        ? 'workerd (Cloudflare Workers) without the nodejs_compat compatibility flag, which provides most Node built-ins'
        : 'workerd (Cloudflare Workers) at this compatibility date and flags';
    case 'bun':
      return `Bun ${(globalThis as { Bun?: { version?: string } }).Bun?.version ?? ''}`.trimEnd();
    case 'deno':
      return `Deno ${(globalThis as { Deno?: { version?: { deno?: string } } }).Deno?.version?.deno ?? ''}`.trimEnd();
    default: {
      const node = (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node;
      if (node === undefined) return 'this runtime, which has no process.getBuiltinModule';
      return registry() === undefined
        ? `Node.js ${node}, which has no process.getBuiltinModule (fnapi needs Node 20.19 or later)`
        : `Node.js ${node}`;
    }
  }
}
