import { createServer } from 'node:net';
import { PortUnavailableError } from '@fnapi/core/extend';

/** `--host`/`--port`, else `HOST`/`PORT`, else 127.0.0.1:8000 — as `app.run` reads them. */
export function listenAddress(
  options: { host?: string | undefined; port?: string | undefined },
  env: NodeJS.ProcessEnv,
): { host: string; port: number } {
  const host = options.host || env.HOST || '127.0.0.1';
  const text = options.port ?? env.PORT ?? '8000';
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) {
    throw new Error(`the port must be a whole number from 0 to 65535, got "${text}" (${options.port !== undefined ? '--port' : 'PORT'})`);
  }
  return { host, port };
}

/** Whether `host:port` can be bound now: undefined if so, else the same one-line message `app.run` gives. */
export async function checkPort(host: string, port: number): Promise<string | undefined> {
  if (port === 0) return undefined;
  const probe = createServer();
  return new Promise((resolve) => {
    probe.once('error', (error: NodeJS.ErrnoException) => {
      const code = error.code ?? '';
      resolve(code === 'EADDRINUSE' || code === 'EACCES' ? new PortUnavailableError(code, host, port).message : undefined);
    });
    probe.listen(port, host, () => probe.close(() => resolve(undefined)));
  });
}
