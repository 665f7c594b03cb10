#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { checkCommand, clientCommand, deployCommand, devCommand, openapiCommand, routesCommand, workerCommand } from './commands.js';

const USAGE = `Usage:
  fnapi dev <entry> [--host H] [--port P] [--client <file>]
                                     serve the app on --host/--port (else HOST/PORT, else
                                     127.0.0.1:8000), restarting on change (and rewriting the
                                     client types in <file> on every start)
  fnapi openapi <entry> [-o <file>] [--openapi-version 3.2.0]
                                     write the OpenAPI document (stdout without -o)
  fnapi client <entry> [-o <file>]   write the client types (openapi-typescript's paths, for @fnapi/client's createClient)
  fnapi routes <entry> [--deps]      list method, route and operationId of each endpoint; --deps
                                     adds each endpoint's dependencies as a tree
  fnapi worker <entry>               run the app's job workers (@fnapi/jobs) without serving HTTP;
                                     SIGTERM stops them gracefully
  fnapi check <entry> [--runs 100] [--seed n] [--only id,…] [--skip id,…] [--header 'Name: value']…
                     [--read-only] [--methods GET,POST,…] [--verbose]
                                     call every operation (DELETE included, against the app's own
                                     services; FNAPI_CHECK=1 is set for the app) with generated inputs;
                                     exit 1 when an answer breaks the document or an operation is not
                                     exercised. --read-only: GET, HEAD and QUERY only. --verbose: the
                                     app's logs below error too
  fnapi deploy haproxy [--servers host:port,…] [--port 8080] [--bind 127.0.0.1] [--health /readyz] [-o <file>]
                                     write an HAProxy configuration for instances of an app: round
                                     robin, a readiness check every 500 ms (pair it with shutdownDelay)

<entry> is a TypeScript or JavaScript module whose default export, or export named "app", is an API.`;

const COMMANDS = ['dev', 'openapi', 'client', 'routes', 'check', 'deploy', 'worker'];

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
  switch (command) {
    case 'openapi':
      if (values['openapi-version'] !== undefined) {
        if (values['openapi-version'] !== '3.1.0' && values['openapi-version'] !== '3.2.0') {
          throw new Error(`--openapi-version takes 3.1.0 or 3.2.0, not "${values['openapi-version']}"`);
        }
        // Read by the app (when it names no `openapiVersion` of its own) as it is loaded.
        process.env.FNAPI_OPENAPI_VERSION = values['openapi-version'];
      }
      await openapiCommand(entry, values.output);
      return 0;
    case 'client':
      await clientCommand(entry, values.output);
      return 0;
    case 'routes':
      await routesCommand(entry, { deps: values.deps === true });
      return 0;
    case 'worker':
      return workerCommand(entry);
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
      });
    case 'deploy':
      return deployCommand(entry, {
        servers: list(values.servers),
        port: integer('port', values.port),
        bind: values.bind,
        health: values.health,
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
