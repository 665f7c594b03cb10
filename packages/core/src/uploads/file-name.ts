/**
 * An uploaded file's `name` as the handler sees it: the client's file name, its last path segment
 * (`/` or `\`), with control characters (C0, DEL, C1) and Unicode format characters that reorder
 * text (bidi overrides) removed, and `.`/`..` as the empty name. It stays untrusted: fnapi never
 * uses it for a path.
 */
export function cleanFileName(raw: string | undefined): string {
  if (!raw) return '';
  const segment = raw.slice(Math.max(raw.lastIndexOf('/'), raw.lastIndexOf('\\')) + 1);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
  const cleaned = segment.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '').trim();
  return cleaned === '.' || cleaned === '..' ? '' : cleaned;
}
