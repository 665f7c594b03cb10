// Minimal declarations for the two dependencies that ship no types of their own
// (the bench does not pull in @types/autocannon or @types/express).

declare module 'autocannon' {
  namespace autocannon {
    interface Options {
      url: string;
      method?: string;
      headers?: Record<string, string>;
      body?: string;
      connections?: number;
      pipelining?: number;
      duration?: number;
      /** Seconds before a request without an answer counts as a timeout. */
      timeout?: number;
      /** Requests per second across all connections. */
      overallRate?: number;
    }
    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      total: number;
      p50: number;
      p90: number;
      p99: number;
    }
    interface Result {
      requests: Histogram;
      latency: Histogram;
      throughput: Histogram;
      errors: number;
      timeouts: number;
      non2xx: number;
      duration: number;
    }
  }
  function autocannon(options: autocannon.Options): Promise<autocannon.Result>;
  export default autocannon;
}

declare module 'express' {
  import type { IncomingMessage, Server, ServerResponse } from 'node:http';
  interface Request extends IncomingMessage {
    params: Record<string, string>;
    query: Record<string, unknown>;
    body: unknown;
  }
  interface Response extends ServerResponse {
    status(code: number): Response;
    json(body: unknown): Response;
  }
  type Handler = (req: Request, res: Response, next: (err?: unknown) => void) => void;
  interface Express {
    use(handler: Handler): Express;
    disable(setting: string): Express;
    get(path: string, handler: (req: Request, res: Response) => void): Express;
    post(path: string, handler: (req: Request, res: Response) => void): Express;
    listen(port: number, host: string, callback: () => void): Server;
  }
  interface ExpressFactory {
    (): Express;
    json(): Handler;
  }
  const express: ExpressFactory;
  export default express;
}
