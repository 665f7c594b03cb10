import { MAX_ISSUES, type ValidationIssue } from '@fnapi/validation';
import { BadRequestError, PayloadTooLargeError, RequestValidationError } from './errors.js';
import { concatBytes, utf8, utf8Text } from '../platform/platform.js';

/** The default `bodyLimit`: 1 MiB (413 past it). */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** The one 413 for a body past the limit. */
export function tooLarge(limit: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`Request body exceeds the limit of ${limit} bytes`);
}

/** Collects an async stream of chunks, failing with 413 as soon as the total passes `limit`. */
export async function collectBody(chunks: AsyncIterable<Uint8Array | string>, limit: number): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    const part = typeof chunk === 'string' ? utf8(chunk) : chunk;
    size += part.byteLength;
    if (size > limit) throw tooLarge(limit);
    parts.push(part);
  }
  if (parts.length === 1) return parts[0]!;
  return concatBytes(parts, size);
}
export const MAX_JSON_DEPTH = 256;

export function decodeText(bytes: Uint8Array): string {
  return utf8Text(bytes);
}

/** Deepest nesting of arrays/objects in a JSON text, ignoring brackets inside strings. */
function nestingDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > max) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

const PROTOTYPE_KEYS = /"(?:__proto__|constructor)"/;

function rejectPrototypeKeys(key: string, value: unknown): unknown {
  if (key === '__proto__' || (key === 'constructor' && value && typeof value === 'object' && 'prototype' in value)) {
    throw new BadRequestError('Request body contains a forbidden "__proto__" or "constructor.prototype" key');
  }
  return value;
}

/**
 * Text that may hold a number too large for a double: an exponent of three digits or more, or a run
 * of 200 digits (a 210-digit mantissa with a two-digit exponent passes 1.8e308). Anything else parses
 * to finite numbers, so the parsed value is searched only when this matches. Two expressions, the
 * second only for a text long enough to hold such a run: one with both alternatives tries the
 * lookbehind at every character of every body.
 */
const HUGE_EXPONENT = /\d[eE]\+?\d{3}/;
const LONG_DIGITS = /(?<!\d)\d{200}/;

function mayHoldHugeNumber(text: string): boolean {
  return HUGE_EXPONENT.test(text) || (text.length >= 200 && LONG_DIGITS.test(text));
}

/** The issues of non-finite numbers (`1e309` parses to Infinity) in a parsed body, at their paths. */
function nonFiniteIssues(value: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const path: (string | number)[] = [];
  const visit = (v: unknown): void => {
    if (typeof v === 'number') {
      if (!Number.isFinite(v))
        issues.push({ in: 'body', path: [...path], message: 'Expected a finite number: JSON has no infinities', code: 'not_finite' });
      return;
    }
    if (typeof v !== 'object' || v === null) return;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length && issues.length <= MAX_ISSUES; i++) {
        path.push(i);
        visit(v[i]);
        path.pop();
      }
    } else {
      for (const key in v) {
        if (issues.length > MAX_ISSUES) return;
        path.push(key);
        visit((v as Record<string, unknown>)[key]);
        path.pop();
      }
    }
  };
  visit(value);
  return issues;
}

/**
 * Parses a JSON request body. Malformed text, nesting past 256 levels and prototype-poisoning keys
 * are client errors (400), never a 500; a UTF-8 byte-order mark before the text is ignored. A number
 * that is not finite once parsed (`1e309`) is a 422 at its path (`not_finite`), whatever validates
 * the body afterwards: JSON has no infinities.
 */
export function parseJsonBody(text: string): unknown {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  // A document shorter than the limit cannot be nested deeper than it.
  if (text.length > MAX_JSON_DEPTH && nestingDepthExceeds(text, MAX_JSON_DEPTH)) {
    throw new BadRequestError(`Malformed JSON body: nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new BadRequestError(`Malformed JSON body: ${(error as Error).message}`);
  }
  // Keys may be written with escapes (`"\u005f_proto__"`): any `\u` escape gets the full check too.
  // A search for `\u`, then one regular-expression pass for both keys, costs less than one expression
  // for all three (which tries two alternatives at every quote) and far less than three searches.
  if (text.includes('\\u') || PROTOTYPE_KEYS.test(text)) {
    try {
      JSON.parse(text, rejectPrototypeKeys);
    } catch (error) {
      if (error instanceof BadRequestError) throw error;
    }
  }
  if (mayHoldHugeNumber(text)) {
    const issues = nonFiniteIssues(value);
    if (issues.length > 0) throw new RequestValidationError(issues);
  }
  return value;
}
