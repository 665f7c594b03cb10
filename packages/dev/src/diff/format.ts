import type { Change, DiffResult, Severity } from './classify.js';

export type DiffFormat = 'text' | 'markdown' | 'json';
export type FailOn = 'breaking' | 'deprecation' | 'none';

export const DIFF_FORMATS: readonly DiffFormat[] = ['text', 'markdown', 'json'];
export const FAIL_ON: readonly FailOn[] = ['breaking', 'deprecation', 'none'];

function count(changes: readonly Change[], severity: Severity): number {
  return changes.filter((change) => change.severity === severity).length;
}

/** `2 breaking, 1 deprecation, 4 informational`. */
export function diffSummary(result: DiffResult): string {
  const { changes } = result;
  if (changes.length === 0) return 'no changes';
  return `${count(changes, 'breaking')} breaking, ${count(changes, 'deprecation')} deprecation, ${count(changes, 'info')} informational`;
}

/** Whether a result fails the check at `failOn`: a breaking change, or (with `deprecation`) a deprecation too. */
export function diffFails(result: DiffResult, failOn: FailOn): boolean {
  if (failOn === 'none') return false;
  return result.changes.some((change) => change.severity === 'breaking' || (failOn === 'deprecation' && change.severity === 'deprecation'));
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** The result as the command prints it. */
export function formatDiff(result: DiffResult, format: DiffFormat): string {
  if (format === 'json') {
    // The contract's shape exactly; `rule` stays in the library's result.
    const changes = result.changes.map(({ severity, operation, pointer, message }) => ({ severity, operation, pointer, message }));
    return `${JSON.stringify({ changes }, null, 2)}\n`;
  }
  if (format === 'markdown') {
    const lines = [`**OpenAPI changes:** ${diffSummary(result)}`, ''];
    if (result.changes.length > 0) {
      lines.push('| Severity | Operation | Change | Pointer |', '| --- | --- | --- | --- |');
      for (const c of result.changes)
        lines.push(`| ${c.severity} | \`${cell(c.operation)}\` | ${cell(c.message)} | \`${cell(c.pointer)}\` |`);
    }
    return `${lines.join('\n')}\n`;
  }
  const width = Math.max(0, ...result.changes.map((c) => c.operation.length));
  const lines = result.changes.map(
    (c) => `${c.severity.toUpperCase().padEnd(11)}  ${c.operation.padEnd(width)}  ${c.message}\n${' '.repeat(13)}${c.pointer}`,
  );
  lines.push(diffSummary(result));
  return `${lines.join('\n')}\n`;
}
