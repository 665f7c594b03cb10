import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { API } from '@fnapi/core';

/** What the command needs of an app; duck-typed, so an app built with another copy of core works. */
function isApp(value: unknown): value is API {
  const candidate = value as Partial<API> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.openapi === 'function' &&
    typeof candidate.run === 'function' &&
    typeof candidate.include === 'function'
  );
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'function') return 'function';
  if (typeof value === 'object') return (value as object).constructor?.name ?? 'object';
  return typeof value;
}

/** The `API` a module exports as its default export or as `app`, or an error naming what it found. */
export function findApp(module: Record<string, unknown>, entry: string): API {
  for (const name of ['default', 'app']) {
    if (isApp(module[name])) return module[name];
  }
  const found = Object.keys(module).map((name) => `${name} (${describe(module[name])})`);
  throw new Error(
    `${entry} exports no API: export the app as the default export or as "app" ` +
      `(found ${found.length ? found.join(', ') : 'no exports'})`,
  );
}

/** Imports a TypeScript or JavaScript entry without a build step (through tsx) and finds its app. */
export async function loadApp(entry: string): Promise<API> {
  const { tsImport } = await import('tsx/esm/api');
  const path = isAbsolute(entry) ? entry : resolve(process.cwd(), entry);
  const module = (await tsImport(pathToFileURL(path).href, import.meta.url)) as Record<string, unknown>;
  return findApp(module, entry);
}
