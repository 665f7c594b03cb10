/** Where an operationId is already used. */
export interface OperationIdHolder {
  method: string;
  path: string;
}

/**
 * An endpoint's operationId. An explicit one must be free (else an error naming both endpoints). The
 * default is the handler's name, or method + path for an anonymous function; a function reused on
 * another route gets its name followed by method and path (`who_get_jwks_two`), so reuse never fails.
 */
export function chooseOperationId(
  explicit: string | undefined,
  name: string,
  method: string,
  path: string,
  holderOf: (operationId: string) => OperationIdHolder | undefined,
): string {
  if (explicit !== undefined) {
    const clash = holderOf(explicit);
    if (clash) {
      throw new Error(
        `operationId "${explicit}" is used by both ${clash.method} ${clash.path} and ${method} ${path}; ` +
          'give one of them another operationId',
      );
    }
    return explicit;
  }
  const slug = pathSlug(path);
  const preferred = usableName(name) ? name : `${method.toLowerCase()}_${slug}`;
  if (holderOf(preferred) === undefined) return preferred;
  const qualified = usableName(name) ? `${name}_${method.toLowerCase()}_${slug}` : preferred;
  if (holderOf(qualified) === undefined) return qualified;
  // Only when explicit ids took these names too: count on.
  for (let i = 2; ; i++) if (holderOf(`${qualified}_${i}`) === undefined) return `${qualified}_${i}`;
}

function usableName(name: string): boolean {
  return name !== '' && name !== 'anonymous' && !name.startsWith('bound ');
}

function pathSlug(path: string): string {
  const slug = path
    .replace(/[{}]/g, '')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return slug || 'root';
}
