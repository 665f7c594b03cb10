import type { z } from 'zod';
import type { ParamLocation } from './sources.js';
import type { SchemaIssue } from './standard.js';

/** One validation problem, located in the request. */
export interface ValidationIssue {
  in: ParamLocation;
  /** Location inside the part named by `in`. */
  path: (string | number)[];
  message: string;
  code: string;
}

export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

export interface IssueTarget {
  in: ParamLocation;
  /** Replaces the parameter name at the head of zod's path; `null` drops it (models). */
  head: string | null;
}

export function toPathItem(p: PropertyKey): string | number {
  return typeof p === 'symbol' ? String(p) : p;
}

/** Expected shapes of string-borne values, by parameter name (and `name.field` for query models). */
export type Expectations = Map<string, string>;

export const FROM_STRINGS: ReadonlySet<ParamLocation> = new Set(['path', 'query', 'header', 'cookie']);

/**
 * An issue as the person who sent the request reads it: a missing value is `missing` / "Field
 * required"; a path, query, header or cookie string that could not be converted says what was
 * expected and repeats what it got; other issues keep zod's code and message.
 */
export function readable(
  issue: z.core.$ZodIssue,
  location: ParamLocation,
  expected: string | undefined,
): { message: string; code: string } {
  const input = (issue as { input?: unknown }).input;
  // `custom` too: a `file()` (or any custom check) given nothing is a missing field.
  if ((issue.code === 'invalid_type' || issue.code === 'invalid_union' || issue.code === 'custom') && input === undefined) {
    return { message: 'Field required', code: 'missing' };
  }
  if (
    expected !== undefined &&
    FROM_STRINGS.has(location) &&
    typeof input === 'string' &&
    (issue.code === 'invalid_type' || issue.code === 'invalid_value')
  ) {
    return { message: `Expected ${expected}, got ${JSON.stringify(input)}`, code: issue.code };
  }
  return { message: issue.message, code: issue.code };
}

/** Parse options: zod keeps each issue's input, which the messages repeat. */
export const PARSE = { reportInput: true } as const;

export function mapIssues(
  issues: readonly z.core.$ZodIssue[],
  targets: Map<string, IssueTarget>,
  out: ValidationIssue[],
  expectations?: Expectations,
): void {
  for (const issue of issues) {
    const [first, ...rest] = issue.path;
    const target = targets.get(first as string);
    let path: (string | number)[];
    let location: ParamLocation;
    if (target === undefined) {
      location = 'body';
      path = issue.path.map(toPathItem);
    } else {
      location = target.in;
      path = target.head === null ? rest.map(toPathItem) : [target.head, ...rest.map(toPathItem)];
    }
    const key = target === undefined ? undefined : target.head === null ? `${String(first)}.${String(rest[0])}` : String(first);
    // A strict query or cookie model names each unknown key where it was found, one issue per key.
    if (issue.code === 'unrecognized_keys' && (location === 'query' || location === 'cookie')) {
      for (const unknown of issue.keys) {
        out.push({ in: location, path: [...path, unknown], message: `Unrecognized key: ${JSON.stringify(unknown)}`, code: issue.code });
      }
      continue;
    }
    out.push({ in: location, path, ...readable(issue, location, key === undefined ? undefined : expectations?.get(key)) });
  }
}

/**
 * Another library's issue as the person who sent the request reads it: a value missing at the
 * issue's path is `missing` / "Field required" whatever the library says; a string that could not be
 * converted says what was expected (with the library's code); otherwise the library's message and code.
 */
export function readableStandard(
  issue: SchemaIssue,
  location: ParamLocation,
  expected: string | undefined,
): { message: string; code: string } {
  if (issue.input === undefined) return { message: 'Field required', code: 'missing' };
  if (expected !== undefined && FROM_STRINGS.has(location) && typeof issue.input === 'string') {
    return { message: `Expected ${expected}, got ${JSON.stringify(issue.input)}`, code: issue.code };
  }
  return { message: issue.message, code: issue.code };
}
