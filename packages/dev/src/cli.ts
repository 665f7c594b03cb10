#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { devCommand, openapiCommand, routesCommand } from './commands.js';

const USAGE = `Usage:
  fnapi dev <entry> [--host H] [--port P]
                                     serve the app on --host/--port (else HOST/PORT, else
                                     127.0.0.1:8000), restarting on change
  fnapi openapi <entry> [-o <file>]  write the OpenAPI document (stdout without -o)
  fnapi routes <entry>               list method, route and operationId of each endpoint

<entry> is a TypeScript or JavaScript module whose default export, or export named "app", is an API.`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      output: { type: 'string', short: 'o' },
      host: { type: 'string' },
      port: { type: 'string', short: 'p' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, entry] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  if (!entry || !['dev', 'openapi', 'routes'].includes(command)) {
    console.error(command && !['dev', 'openapi', 'routes'].includes(command) ? `fnapi: unknown command "${command}"\n\n${USAGE}` : USAGE);
    return 2;
  }
  switch (command) {
    case 'openapi':
      await openapiCommand(entry, values.output);
      return 0;
    case 'routes':
      await routesCommand(entry);
      return 0;
    default:
      return devCommand(entry, { host: values.host, port: values.port });
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(`fnapi: ${error.message}`);
    process.exit(1);
  },
);
