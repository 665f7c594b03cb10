#!/usr/bin/env node
import { parseArgs } from 'node:util';
import type { Duration } from '@fnapi/core';
import {
  checkCommand,
  clientCommand,
  deployCommand,
  devCommand,
  mcpCommand,
  openapiCommand,
  openapiDiffCommand,
  routesCommand,
  workerCommand,
} from './commands.js';
import { DIFF_FORMATS, type DiffFormat, FAIL_ON, type FailOn } from './diff/format.js';

const USAGE = `Usage:
  fnapi dev <entry> [--host H] [--port P] [--client <file>]
                                     serve the app on --host/--port (else HOST/PORT, else
                                     127.0.0.1:8000), restarting on change (and rewriting the
                                     client types in <file> on every start)
  fnapi openapi <entry> [-o <file>] [--openapi-version 3.2.0] [--document <key>]
                                     write the OpenAPI document (stdout without -o); --document: one
                                     of the app's documents (new API({ documents: { v1: … } }))
  fnapi openapi diff <base> <head> [--fail-on breaking|deprecation|none] [--format text|markdown|json]
                                     print every change between two documents (each a JSON or YAML
                                     file, an entry, or git:<ref>:<file or entry>) as breaking,
                                     deprecation or informational; exit 1 on a breaking change (by
                                     default), 2 when a document cannot be read or built
  fnapi client <entry> [-o <file>] [--document <key>]
                                     write the client types (openapi-typescript's paths, for @fnapi/client's createClient)
  fnapi routes <entry> [--deps]      list method, route and operationId of each endpoint; --deps
                                     adds each endpoint's dependencies as a tree
  fnapi worker <entry> [--metrics-port P] [--metrics-host H]
                                     run the app's job workers (@fnapi/jobs) without serving HTTP;
                                     SIGTERM stops them gracefully. --metrics-port: serve the
                                     worker's Prometheus metrics (jobs_total, job_duration_seconds,
                                     process metrics) at http://H:P/metrics (H: HOST, else 127.0.0.1)
  fnapi mcp <entry> [--list]         serve the app's MCP tools (@fnapi/mcp) over stdio, logs on stderr;
                                     --list prints the tool and resource catalogue as JSON
  fnapi check <entry> [--runs 100] [--seed n] [--only id,…] [--skip id,…] [--header 'Name: value']…
                     [--read-only] [--methods GET,POST,…] [--mcp] [--verbose] [--document <key>]
                                     call every operation (DELETE included, against the app's own
                                     services; FNAPI_CHECK=1 is set for the app) with generated inputs;
                                     exit 1 when an answer breaks the document or an operation is not
                                     exercised. --read-only: GET, HEAD and QUERY only. --mcp: also
                                     call every MCP tool through the official client, each result
                                     checked against its outputSchema, each error a problem body.
                                     --verbose: the app's logs below error too
  fnapi deploy haproxy [--servers host:port,…] [--port 8080] [--bind 127.0.0.1] [--health /readyz]
                       [--heartbeat 30] [--tunnel-timeout 1h] [-o <file>]
                                     write an HAProxy configuration for instances of an app: round
                                     robin, a readiness check every 500 ms (pair it with shutdownDelay),
                                     client/server timeouts twice the WebSocket heartbeat (seconds) and
                                     a long timeout tunnel for WebSockets

<entry> is a TypeScript or JavaScript module whose default export, or export named "app", is an API.`;

const COMMANDS = ['dev', 'openapi', 'client', 'routes', 'check', 'deploy', 'worker', 'mcp'];

function list(value: string | undefined): string[] | undefined {
  return value
    ?.split(',')
    .map((id) => id.trim())
    .filter(Boolean);
}

function integer(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?[0-9]+$/.test(value)) throw new Error(`--${name} takes an integer, not "${value}"`);
  return Number(value);
}

/** A duration flag: a number of seconds, or a string with its unit (checked where it is used). */
function duration(value: string | undefined): Duration | undefined {
  if (value === undefined) return undefined;
  return /^[0-9]+(\.[0-9]+)?$/.test(value) ? Number(value) : (value as Duration);
}

function headers(lines: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of lines ?? []) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new Error(`--header takes "Name: value", not "${line}"`);
    out[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return out;
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      output: { type: 'string', short: 'o' },
      client: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      runs: { type: 'string' },
      seed: { type: 'string' },
      only: { type: 'string' },
      skip: { type: 'string' },
      header: { type: 'string', short: 'H', multiple: true },
      'base-url': { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string', short: 'p' },
      'openapi-version': { type: 'string' },
      'read-only': { type: 'boolean' },
      methods: { type: 'string' },
      verbose: { type: 'boolean', short: 'v' },
      servers: { type: 'string' },
      bind: { type: 'string' },
      health: { type: 'string' },
      'fail-on': { type: 'string' },
      format: { type: 'string' },
      heartbeat: { type: 'string' },
      'tunnel-timeout': { type: 'string' },
      'metrics-port': { type: 'string' },
      'metrics-host': { type: 'string' },
      list: { type: 'boolean' },
      mcp: { type: 'boolean' },
      document: { type: 'string' },
      deps: { type: 'boolean' },
    },
  });
  const [command, entry] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  if (!entry || !COMMANDS.includes(command)) {
    console.error(command && !COMMANDS.includes(command) ? `fnapi: unknown command "${command}"\n\n${USAGE}` : USAGE);
    return 2;
  }
  if (command === 'openapi' && entry === 'diff') {
    const [base, head, ...extra] = positionals.slice(2);
    if (!base || !head || extra.length > 0) {
      console.error('fnapi: openapi diff takes two documents: fnapi openapi diff <base> <head>');
      return 2;
    }
    const failOn = values['fail-on'] ?? 'breaking';
    const format = values.format ?? 'text';
    if (!FAIL_ON.includes(failOn as FailOn)) {
      console.error(`fnapi: --fail-on takes ${FAIL_ON.join(', ')}, not "${failOn}"`);
      return 2;
    }
    if (!DIFF_FORMATS.includes(format as DiffFormat)) {
      console.error(`fnapi: --format takes ${DIFF_FORMATS.join(', ')}, not "${format}"`);
      return 2;
    }
    return openapiDiffCommand(base, head, { failOn: failOn as FailOn, format: format as DiffFormat });
  }
  switch (command) {
    case 'openapi':
      if (values['openapi-version'] !== undefined) {
        if (values['openapi-version'] !== '3.1.0' && values['openapi-version'] !== '3.2.0') {
          throw new Error(`--openapi-version takes 3.1.0 or 3.2.0, not "${values['openapi-version']}"`);
        }
        // Read by the app (when it names no `openapiVersion` of its own) as it is loaded.
        process.env.FNAPI_OPENAPI_VERSION = values['openapi-version'];
      }
      await openapiCommand(entry, values.output, values.document);
      return 0;
    case 'client':
      await clientCommand(entry, values.output, values.document);
      return 0;
    case 'routes':
      await routesCommand(entry, { deps: values.deps === true });
      return 0;
    case 'worker':
      return workerCommand(entry, { metricsPort: integer('metrics-port', values['metrics-port']), metricsHost: values['metrics-host'] });
    case 'mcp':
      return mcpCommand(entry, values.list === true);
    case 'check':
      return checkCommand(entry, {
        runs: integer('runs', values.runs),
        seed: integer('seed', values.seed),
        only: list(values.only),
        skip: list(values.skip),
        headers: headers(values.header),
        baseUrl: values['base-url'],
        readOnly: values['read-only'],
        methods: list(values.methods),
        verbose: values.verbose,
        mcp: values.mcp,
        document: values.document,
      });
    case 'deploy':
      return deployCommand(entry, {
        servers: list(values.servers),
        port: integer('port', values.port),
        bind: values.bind,
        health: values.health,
        heartbeat: duration(values.heartbeat),
        tunnelTimeout: duration(values['tunnel-timeout']),
        output: values.output,
      });
    default:
      return devCommand(entry, { client: values.client, host: values.host, port: values.port });
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(`fnapi: ${error.message}`);
    process.exit(1);
  },
);
