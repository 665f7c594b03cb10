import { randomUUID } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { DATABASE_URL } from '@fnapi/test-support';
import pg from 'pg';

/** A unique application_name, so checks and terminations touch this test's backends only. */
export function appName(label: string): string {
  return `fnapi-${label}-${randomUUID().slice(0, 8)}`;
}

export function urlWith(name: string, base = DATABASE_URL): string {
  const url = new URL(base);
  url.searchParams.set('application_name', name);
  return url.toString();
}

/** An independent connection for looking at the server from outside the pool. */
export async function observer(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  client.on('error', () => {});
  await client.connect();
  return client;
}

export async function backends(db: pg.Client, name: string): Promise<{ pid: number; state: string }[]> {
  const { rows } = await db.query('select pid, state from pg_stat_activity where application_name = $1', [name]);
  return rows as { pid: number; state: string }[];
}

/**
 * A TCP proxy in front of PostgreSQL that a test can cut: `down()` drops every connection and
 * refuses new ones (as a restarting server does), `up()` accepts again.
 */
export class CuttableProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private accepting = true;
  port = 0;
  /** Connections turned away while down. */
  refused = 0;

  async start(): Promise<this> {
    const target = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
    this.server = createServer((client) => {
      if (!this.accepting) {
        this.refused++;
        client.destroy();
        return;
      }
      const upstream = connect({ host: target.hostname, port: Number(target.port) || 5432 });
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => {});
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  url(name: string): string {
    const url = new URL(urlWith(name));
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  get connections(): number {
    return this.sockets.size / 2;
  }

  down(): void {
    this.accepting = false;
    for (const socket of this.sockets) socket.destroy();
  }

  up(): void {
    this.accepting = true;
  }

  /** Stops forwarding in both directions, connections kept open: a server that hangs (paused). */
  freeze(): void {
    for (const socket of this.sockets) socket.pause();
  }

  close(): Promise<void> {
    this.down();
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
