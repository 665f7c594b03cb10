import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { RouteInfo } from '@fnapi/core';
import { provided, WORKER_RUNTIME } from '@fnapi/core/extend';
import { type CheckOptions, checkContract, checkWarning, formatReport, READ_ONLY_METHODS } from './check/contract.js';
import { type HaproxyOptions, haproxyConfig } from './deploy/haproxy.js';
import { checkTools, formatToolReport } from './check/tools.js';
import { writeClientTypes } from './client.js';
import { checkPort, listenAddress } from './address.js';
import { loadApp } from './load.js';
import { diffDocuments } from './diff/classify.js';
import { type DiffFormat, diffFails, type FailOn, formatDiff } from './diff/format.js';
import { DocumentInputError, loadDocument } from './diff/inputs.js';

/** The whole document, or with `key` one of the app's `documents`. */
function documentOf(app: Awaited<ReturnType<typeof loadApp>>, key: string | undefined): Record<string, unknown> {
  return key === undefined ? app.openapi() : app.openapi(key);
}

/** `fnapi openapi <entry> [-o file] [--document key]`: the document, without starting a server. */
export async function openapiCommand(entry: string, output: string | undefined, document?: string): Promise<void> {
  const app = await loadApp(entry);
  const text = `${JSON.stringify(documentOf(app, document), null, 2)}\n`;
  if (output) {
    writeFileSync(output, text);
    console.error(`fnapi: wrote the OpenAPI document of ${entry} to ${output}`);
  } else {
    process.stdout.write(text);
  }
}

/**
 * `fnapi openapi diff <base> <head>`: every change between two documents (files, entry modules or
 * `git:<ref>:<path>`), classified. Resolves with the exit status: 1 when a change at `failOn` or worse
 * was found, 2 when a document cannot be read or built.
 */
export async function openapiDiffCommand(
  base: string,
  head: string,
  options: { failOn?: FailOn | undefined; format?: DiffFormat | undefined } = {},
): Promise<number> {
  const documents: Record<string, unknown>[] = [];
  for (const input of [base, head]) {
    try {
      documents.push(await loadDocument(input));
    } catch (error) {
      if (!(error instanceof DocumentInputError)) throw error;
      console.error(`fnapi: ${error.message}`);
      return 2;
    }
  }
  const result = diffDocuments(documents[0]!, documents[1]!);
  process.stdout.write(formatDiff(result, options.format ?? 'text'));
  return diffFails(result, options.failOn ?? 'breaking') ? 1 : 0;
}

/** `fnapi client <entry> [-o file] [--document key]`: the document as TypeScript types for `@fnapi/client`'s `createClient<paths>()` (openapi-fetch). */
export async function clientCommand(entry: string, output: string | undefined, document?: string): Promise<void> {
  const app = await loadApp(entry);
  await writeClientTypes({ openapi: () => documentOf(app, document) }, entry, output);
}

/**
 * `fnapi worker <entry>`: runs the job workers of the app's attached `Jobs` without serving HTTP, until
 * SIGTERM/SIGINT stops them gracefully. The runtime is the one `@fnapi/jobs` left on the app under
 * core's `WORKER_RUNTIME`, so this package does not depend on it.
 */
export async function workerCommand(
  entry: string,
  options: { metricsPort?: number | undefined; metricsHost?: string | undefined } = {},
): Promise<number> {
  const app = await loadApp(entry);
  const runtime = provided(app, WORKER_RUNTIME);
  if (runtime === undefined) {
    throw new Error(`${entry}: the app has no jobs; define them with @fnapi/jobs and call jobs.attach(app)`);
  }
  const metrics = options.metricsPort === undefined ? undefined : { port: options.metricsPort, host: options.metricsHost };
  await runtime.run({ handleSignals: true, metrics });
  // Runs until a signal: the runtime exits the process once its workers have stopped.
  return new Promise<number>(() => {});
}

/**
 * `fnapi mcp <entry> [--list]`: the app's MCP tools over stdio (or the catalogue as JSON), by the
 * `fnapi-mcp` command that `@fnapi/mcp` carries, so production needs no development package. Run
 * under tsx, so a TypeScript entry needs no build; resolves with its exit code.
 */
export async function mcpCommand(entry: string, list: boolean): Promise<number> {
  const bin = mcpBin();
  const require = createRequire(import.meta.url);
  const tsx = require.resolve('tsx/esm');
  const args = ['--import', pathToFileURL(tsx).href, bin, entry, ...(list ? ['--list'] : [])];
  return runNode(args);
}

/** The `fnapi-mcp` script of the `@fnapi/mcp` the project installed (its source, in fnapi's own workspace). */
function mcpBin(): string {
  let main: string;
  try {
    main = createRequire(join(process.cwd(), 'package.json')).resolve('@fnapi/mcp');
  } catch {
    throw new Error('fnapi mcp serves the tools of @fnapi/mcp, which this project lacks: add it (pnpm add @fnapi/mcp)');
  }
  return join(dirname(main), main.endsWith('.ts') ? 'bin.ts' : 'bin.js');
}

/** `fnapi routes <entry> [--deps]`: method, route and operationId of each endpoint, and with `--deps` its dependencies as a tree. */
export async function routesCommand(entry: string, options: { deps?: boolean } = {}): Promise<void> {
  const app = await loadApp(entry);
  const routes = app.routes;
  const rows = [['METHOD', 'ROUTE', 'OPERATION ID'], ...routes.map((r) => [r.method, r.route, r.operationId])];
  const widths = [0, 1].map((i) => Math.max(...rows.map((row) => row[i]!.length)));
  const line = (row: string[]) => `${row[0]!.padEnd(widths[0]!)}  ${row[1]!.padEnd(widths[1]!)}  ${row[2]}\n`;
  process.stdout.write(line(rows[0]!));
  for (const route of routes) {
    process.stdout.write(line([route.method, route.route, route.operationId]));
    if (options.deps) process.stdout.write(dependencyTree(route.dependencies ?? [], '  '));
  }
}

type DependencyInfo = NonNullable<RouteInfo['dependencies']>[number];

/** Dependencies as a tree: `├─ name (lifetime) as key [guard]`, what each uses below it. */
function dependencyTree(nodes: readonly DependencyInfo[], indent: string): string {
  let out = '';
  nodes.forEach((node, i) => {
    const last = i === nodes.length - 1;
    const label = `${node.name} (${node.lifetime}${node.guard ? ', guard' : ''}${node.cache ? '' : ', not cached'})`;
    const role = node.as === undefined ? ` [${node.from}]` : ` as ${node.as}`;
    out += `${indent}${last ? '└─' : '├─'} ${label}${role}\n`;
    out += dependencyTree(node.uses, `${indent}${last ? '   ' : '│  '}`);
  });
  return out;
}

/**
 * `fnapi dev <entry> [--client file]`: serves the app under `tsx watch`, which restarts it when any
 * source file the entry imports changes (rewriting the client types on every start), on
 * `--host`/`--port` (passed down as HOST/PORT). Resolves with the child's exit code; 1 at once, with
 * a one-line message, when the port is taken.
 */
export async function devCommand(
  entry: string,
  options: { client?: string | undefined; host?: string | undefined; port?: string | undefined } = {},
): Promise<number> {
  const { host, port } = listenAddress(options, process.env);
  // Checked here because tsx watch outlives a child that fails to listen: the command must end.
  const problem = await checkPort(host, port);
  if (problem !== undefined) {
    console.error(`fnapi: ${problem}`);
    return 1;
  }
  const env = { ...process.env, HOST: host, PORT: String(port) };
  const require = createRequire(import.meta.url);
  const tsxCli = require.resolve('tsx/cli');
  const ownFile = fileURLToPath(import.meta.url);
  const serve = fileURLToPath(new URL(ownFile.endsWith('.ts') ? './serve.ts' : './serve.js', import.meta.url));
  const args = [tsxCli, 'watch', '--clear-screen=false', serve, entry, ...(options.client ? ['--client', options.client] : [])];
  return runNode(args, env);
}

/**
 * `fnapi check <entry>`: the contract check, printed; resolves with the exit status (1 on any failure).
 * It warns first (it calls DELETE too, against the app's own services), sets `FNAPI_CHECK=1` before the
 * app is loaded, and keeps the app's logs below `error` quiet unless `verbose`.
 */
export async function checkCommand(
  entry: string,
  options: CheckOptions & { verbose?: boolean | undefined; mcp?: boolean | undefined },
): Promise<number> {
  const { verbose, mcp, ...check } = options;
  process.env.FNAPI_CHECK = '1';
  if (!verbose && !['silent', 'fatal', 'error'].includes(process.env.FNAPI_LOG_LEVEL ?? '')) process.env.FNAPI_LOG_LEVEL = 'error';
  const methods = check.readOnly
    ? READ_ONLY_METHODS.filter((m) => !check.methods?.length || check.methods.map((x) => x.toUpperCase()).includes(m))
    : check.methods?.map((m) => m.toUpperCase());
  // First in the output, before anything is called.
  process.stdout.write(`fnapi: ${checkWarning(methods)}\n\n`);
  const app = await loadApp(entry);
  try {
    const report = await checkContract(app, check);
    process.stdout.write(`${formatReport(report)}\n`);
    if (!mcp) return report.ok ? 0 : 1;
    const tools = await checkTools(app, { runs: check.runs, seed: check.seed, only: check.only, skip: check.skip, headers: check.headers });
    process.stdout.write(`\n${formatToolReport(tools)}\n`);
    return report.ok && tools.ok ? 0 : 1;
  } finally {
    await app.shutdown();
  }
}

/** `fnapi deploy haproxy`: an HAProxy configuration for instances of the app, to stdout or `-o`. */
export async function deployCommand(target: string, options: HaproxyOptions & { output?: string | undefined }): Promise<number> {
  if (target !== 'haproxy') {
    console.error(`fnapi: deploy knows "haproxy", not "${target}"`);
    return 2;
  }
  const { output, ...config } = options;
  const text = haproxyConfig({ ...config, servers: config.servers?.length ? config.servers : undefined });
  if (output) {
    writeFileSync(output, text);
    console.error(`fnapi: wrote the HAProxy configuration to ${output}`);
  } else {
    process.stdout.write(text);
  }
  return 0;
}

/**
 * Runs Node with `args` in the foreground (its output is ours), handing it Ctrl-C and SIGTERM;
 * resolves with its exit code (0 when a forwarded signal ended it).
 */
function runNode(args: string[], env?: NodeJS.ProcessEnv): Promise<number> {
  const child = spawn(process.execPath, args, { stdio: 'inherit', env });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve(code ?? (signal ? 0 : 1));
    });
  });
}
