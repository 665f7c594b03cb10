import type * as Pino from 'pino';
import { envVar } from './platform.js';

/**
 * The default logger where pino's Node streams are missing (workerd without `nodejs_compat`): pino's
 * JSON lines — `level` as a number, `time` in milliseconds, the bindings, the object's fields, `msg`,
 * errors as `{ type, message, stack }` — written with `console.log`, which the platform collects
 * (`wrangler tail`, Workers Logs). It has pino's methods core, plugins and middleware use: the six
 * levels, `child`, `level`, `isLevelEnabled`, `bindings`, `silent`, `flush`.
 */

const LEVELS: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };
const NAMES = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;

function serializeError(error: Error): Record<string, unknown> {
  const out: Record<string, unknown> = { type: error.name || error.constructor?.name, message: error.message, stack: error.stack };
  for (const [key, value] of Object.entries(error)) if (!(key in out)) out[key] = value;
  if (error.cause !== undefined) out.cause = error.cause instanceof Error ? serializeError(error.cause) : error.cause;
  return out;
}

function fields(object: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) out[key] = value instanceof Error ? serializeError(value) : value;
  return out;
}

function format(template: string, args: unknown[]): string {
  if (args.length === 0) return template;
  let index = 0;
  const text = template.replace(/%[sdifjoO%]/g, (token) => {
    if (token === '%%') return '%';
    if (index >= args.length) return token;
    const value = args[index++];
    if (token === '%d' || token === '%i') return String(Math.trunc(Number(value)));
    if (token === '%f') return String(Number(value));
    if (token === '%s') return String(value);
    try {
      return JSON.stringify(value);
    } catch {
      return '"[Circular]"';
    }
  });
  return text;
}

function safeStringify(line: Record<string, unknown>): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(line, (_key, value: unknown) => {
    if (typeof value === 'bigint') return value.toString();
    if (value !== null && typeof value === 'object') {
      if (seen.has(value)) return '[Circular]';
      seen.add(value);
    }
    return value;
  });
}

class ConsoleLogger {
  private threshold: number;
  private levelName: string;

  constructor(
    level: string,
    private readonly boundFields: Record<string, unknown>,
  ) {
    this.levelName = level in LEVELS ? level : 'info';
    this.threshold = LEVELS[this.levelName]!;
    for (const name of NAMES) {
      const value = LEVELS[name]!;
      (this as unknown as Record<string, unknown>)[name] = (first?: unknown, ...rest: unknown[]) => this.write(value, first, rest);
    }
  }

  get level(): string {
    return this.levelName;
  }
  set level(name: string) {
    if (!(name in LEVELS)) throw new Error(`unknown level ${name}`);
    this.levelName = name;
    this.threshold = LEVELS[name]!;
  }

  isLevelEnabled(name: string): boolean {
    const value = LEVELS[name];
    return value !== undefined && value !== Infinity && value >= this.threshold;
  }

  bindings(): Record<string, unknown> {
    return { ...this.boundFields };
  }

  child(bindings: Record<string, unknown>, options?: { level?: string }): ConsoleLogger {
    return new ConsoleLogger(options?.level ?? this.levelName, { ...this.boundFields, ...fields(bindings) });
  }

  silent(): void {}

  flush(callback?: (error?: Error) => void): void {
    callback?.();
  }

  private write(level: number, first: unknown, rest: unknown[]): void {
    if (level < this.threshold) return;
    const line: Record<string, unknown> = { level, time: Date.now(), ...this.boundFields };
    let message: unknown;
    if (first instanceof Error) {
      line.err = serializeError(first);
      message = rest.length > 0 ? format(String(rest[0]), rest.slice(1)) : first.message;
    } else if (first !== null && typeof first === 'object') {
      Object.assign(line, fields(first as Record<string, unknown>));
      if (rest.length > 0) message = format(String(rest[0]), rest.slice(1));
    } else if (first !== undefined) {
      message = format(String(first), rest);
    }
    if (message !== undefined) line.msg = message;
    console.log(safeStringify(line));
  }
}

export function createDefaultLogger(): Pino.Logger {
  return new ConsoleLogger(envVar('FNAPI_LOG_LEVEL') ?? 'info', { name: 'fnapi' }) as unknown as Pino.Logger;
}

export function createSilentLogger(): Pino.Logger {
  return new ConsoleLogger('silent', {}) as unknown as Pino.Logger;
}
