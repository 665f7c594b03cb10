import { type Draft, urlOf } from './operations.js';

/** A shell word: single-quoted, with inner quotes closed, escaped and reopened. */
function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * A `curl` command line that sends the draft to `baseUrl`. An oversized body is piped in from
 * `head`, so the line stays short. Headers named in `secrets` are written as that environment
 * variable (`"authorization: $FNAPI_CHECK_HEADER_1"`).
 */
export function curlLine(draft: Draft, baseUrl: string, secrets: ReadonlyMap<string, string> = new Map()): string {
  const parts = ['curl', '-sS', '-i', '-g', '-X', draft.method, quote(`${baseUrl.replace(/\/$/, '')}${urlOf(draft)}`)];
  for (const [name, value] of draft.headers) {
    const variable = secrets.get(name);
    // A credential stays in the environment: the shell expands the variable, the line never shows it.
    if (variable) parts.push('-H', `"${name}: $${variable}"`);
    // `-H 'name:'` would remove the header; `name;` sends it empty.
    else parts.push('-H', quote(value === '' ? `${name};` : `${name}: ${value}`));
  }
  const body = draft.body;
  if (body && 'oversize' in body) {
    parts.push('-H', quote(`content-type: ${body.contentType}`), '--data-binary', '@-');
    return `head -c ${body.oversize} /dev/zero | tr '\\0' a | ${parts.join(' ')}`;
  }
  if (body) {
    if (body.contentType) parts.push('-H', quote(`content-type: ${body.contentType}`));
    parts.push('--data-binary', quote(body.text));
  }
  return parts.join(' ');
}
