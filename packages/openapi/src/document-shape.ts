// Small rewrites of the generated document and of names in it.

export function pascalCase(name: string): string {
  const words = name.split(/[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])/).filter(Boolean);
  const joined = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
  if (joined === '') return 'Body';
  return /^[0-9]/.test(joined) ? `Model${joined}` : joined;
}

export function templateParams(path: string, declared: readonly string[]): string[] {
  const names = [...path.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]!);
  for (const name of declared) if (!names.includes(name) && path.includes(`{${name}}`)) names.push(name);
  return names;
}

export function sortByStatus<T>(responses: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)));
}

/** `required` comes from the binder's own rules, which may differ from zod-to-openapi's guess. */
export function fixParameters(document: Record<string, unknown>, required: Map<string, Map<string, boolean>>): void {
  const paths = (document.paths ?? {}) as Record<string, Record<string, { parameters?: Array<Record<string, unknown>> }>>;
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const flags = required.get(`${path}\u0000${method}`);
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'path') {
          parameter.required = true;
          continue;
        }
        const flag = flags?.get(`${String(parameter.in)}:${String(parameter.name)}`);
        if (flag !== undefined) parameter.required = flag;
      }
    }
  }
}

export /** Drops the empty sections zod-to-openapi always emits (`webhooks: {}`, `components.parameters: {}`). */
function tidy(document: Record<string, unknown>): Record<string, unknown> {
  const components = document.components as Record<string, Record<string, unknown>> | undefined;
  if (components) {
    for (const [key, value] of Object.entries(components)) {
      if (value && typeof value === 'object' && Object.keys(value).length === 0) delete components[key];
    }
    if (Object.keys(components).length === 0) delete document.components;
  }
  const webhooks = document.webhooks as Record<string, unknown> | undefined;
  if (webhooks && Object.keys(webhooks).length === 0) delete document.webhooks;
  if (!document.paths) document.paths = {};
  return document;
}
