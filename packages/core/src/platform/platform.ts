/**
 * What differs between the runtimes fnapi serves (Node, Bun, Deno, workerd and the serverless
 * platforms), in one place: which one this is, Node's built-ins where they exist, and byte helpers
 * that use `Buffer` where there is one and the Web's encoders where there is not. Nothing here touches
 * a Node-only API when it is imported: a Worker bundled without `nodejs_compat` loads it too.
 */

import { builtin, detectRuntime, nodeBuiltin } from '@fnapi/validation/builtins';

// Node's built-ins, fetched at their point of use (`builtin`, or `nodeBuiltin` where there is a
// fallback), and the runtime's name: owned by validation, the package under all the others.
export { builtin, detectRuntime, nodeBuiltin };

/** The runtime (or serverless platform) serving a request: `request.platform.runtime`. */
export type RuntimeName = 'node' | 'bun' | 'deno' | 'workerd' | 'lambda' | 'cloud-function' | 'azure' | 'vercel' | 'netlify';

/**
 * `request.platform`: the runtime, and what the platform hands each request. On Workers `env` holds
 * the bindings (KV, D1, secrets, vars) and `ctx` the execution context; a serverless adapter puts the
 * platform's context object (Lambda's `context`, Azure's `InvocationContext`, …) in `ctx`.
 */
export interface Platform<Env = Record<string, unknown>, Ctx = unknown> {
  readonly runtime: RuntimeName;
  readonly env?: Env;
  readonly ctx?: Ctx;
}

interface NodeLikeProcess {
  env?: Record<string, string | undefined>;
}

const nodeProcess = (): NodeLikeProcess | undefined => (globalThis as { process?: NodeLikeProcess }).process;

/** An environment variable where the runtime has `process.env` (Workers: use `request.platform.env`). */
export function envVar(name: string): string | undefined {
  try {
    return nodeProcess()?.env?.[name];
  } catch {
    // Deno without --allow-env throws.
    return undefined;
  }
}

const platforms = new Map<RuntimeName, Platform>();

/** The platform of a request whose transport passed none: this runtime, no env, no ctx. */
export function defaultPlatform(): Platform {
  const runtime = detectRuntime();
  let platform = platforms.get(runtime);
  if (platform === undefined) {
    platform = Object.freeze({ runtime });
    platforms.set(runtime, platform);
  }
  return platform;
}

interface BufferLike {
  from(value: string | Uint8Array): Uint8Array;
  byteLength(value: string): number;
  concat(parts: readonly Uint8Array[], size?: number): Uint8Array;
  isBuffer(value: unknown): boolean;
}

// Node's Buffer where it exists (faster on Node, and what node:http writes); the Web's encoders elsewhere.
const NodeBuffer = (globalThis as { Buffer?: BufferLike }).Buffer;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A string's UTF-8 bytes. */
export function utf8(value: string): Uint8Array {
  return NodeBuffer !== undefined ? NodeBuffer.from(value) : encoder.encode(value);
}

/** A string's length in UTF-8 bytes. */
export function utf8Length(value: string): number {
  if (NodeBuffer !== undefined) return NodeBuffer.byteLength(value);
  let length = value.length;
  // Every code unit is one byte, plus one for each past U+007F, plus one for each past U+07FF
  // (a surrogate pair counts 2 + 2 = 4).
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code > 0x7f) length += code > 0x7ff && (code < 0xd800 || code > 0xdfff) ? 2 : 1;
  }
  return length;
}

/** UTF-8 text of bytes (malformed sequences replaced). */
export function utf8Text(bytes: Uint8Array): string {
  return NodeBuffer?.isBuffer(bytes) ? bytes.toString() : decoder.decode(bytes);
}

/** The parts joined into one array (`size`: their total, when known). */
export function concatBytes(parts: readonly Uint8Array[], size?: number): Uint8Array {
  if (NodeBuffer !== undefined) return NodeBuffer.concat(parts, size);
  const total = size ?? parts.reduce((sum, part) => sum + part.byteLength, 0);
  const out = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    if (offset + part.byteLength > total) {
      out.set(part.subarray(0, total - offset), offset);
      break;
    }
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}
