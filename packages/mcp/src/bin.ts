#!/usr/bin/env node
// `fnapi-mcp <entry> [--list]`: the app's tools over stdio for desktop clients, or the catalogue as JSON.
// The app runs in a child process whose standard output is this one's standard error, so whatever
// the app logs (pino writes to file descriptor 1) never mixes with the protocol; the protocol travels
// on a pipe of its own (the child's fd 3), relayed to this process's standard output.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MCP_RUNTIME, provided } from '@fnapi/core/extend';
import type { Writable } from 'node:stream';
import type { McpServer } from '@modelcontextprotocol/server';
import { mcp } from './server.js';

const USAGE = `Usage: fnapi-mcp <entry> [--list]
  Serves the app's MCP tools over stdio (logs on stderr); --list prints { tools, resourceTemplates } as JSON.
  <entry> is a module whose default export, or export named "app", is an fnapi API.`;

interface AppLike {
  openapi(): unknown;
  extend(extension: unknown): unknown;
  shutdown(): Promise<void>;
}

function isApp(value: unknown): value is AppLike {
  const candidate = value as Partial<AppLike> | null;
  return (
    typeof candidate === 'object' && candidate !== null && typeof candidate.openapi === 'function' && typeof candidate.extend === 'function'
  );
}

/** Loads the entry's app and its MCP capability (`mcp()`'s defaults when the entry added none). */
async function load(entry: string) {
  const path = isAbsolute(entry) ? entry : resolve(process.cwd(), entry);
  const module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  const app = [module.default, module.app].find(isApp);
  if (app === undefined) throw new Error(`${entry} exports no API: export the app as the default export or as "app"`);
  if (provided(app as never, MCP_RUNTIME) === undefined) app.extend(mcp());
  return { app, capability: provided(app as never, MCP_RUNTIME)! };
}

/** The child: loads the app and speaks the protocol on fd 3 (or writes the catalogue there). */
async function child(entry: string, list: boolean): Promise<void> {
  const out = createWriteStream('', { fd: 3 }) as unknown as Writable;
  const { app, capability } = await load(entry);
  if (list) {
    const catalogue = await capability.catalogue();
    await new Promise<void>((done) => out.end(`${JSON.stringify(catalogue, null, 2)}\n`, () => done()));
    await app.shutdown();
    return;
  }
  const { serveStdio, StdioServerTransport } = await import('@modelcontextprotocol/server/stdio');
  const handle = serveStdio((context) => capability.server(context) as McpServer, {
    transport: new StdioServerTransport(process.stdin, out),
  });
  const stop = async () => {
    await handle.close().catch(() => {});
    await app.shutdown();
    process.exit(0);
  };
  process.stdin.on('end', stop);
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

/** The parent: runs the child with the same Node options (a TypeScript loader), relays stdin and fd 3. */
function parent(args: string[]): void {
  const worker = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--child', ...args], {
    stdio: ['pipe', process.stderr, 'inherit', 'pipe'],
  });
  process.stdin.pipe(worker.stdin!);
  (worker.stdio[3] as NodeJS.ReadableStream).pipe(process.stdout);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => worker.kill(signal));
  worker.on('exit', (code) => {
    process.exitCode = code ?? 1;
  });
}

const args = process.argv.slice(2);
if (args[0] === '--child') {
  const rest = args.slice(1);
  child(rest.find((arg) => !arg.startsWith('-'))!, rest.includes('--list')).catch((error: unknown) => {
    process.stderr.write(`fnapi-mcp: ${(error as Error).message}\n`);
    process.exit(1);
  });
} else if (args.length === 0 || args.includes('--help') || args.includes('-h') || args.every((arg) => arg.startsWith('-'))) {
  process.stderr.write(`${USAGE}\n`);
  process.exitCode = args.includes('--help') || args.includes('-h') ? 0 : 2;
} else {
  parent(args);
}
