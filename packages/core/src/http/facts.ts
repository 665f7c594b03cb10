/**
 * HTTP facts with one owner: reason phrases, which statuses carry no body, the media types fnapi
 * writes and reads. Writers, errors and the OpenAPI document all ask here.
 */

import { WEB_REASONS } from './reasons.js';

export const JSON_TYPE = 'application/json';
export const PROBLEM_JSON = 'application/problem+json';
export const TEXT_TYPE = 'text/plain; charset=utf-8';
export const HTML_TYPE = 'text/html; charset=utf-8';
export const BYTES_TYPE = 'application/octet-stream';

/** RFC 9110's names where node's table still has the older ones. */
const RFC_9110_REASONS: Record<number, string> = {
  413: 'Content Too Large',
  422: 'Unprocessable Content',
};

// node:http's table, copied: every runtime (workerd has no node:http) writes the same phrases, and
// an app that never runs node:http itself (a Lambda function) never loads the module.
const reasons = (): Record<number, string | undefined> => WEB_REASONS;

/** The reason phrase of a status, as written on the status line and as a problem body's `title`. */
export function reasonPhrase(status: number): string {
  return RFC_9110_REASONS[status] ?? reasons()[status] ?? 'Error';
}

/**
 * The reason phrase to put on a node:http status line, or undefined where node's own (looked up
 * by `writeHead` without re-validating it) is already the right one.
 */
export function reasonOverride(status: number): string | undefined {
  if (status === 413 || status === 422) return RFC_9110_REASONS[status];
  return reasons()[status] === undefined ? 'Error' : undefined;
}

/** Whether a response of this status may carry content (not 1xx, 204, 205 or 304). */
export function statusHasBody(status: number): boolean {
  return !(status < 200 || status === 204 || status === 205 || status === 304);
}

const JSON_MEDIA_TYPE = /^(?:application\/json|[\w.-]+\/[\w.+-]+\+json)\s*(?:;|$)/i;

/** `application/json` or any `*\/*+json` media type (`application/problem+json`, `text/x+json`). */
export function isJsonContentType(contentType: string | null | undefined): boolean {
  if (contentType == null) return false;
  if (contentType === JSON_TYPE) return true;
  return JSON_MEDIA_TYPE.test(contentType);
}

const TEXT_MEDIA_TYPES =
  /^\s*(text\/|application\/(?:[\w.+-]*\+)?(?:json|xml)\b|application\/(?:javascript|ecmascript|x-www-form-urlencoded|graphql)\b|multipart\/form-data\b|image\/svg\+xml\b)/i;

/** The one "is this content type text" rule: text, JSON, XML, JavaScript, form data, SVG. */
export function isTextContentType(type: string): boolean {
  return TEXT_MEDIA_TYPES.test(type);
}
