import type { Server } from 'node:net';
import { builtin } from '../platform/platform.js';

/**
 * The port asked for is taken (or not ours to bind). A one-line message that names the port and how
 * to choose another; no stack trace, since nothing in the app is at fault.
 */
export class PortUnavailableError extends Error {
  readonly code: string;
  readonly port: number;
  readonly host: string;

  constructor(code: string, host: string, port: number) {
    const what = code === 'EACCES' ? 'needs privileges to bind' : 'is already in use';
    super(
      `Port ${port} on ${host} ${what}: stop whatever holds it, or choose another port with --port, the PORT ` +
        'environment variable or app.run({ port }) (port 0 picks a free one)',
    );
    this.name = 'PortUnavailableError';
    this.code = code;
    this.port = port;
    this.host = host;
    this.stack = `${this.name}: ${this.message}`;
  }
}

/** Listens on `port`/`host`; a port in use (or forbidden) rejects with a `PortUnavailableError`. */
export async function listen(server: Server, port: number, host: string): Promise<void> {
  server.listen(port, host);
  try {
    await builtin('node:events').once(server, 'listening');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES') throw new PortUnavailableError(code, host, port);
    throw error;
  }
}
