/** A port already in use: `app.run` rejects with one line naming the port and how to choose another. */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { API } from '../src/index.js';
import { PortUnavailableError } from '../src/extend.js';

describe('app.run on a port in use', () => {
  it('rejects with a one-line error naming the port and how to choose another, no stack trace', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      const app = new API({ logger: false });
      app.get('/', () => 'hi');
      const error = await app.run({ port, host: '127.0.0.1', handleSignals: false }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(PortUnavailableError);
      const e = error as PortUnavailableError;
      expect(e.code).toBe('EADDRINUSE');
      expect(e.port).toBe(port);
      expect(e.message).toContain(`Port ${port} on 127.0.0.1 is already in use`);
      expect(e.message).toMatch(/--port.*PORT.*app\.run\(\{ port \}\)/);
      expect(e.message).not.toContain('\n');
      expect(e.stack).toBe(`PortUnavailableError: ${e.message}`);
      // The app can still be served on another port afterwards.
      const server = await app.run({ port: 0, host: '127.0.0.1', handleSignals: false });
      expect(await (await fetch(`${server.url}/`)).json()).toBe('hi');
      await server.close();
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});
