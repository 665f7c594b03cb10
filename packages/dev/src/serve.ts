// Run by `fnapi dev` under `tsx watch`: imports the entry (so every file it imports is watched),
// writes the client types when `--client file` is given, serves its app on HOST/PORT (set from
// --host/--port by the command) and prints where the docs are.
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { findApp } from './load.js';

const entry = process.argv[2];
if (!entry) {
  console.error('usage: serve <entry>');
  process.exit(2);
}
const path = isAbsolute(entry) ? entry : resolve(process.cwd(), entry);
const app = findApp((await import(pathToFileURL(path).href)) as Record<string, unknown>, entry);
const clientAt = process.argv.indexOf('--client');
if (clientAt > 0 && process.argv[clientAt + 1]) {
  const { writeClientTypes } = await import('./client.js');
  // A stale or broken client is reported, never a reason not to serve.
  await writeClientTypes(app, entry, process.argv[clientAt + 1]).catch((error: Error) =>
    console.error(`fnapi dev: could not write the client types: ${error.message}`),
  );
}
let url: string;
try {
  ({ url } = await app.run());
} catch (error) {
  // A port taken since the command checked it: the one-line message, no stack; the next change retries.
  if ((error as Error).name !== 'PortUnavailableError') throw error;
  console.error(`fnapi dev: ${(error as Error).message}`);
  process.exit(1);
}
console.log(`fnapi dev: serving ${entry} on ${url}${app.docsUrl ? ` — docs at ${url}${app.docsUrl}` : ''}`);
