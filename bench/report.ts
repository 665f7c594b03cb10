import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/** Replaces the section of a Markdown report that starts with `heading` (or appends it). */
export function replaceSection(file: string, heading: string, section: string): void {
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const start = headingAt(current, heading);
  const next = start === -1 ? -1 : current.indexOf('\n## ', start + 1);
  const before = start === -1 ? current.trimEnd() : current.slice(0, start).trimEnd();
  const after = next === -1 ? '' : current.slice(next + 1);
  writeFileSync(file, `${before}\n\n${section}${after ? `\n${after}` : ''}`);
}

/** Where the line `heading` starts, whole: one heading may begin another (`## Cold start (AWS Lambda), 100 more …`). */
function headingAt(text: string, heading: string): number {
  if (text.startsWith(`${heading}\n`)) return 0;
  const at = text.indexOf(`\n${heading}\n`);
  return at === -1 ? -1 : at + 1;
}
